import Foundation
import Testing
@testable import ImgRenderer

/// `--renderer auto`: one fetch connects to the renderer once, for its rendering (it used to connect three times:
/// to decide whether to start libvips, whether to check the header here, and to render).
@Suite("Warm renderer connections", .serialized)
struct RendererConnectionTests: RendererSuite {
    let server: FixtureServer
    let work: TemporaryDirectory

    /// The fake renderer counts the connections it accepts and hangs up on each, so the fetch renders in its own
    /// process. Without the lock it is a listener no renderer owns; with it, what clients take for a running
    /// renderer (neither libvips nor the header check is then started before the rendering is handed over).
    @Test(arguments: [false, true])
    func oneFetchConnectsOnce(holdingTheLock: Bool) throws {
        defer { stopRenderer() }
        let count = work.file("accepted-\(holdingTheLock)")
        let fake = try fake("hangup", options: ["--count-file", count] + (holdingTheLock ? ["--lock"] : []))
        defer { end(fake) }
        let output = work.file("out-\(holdingTheLock).jpg")
        let result = try run([server.url("/img/sample.jpg"), "--resize", "64x64", "--no-cache", "-o", output, "-v"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("rendered in this process"), "\(result.stderr)")
        // The fake wrote its line before it read the request that it hung up on, so every accept is counted by now.
        let accepted = (try? String(contentsOfFile: count, encoding: .utf8)) ?? ""
        #expect(accepted.split(separator: "\n").count == 1, "connections accepted for one fetch: \(accepted)")
        let alone = try inProcess([server.url("/img/sample.jpg"), "--resize", "64x64", "--no-cache", "-o", work.file("local.jpg")])
        #expect(alone.status == 0)
        #expect(FileManager.default.contents(atPath: output) == FileManager.default.contents(atPath: work.file("local.jpg")))
    }
}

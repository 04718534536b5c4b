import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// What only a process of its own shows: standard input read by the command, and an interrupt that ends it.
@Suite("Standard input and signals through the binary", .serialized)
struct ProcessBoundTests: EndToEndSuite {
    let server: FixtureServer
    let work: TemporaryDirectory

    @Test func infoReadsStandardInput() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg"))
        let piped = try Imgfetch.run(["info", "-", "--json", "--cache-dir", cache], stdin: data)
        #expect(piped.status == 0, "\(piped.stderr)")
        let fromStdin = try #require(try JSONSerialization.jsonObject(with: piped.stdout) as? [String: Any])
        #expect(fromStdin["width"] as? Int == 290 && fromStdin["fileSize"] as? Int == data.count)
        #expect(fromStdin["cacheState"] == nil)
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func anInterruptedFetchLeavesNothingBehind(signal: Int32) throws {
        let folder = work.file("interrupted-\(signal)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let process = try Imgfetch.launch([server.url("/slow/sample.jpg?delay=0.1"), "--resize", "50x", "--cache-dir", cache, "-o", folder + "/out.jpg"])
        try server.waitForRequests("/slow/sample.jpg")
        usleep(200_000)
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationStatus == 128 + signal)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        let entries = FileManager.default.subpaths(atPath: cache + "/entries") ?? []
        #expect(!entries.contains { $0.hasSuffix("original") || $0.hasSuffix(".variant") })
    }
}

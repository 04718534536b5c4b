import Foundation
import Testing
@testable import ImgCore

/// `imgfetch info` of a server that ignores ranges (it answers 200 with the whole file) under `--max-bytes`.
@Suite("imgfetch info: a server that ignores ranges", .serialized)
struct InfoWholeBodyTests: EndToEndSuite {
    static let runsInProcess = true
    let server: FixtureServer
    let work: TemporaryDirectory

    func info(_ arguments: [String]) throws -> CommandResult {
        try fetch(["info"] + arguments)
    }

    /// A server's body over --max-bytes is read to the limit, not refused: the header is in its first bytes,
    /// as it is in a range's. What was read is not the file: no size is told, nothing is cached.
    @Test func aServerThatIgnoresRangesIsReadToTheLimit() throws {
        let run = try info([server.url("/norange/photos/grass.jpg"), "--max-bytes", "20000", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let found = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any], "\(run.stdoutText)")
        #expect(found["width"] as? Int == 1024 && found["height"] as? Int == 768, "\(found)")
        #expect(found["httpStatus"] as? Int == 200 && found["bytesRead"] as? Int == 20_000 && found["fileSize"] == nil)
        #expect(!FileManager.default.fileExists(atPath: cache + "/entries"), "a prefix was cached")
        // No header within the limit is still that (exit 3), not a body over it.
        let bounded = try info([server.url("/norange/generated/big-app-segment.jpg"), "--max-bytes", "100K"])
        #expect(bounded.status == 3 && bounded.stderr.contains("no image header in the first"), "\(bounded.stderr)")
    }
}

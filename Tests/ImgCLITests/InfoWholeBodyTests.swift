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

    /// The original info keeps (read whole) gets `--ttl`'s time to live, as fetch's does, and before that
    /// `IMGFETCH_TTL`'s: info took the variable and refused the option. With `--no-cache` it keeps nothing, and
    /// a bad variable stops it not.
    @Test func anOriginalKeptGetsTheTTLOfOptionThenVariable() throws {
        func span(_ arguments: [String], environment: [String: String] = [:]) throws -> Int64? {
            try? FileManager.default.removeItem(atPath: cache)
            let run = try Imgfetch.runInProcess(["info", server.url("/norange/photos/grass.jpg"), "--cache-dir", cache]
                                                + arguments, environment: environment)
            #expect(run.status == 0, "\(arguments) \(environment): \(run.stderr)")
            let entry = FileState.listing(cache + "/entries").first { $0.key.hasSuffix("/original") }?.value
            return entry.map { Int64($0.span.rounded()) }
        }
        #expect(try span(["--ttl", "1h"]) == 3600)
        #expect(try span([], environment: ["IMGFETCH_TTL": "2h"]) == 7200)
        #expect(try span(["--ttl", "1h"], environment: ["IMGFETCH_TTL": "2h"]) == 3600, "the option beats the variable")
        #expect(try span(["--no-cache"], environment: ["IMGFETCH_TTL": "bogus"]) == nil)
    }
}

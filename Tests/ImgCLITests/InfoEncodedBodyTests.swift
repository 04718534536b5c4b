import Foundation
import Testing
@testable import ImgCore

/// `imgfetch info` of a server that compresses a range although no encoding was accepted: the range's bytes are not
/// the file's, so the whole file is asked for, which libcurl decodes (info said "not an image" of the gzip bytes).
@Suite("imgfetch info: an encoded range", .serialized)
struct InfoEncodedBodyTests: EndToEndSuite {
    static let runsInProcess = true
    let server: FixtureServer
    let work: TemporaryDirectory

    @Test func aRangeSentGzippedIsAskedForWholeAndDecoded() throws {
        let run = try fetch(["info", server.url("/gzip-always/sample.png"), "--json", "--no-cache", "-v"])
        #expect(run.status == 0, "\(run.stderr)")
        let found = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any], "\(run.stdoutText)")
        #expect(found["format"] as? String == "png" && found["requests"] as? Int == 2, "\(found)")
        #expect(run.stderr.contains("with Content-Encoding gzip: asking for the whole file"), "\(run.stderr)")
    }
}

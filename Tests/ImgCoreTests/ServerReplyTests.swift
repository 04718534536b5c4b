import Foundation
import Testing
@testable import ImgCore

/// Replies that are legal HTTP but unexpected, or not HTTP at all, and what the server says about caching.
@Suite("Odd server replies", .serialized)
struct ServerReplyTests: EndToEndSuite {
    let server: FixtureServer
    let work: TemporaryDirectory

    init() throws {
        server = try FixtureServer()
        work = try TemporaryDirectory()
    }

    /// Every cache entry file written so far.
    func cachedEntries() -> [String] {
        (FileManager.default.subpaths(atPath: cache + "/entries") ?? []).filter { $0.hasSuffix("original") || $0.hasSuffix(".variant") }
    }

    @Test func a304ToARequestThatWasNotConditionalIsAnHTTPFailure() throws {
        let result = try fetch([server.url("/status/304"), "--retry", "2", "-o", work.file("a.jpg")])
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("HTTP 304"), "\(result.stderr)")
        #expect(try server.requests("/status/304") == 1)
        #expect(cachedEntries().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: work.file("a.jpg")))
    }

    @Test func aReplyThatIsNotHTTPIsMalformedAndRetried() throws {
        let result = try fetch([server.url("/garbage"), "--retry", "1", "-o", work.file("a.jpg")])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("malformed HTTP response"), "\(result.stderr)")
        #expect(!result.stderr.contains("redirect"), "\(result.stderr)")
        #expect(try server.requests("/garbage") == 2)
    }

    @Test func aGoodURLAfterAResponseThatOverRanOnTheSameConnectionSucceeds() throws {
        let result = try fetch([server.url("/overrun/sample.jpg"), server.url("/img/rgba.png"), "-O", work.file("out"), "-v"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: work.file("out/rgba.png")))
        #expect(try server.requests("/img/rgba.png") == 2)
    }

    @Test func retriesUseAFreshConnection() throws {
        let result = try fetch([server.url("/flaky/1/sample.jpg"), "--retry", "1", "-o", work.file("a.jpg")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try server.stats().connections == 2)
    }
}

import Foundation
import Testing
@testable import ImgCore

/// Replies that are legal HTTP but unexpected, or not HTTP at all, and what the server says about caching.
@Suite("Odd server replies", .serialized)
struct ServerReplyTests: EndToEndSuite {
    static let runsInProcess = true
    let server: FixtureServer
    let work: TemporaryDirectory

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

    /// A retry closes the connection that failed: kept, it stayed open beside the new one, one connection more to
    /// the host for each retry (the server may see the closed one end just after the next one starts).
    @Test func aRetryClosesTheConnectionThatFailed() throws {
        let result = try fetch([server.url("/flaky/3/sample.jpg?retry_after=0"), "--retry", "3", "-o", work.file("a.jpg")])
        #expect(result.status == 0, "\(result.stderr)")
        let stats = try server.stats()
        #expect(stats.connections == 4 && stats.max_concurrent_connections <= 2, "\(stats)")
    }

    @Test func noStoreIsDeliveredButNeverWrittenToTheDiskCache() throws {
        let path = "/cache-control/private,%20NO-STORE/sample.jpg"
        let first = try fetch([server.url(path), "--resize", "20x", "-v", "-o", work.file("a.jpg")])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("no-store"), "\(first.stderr)")
        #expect(try Rendering.probe(Data(contentsOf: URL(fileURLWithPath: work.file("a.jpg")))).width == 20)
        #expect(cachedEntries().isEmpty)
        let prefetched = try fetch(["prefetch", server.url(path), "-v"])
        #expect(prefetched.status == 0, "\(prefetched.stderr)")
        #expect(cachedEntries().isEmpty)
        let list = work.file("list.txt")
        try Data((server.url(path) + "\n").utf8).write(to: URL(fileURLWithPath: list))
        let batch = try fetch(["batch", list, "-O", work.file("out"), "--variant", "s=resize(10x)", "--variant", "m=resize(30x)"])
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(cachedEntries().isEmpty)
        #expect(try server.requests(path) == 3)
    }

    @Test func maxAgeAndOtherDirectivesLeaveTheTTLInCharge() throws {
        let path = "/cache-control/max-age=0,%20must-revalidate/sample.jpg"
        #expect(try fetch([server.url(path), "-o", work.file("a.jpg")]).status == 0)
        #expect(cachedEntries().count == 2)
        let again = try fetch([server.url(path), "-v", "-o", work.file("b.jpg")])
        #expect(again.stderr.contains(": disk,"), "\(again.stderr)")
        #expect(try server.requests(path) == 1)
    }
}

import Foundation
import Testing
@testable import ImgCore

/// Whether a failure is worth retrying later (a batch's exit 75) is decided from its structured cause: the error's
/// case, the HTTP status, libcurl's code as HTTPLoader classifies it; never from how the message begins.
@Suite("Transient failures by cause")
struct TransienceTests {
    @Test func theCauseDecidesNotTheMessage() {
        // Messages that begin as the other kind does: the cause wins.
        #expect(ImgError.network("TLS: looks permanent", cause: .timedOut).isTransient)
        #expect(ImgError.network("refusing a redirect, or so it says", cause: .cutShort).isTransient)
        #expect(!ImgError.network("timed out, or so it says", cause: .tls).isTransient)
        #expect(!ImgError.network("transfer cut short, or so it says", cause: .privateAddress).isTransient)
        #expect(!ImgError.network("", cause: .redirectScheme).isTransient)
        #expect(ImgError.network("", cause: .curl(code: 6)).isTransient, "a name that did not resolve may resolve later")
        for status in [408, 429, 500, 503, 599] { #expect(ImgError.http(status: status, message: "").isTransient) }
        for status in [400, 403, 404, 410] { #expect(!ImgError.http(status: status, message: "").isTransient) }
        #expect(!ImgError.overLimit(.bodyBytes(limit: 10)).isTransient && !ImgError.image("timed out").isTransient)
    }

    /// HTTPLoader gives each real failure its cause (against the fixture server on 127.0.0.1 only).
    @Test func theLoaderClassifiesRealFailures() throws {
        let server = try FixtureServer()
        var options = NetworkOptions()
        options.retries = 0
        options.timeout = 10
        func cause(_ url: String, _ change: (inout NetworkOptions) -> Void = { _ in }) -> NetworkCause? {
            var these = options
            change(&these)
            guard let target = URL(string: url) else { return nil }
            do throws(ImgError) {
                _ = try HTTPLoader(options: these).fetch(target)
                Issue.record("\(url) was fetched")
            } catch {
                if case .network(_, let cause) = error { return cause }
                Issue.record("\(url): not a network failure: \(error)")
            }
            return nil
        }
        let closed = try FixtureServer.closedPort()
        #expect(cause("http://127.0.0.1:\(closed)/a.jpg") == .connectionFailed)
        // https spoken to a plain-http port: the handshake fails.
        #expect(cause("https://127.0.0.1:\(server.port)/img/sample.jpg") == .tls)
        #expect(cause(server.url("/redirect-to?url=ftp://127.0.0.1/a.jpg")) == .redirectScheme)
        #expect(cause(server.url("/img/sample.jpg"), { $0.denyPrivateNetworks = true }) == .privateAddress)
        #expect(cause(server.url("/short/sample.jpg")) == .cutShort)
        #expect(cause(server.url("/delay/5/sample.jpg"), { $0.timeout = 0.5 }) == .timedOut)
    }
}

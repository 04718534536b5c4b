import Foundation
import Testing
@testable import ImgCore

/// Replies and URLs libcurl refuses are said for what they are, and classed as the retry policy treats them: a URL
/// or redirect target that can't be parsed, headers too large, a bad Content-Length, a status with no known phrase.
/// Against the fixture server on 127.0.0.1 only; the hosts refused are refused before any name is resolved.
@Suite("Loader failures, worded and classed")
struct LoaderFailureWordingTests {
    let server: FixtureServer

    init() throws { server = try FixtureServer() }

    func failure(_ url: String, _ change: (inout NetworkOptions) -> Void = { _ in }) throws -> ImgError {
        var options = NetworkOptions()
        options.retries = 1
        options.initialBackoff = 0.01
        options.timeout = 10
        change(&options)
        let target = try #require(URL(string: url))
        do throws(ImgError) {
            _ = try HTTPLoader(options: options).fetch(target)
        } catch {
            return error
        }
        Issue.record("\(url) was fetched")
        return .internalFailure("fetched")
    }

    @Test func aRedirectToAURLThatCantBeSentIsAPermanentFailureNamingIt() throws {
        let path = "/redirect-to?url=" + "http://127.0.0.1:99999/ok".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let error = try failure(server.url(path))
        #expect(error == .network("refusing a redirect to a malformed URL 'http://127.0.0.1:99999/ok': port 99999 is not a port number (1 to 65535)",
                                  cause: .malformedRedirect))
        #expect(!error.isTransient)
        #expect(try server.requests("/redirect-to") == 1, "not retried")
        // A percent-encoded international name, refused before any resolve.
        let international = "/redirect-to?url=" + "http://ex%C3%A4mple.invalid/x".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let refused = try failure(server.url(international))
        #expect(refused.message.contains("xn--") && !refused.isTransient, "\(refused)")
    }

    /// A hop after a redirect that runs out of the time the chain left is said to be the redirects' timeout: libcurl's
    /// text named only that hop's share ("after 478 milliseconds" of a 2.5 s `--timeout`).
    @Test func aRedirectedHopThatRunsOutOfTimeIsTheRedirectsTimeout() throws {
        let path = "/redirect-to?url=" + "/delay/5/sample.jpg".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let error = try failure(server.url(path)) { $0.timeout = 1; $0.retries = 0 }
        #expect(error == .network("timed out: the redirects took longer than the time allowed", cause: .redirectsTimedOut))
        // A stall with no redirect keeps libcurl's words.
        let direct = try failure(server.url("/delay/5/sample.jpg")) { $0.timeout = 1; $0.retries = 0 }
        guard case .network(let message, .timedOut) = direct else { Issue.record("\(direct)"); return }
        #expect(message.hasPrefix("timed out: Operation timed out after"), "\(message)")
    }

    @Test func aURLLibcurlCantParseIsAUsageError() {
        let failure = TransferFailure.unusableURL(URL(string: "http://u:s3cret@127.0.0.1/a")!, redirected: false,
                                                  detail: "URL using bad/illegal format or missing URL")
        #expect(failure.error == .usage("malformed URL 'http://u:***@127.0.0.1/a': URL using bad/illegal format or missing URL"))
        #expect(!failure.retryable && !failure.error.isTransient && failure.error.exitCode == 2)
        let redirected = TransferFailure.unusableURL(URL(string: "http://127.0.0.1/a")!, redirected: true, detail: "bad")
        if case .network(_, .malformedRedirect) = redirected.error {} else { Issue.record("\(redirected.error)") }
        #expect(!redirected.retryable && !redirected.error.isTransient)
    }

    @Test func responseHeadersTooLargeArePermanentAndSaidSo() throws {
        for kind in ["one", "many"] {
            let error = try failure(server.url("/huge-headers/\(kind)/sample.jpg"))
            guard case .network(let message, .headersTooLarge) = error else {
                Issue.record("\(kind): \(error)")
                continue
            }
            #expect(message.hasPrefix("response headers too large"), "\(message)")
            #expect(!error.isTransient)
            #expect(try server.requests("/huge-headers/\(kind)/sample.jpg") == 1, "not retried")
        }
    }

    @Test func aBadContentLengthIsNamed() throws {
        let error = try failure(server.url("/content-length/-1/sample.jpg"))
        #expect(error == .network("malformed HTTP response: its Content-Length is not a size", cause: .malformedReply))
        // A reply with no status line at all is still said so.
        #expect(try failure(server.url("/garbage")).message == "malformed HTTP response (no valid status line)")
    }

    @Test func statusesWithoutAKnownPhraseEndWithTheirNumber() throws {
        #expect(try failure(server.url("/status/418")) == .http(status: 418, message: "HTTP 418"))
        #expect(try failure(server.url("/status/451")) == .http(status: 451, message: "HTTP 451"))
        #expect(try failure(server.url("/status/404")) == .http(status: 404, message: "HTTP 404 Not Found"))
        #expect(try failure(server.url("/status/302")) == .http(status: 302, message: "HTTP 302 (a redirect with no Location)"))
    }

    @Test func aTimeTooShortForAnyRequestIsNotCalledARedirectsTimeout() throws {
        let error = try failure(server.url("/img/sample.jpg")) { $0.timeout = 1e-9 }
        #expect(error == .network("timed out before the request was sent: the time allowed is too short", cause: .timedOut))
        #expect(try server.stats().total == 0)
    }
}

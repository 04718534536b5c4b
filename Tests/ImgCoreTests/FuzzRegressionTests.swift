import Foundation
import Testing
@testable import ImgCore

/// Inputs the fuzz targets of Fuzz/README.md found; each is also under Fuzz/regressions/<target>/.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    private func remoteURL(_ text: String) throws -> URL {
        guard case .remote(let url) = try ImageSource(parsing: text) else {
            Issue.record("'\(text)' is not remote")
            throw ImgError.usage("not remote")
        }
        return url
    }

    /// Fuzz/regressions/url/host-percent-space: the key was built from the decoded host, so `%20` became a space
    /// and the key was no longer a URL.
    @Test func percentEncodedHostStaysEncodedInKey() throws {
        let url = try remoteURL("http://example.comq=%20")
        let key = try #require(CacheKey.original(for: url))
        #expect(key == "http://example.comq=%20/")
        let again = try remoteURL(key)
        #expect(CacheKey.original(for: again) == key)
    }

    /// Fuzz/regressions/url/host-percent-slash-collision: a decoded `%2F` in the host made two different URLs share a key.
    @Test func encodedSlashInHostDoesNotCollide() throws {
        let tricky = try #require(CacheKey.original(for: try remoteURL("http://a.com%2Fb.png/x")))
        let plain = try #require(CacheKey.original(for: try remoteURL("http://a.com/b.png/x")))
        #expect(tricky != plain)
        #expect(plain == "http://a.com/b.png/x")
    }

    /// Upper-case hosts still fold to lower case; IPv6 literals keep their brackets.
    @Test func hostNormalisationStillHolds() throws {
        #expect(CacheKey.original(for: try remoteURL("HTTP://EXAMPLE.com:80/A")) == "http://example.com/A")
        #expect(CacheKey.original(for: try remoteURL("http://[::1]:8080/x")) == "http://[::1]:8080/x")
    }
}

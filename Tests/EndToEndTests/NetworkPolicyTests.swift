import Foundation
import Testing
@testable import ImgCore

/// What goes to whom: custom headers and credentials stay with the origin the user named (#19.6), proxies never
/// carry a `--deny-private-networks` transfer, and the address policy sees through IPv4 embedded in IPv6 (#19.7).
@Suite("Network policy")
struct NetworkPolicyTests {
    let work: TemporaryDirectory
    /// The origin the user names, and another origin (another port of 127.0.0.1) it redirects to.
    let first: FixtureServer
    let other: FixtureServer

    init() throws {
        work = try TemporaryDirectory()
        first = try FixtureServer()
        other = try FixtureServer()
    }

    static let secrets = ["X-Api-Key: k3y", "Authorization: Bearer t0ken", "Cookie: session=c00kie"]

    func fetch(_ url: String, _ extra: [String] = []) throws -> CommandResult {
        try Imgfetch.run([url, "--no-cache", "-o", work.file("\(UUID().uuidString).jpg")]
                         + Self.secrets.flatMap { ["-H", $0] } + extra)
    }

    func redirect(to url: String) -> String {
        first.url("/redirect-to?url=" + url.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
    }

    /// The headers of the request `server` received for `path`.
    func received(_ server: FixtureServer, _ path: String) throws -> FixtureServer.RecordedRequest {
        try #require(try server.recordedRequests().first { $0.path == path }, "no request for \(path)")
    }

    @Test func customHeadersAndCredentialsDoNotFollowARedirectToAnotherOrigin() throws {
        let result = try fetch(redirect(to: other.url("/img/sample.jpg")))
        #expect(result.status == 0, "\(result.stderr)")
        let firstRequest = try #require(try first.recordedRequests().first)
        #expect(firstRequest.header("X-Api-Key") == "k3y" && firstRequest.header("Cookie") == "session=c00kie")
        let hop = try received(other, "/img/sample.jpg")
        for name in ["X-Api-Key", "Authorization", "Cookie"] {
            #expect(hop.header(name) == nil, "\(name) went to another origin: \(hop.headers)")
        }
    }

    @Test func userInfoDoesNotFollowARedirectToAnotherOrigin() throws {
        let target = other.url("/img/sample.jpg")
        let url = redirect(to: target).replacingOccurrences(of: "http://", with: "http://alice:s3cret@")
        let result = try Imgfetch.run([url, "--no-cache", "-o", work.file("a.jpg")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try first.recordedRequests().first?.header("Authorization")?.hasPrefix("Basic ") == true)
        #expect(try received(other, "/img/sample.jpg").header("Authorization") == nil)
    }

    @Test func theSameOriginKeepsThemAndLocationTrustedSendsThemAnywhere() throws {
        // A relative redirect, and an absolute one to the same origin.
        #expect(try fetch(first.url("/redirect/1/sample.jpg")).status == 0)
        #expect(try received(first, "/redirect/0/sample.jpg").header("X-Api-Key") == "k3y")
        #expect(try fetch(redirect(to: first.url("/img/rgba.png"))).status == 0)
        #expect(try received(first, "/img/rgba.png").header("Authorization") == "Bearer t0ken")

        let result = try fetch(redirect(to: other.url("/img/sample.jpg")), ["--location-trusted"])
        #expect(result.status == 0, "\(result.stderr)")
        let hop = try received(other, "/img/sample.jpg")
        #expect(hop.header("X-Api-Key") == "k3y" && hop.header("Authorization") == "Bearer t0ken"
                && hop.header("Cookie") == "session=c00kie")
    }

    @Test func originsDifferBySchemeHostOrPort() throws {
        let policy = RedirectPolicy(first: URL(string: "https://Images.Example:443/a.png")!, trusted: false)
        #expect(policy.sendsCredentials(to: URL(string: "https://images.example/b.png")!))
        #expect(!policy.sendsCredentials(to: URL(string: "http://images.example/b.png")!))
        #expect(!policy.sendsCredentials(to: URL(string: "https://images.example:8443/b.png")!))
        #expect(!policy.sendsCredentials(to: URL(string: "https://cdn.images.example/b.png")!))
        let trusted = RedirectPolicy(first: URL(string: "https://a.example/x")!, trusted: true)
        #expect(trusted.sendsCredentials(to: URL(string: "http://b.example/y")!))
        let withUser = RedirectPolicy(first: URL(string: "http://u:p@a.example/x")!, trusted: false)
        #expect(withUser.requestURL(for: URL(string: "http://u:p@b.example/y")!).absoluteString == "http://b.example/y")
    }

    /// Classified in-process, with no connection: `AddressPolicy.isPrivate(address:)` parses numbers only.
    @Test func ipv4EmbeddedInIPv6IsJudgedByTheIPv4Address() {
        let privateAddresses = ["64:ff9b::7f00:1", "64:ff9b::10.0.0.1", "64:ff9b::169.254.169.254", "::127.0.0.1",
                                "::10.1.2.3", "::ffff:0:127.0.0.1", "::ffff:0:192.168.0.1", "::ffff:127.0.0.1",
                                "[::ffff:169.254.169.254]", "2002:7f00:1::1", "2002:c0a8:101::", "::", "::1",
                                "64:ff9b:1::a00:1", "fe80::1", "fec0::1", "fd12::1", "ff02::1",
                                "127.0.0.1", "10.0.0.1", "100.64.0.1", "192.0.0.8", "198.18.0.1", "0.0.0.0"]
        for address in privateAddresses {
            #expect(AddressPolicy.isPrivate(address: address) == true, "\(address)")
        }
        let publicAddresses = ["64:ff9b::808:808", "::8.8.8.8", "::ffff:0:8.8.8.8", "::ffff:1.1.1.1", "2002:808:808::1",
                               "2001:4860:4860::8888", "93.184.216.34", "1.1.1.1"]
        for address in publicAddresses {
            #expect(AddressPolicy.isPrivate(address: address) == false, "\(address)")
        }
        #expect(AddressPolicy.isPrivate(address: "localhost") == nil)
    }

    /// With --deny-private-networks the proxy variables are not used (the refusal names the image's address, not
    /// the proxy's), and -v says so. Both are loopback addresses nothing listens on: the transfer is refused
    /// before any connection.
    @Test func denyPrivateNetworksIgnoresProxiesFromTheEnvironment() throws {
        let proxy = "http://127.0.0.2:9"
        var environment = ["no_proxy": "", "NO_PROXY": ""]
        for name in ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] { environment[name] = proxy }
        let result = try Imgfetch.run(["http://127.0.0.3:9/a.png", "--deny-private-networks", "-v", "--no-cache",
                                       "-o", work.file("a.png")], environment: environment)
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("private address 127.0.0.3"), "\(result.stderr)")
        #expect(!result.stderr.contains("127.0.0.2"), "\(result.stderr)")
        #expect(result.stderr.contains("ignoring the proxy in http_proxy"), "\(result.stderr)")
    }

    @Test func anExplicitProxyIsUsedAndRefusedWithDenyPrivateNetworks() throws {
        let refused = try Imgfetch.run(["http://127.0.0.3:9/a.png", "--proxy", first.url(""), "--deny-private-networks",
                                        "--no-cache", "-o", work.file("a.png")])
        #expect(refused.status == 2 && refused.stderr.contains("--proxy"), "\(refused.stderr)")
        #expect(try first.recordedRequests().isEmpty)
        let bad = try Imgfetch.run(["http://127.0.0.3:9/a.png", "--proxy", "ftp://127.0.0.1:1", "--no-cache", "-o", work.file("b.png")])
        #expect(bad.status == 2 && bad.stderr.contains("--proxy"), "\(bad.stderr)")

        // Through the fixture server as an HTTP proxy: it gets the absolute URL and serves the file.
        let proxied = try Imgfetch.run(["http://127.0.0.5:9/img/sample.jpg", "--proxy", "http://127.0.0.1:\(first.port)",
                                        "--no-cache", "-o", work.file("c.jpg")], environment: ["no_proxy": "", "NO_PROXY": ""])
        #expect(proxied.status == 0, "\(proxied.stderr)")
        #expect(try first.recordedRequests().map(\.path) == ["http://127.0.0.5:9/img/sample.jpg"])
        // --proxy is every transfer's: NO_PROXY from the environment sends none around it (it sent them straight to
        // 127.0.0.5:9, where nothing listens).
        for environment in [["no_proxy": "*", "NO_PROXY": ""], ["no_proxy": "", "NO_PROXY": "127.0.0.5"]] {
            let around = try Imgfetch.run(["http://127.0.0.5:9/img/sample.jpg", "--proxy", "http://127.0.0.1:\(first.port)",
                                           "--no-cache", "-o", work.file("d.jpg")], environment: environment)
            #expect(around.status == 0, "\(environment): \(around.stderr)")
        }
        #expect(try first.recordedRequests().count == 3)
    }

    /// A refused header names the header, not its value: it may be a secret.
    @Test func aRefusedHeaderKeepsItsValueSecret() throws {
        for header in ["Authorization: Bearer TOKSECRET\r\nX: y", "Authorization Bearer TOKSECRET"] {
            let result = try Imgfetch.runInProcess(["http://127.0.0.1:9/a.png", "-H", header, "--no-cache", "-o", work.file("e.png")])
            #expect(result.status == 2 && !result.stderr.contains("TOKSECRET"), "\(result.stderr)")
            #expect(result.stderr.contains("bad --header '") && result.stderr.contains("***"), "\(result.stderr)")
        }
    }
}

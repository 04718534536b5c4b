import Foundation
import Testing
@testable import ImgCLI
@testable import ImgCore

/// Option parsing run in process, with no binary started: the scanner, each command's scope and the settings the
/// values become, with their ranges. The end-to-end suites check the same refusals through the real process.
@Suite("option parsing in process")
struct InProcessParsingTests {
    static func settings(_ arguments: [String], environment: [String: String] = [:]) throws(ImgError) -> FetchSettings {
        try FetchSettings(try ArgumentScanner.scan(arguments), environment: environment, console: .process)
    }

    @Test func valuesBecomeSettings() throws {
        let settings = try Self.settings(["--timeout", "2.5", "--retry", "4", "--max-redirects=0", "--max-bytes", "2M",
                                          "--user-agent", "ua/1", "-H", "X-A: b", "--deny-private-networks"])
        let network = settings.configuration.network
        #expect(network.timeout == 2.5 && network.retries == 4 && network.maxRedirects == 0)
        #expect(network.maxBytes == 2 << 20 && network.userAgent == "ua/1" && network.denyPrivateNetworks)
        #expect(network.headers == ["X-A: b"])
    }

    @Test(arguments: [
        (["--retry", "101"], "--retry"),
        (["--timeout", "soon"], "--timeout"),
        (["--max-bytes", "lots"], "--max-bytes"),
        (["--max-frames", "0"], "--max-frames"),
        (["--proxy", "http://p:3128", "--deny-private-networks"], "--proxy"),
        (["-H", "X: a\r\nY: b"], "--header"),
        (["-H", "X-V: a\u{1}b"], "--header"),
        (["-H", "X-V: a\u{7F}b"], "--header"),
        (["--user-agent", "evil\r\nX-Injected: 1"], "--user-agent"),
        (["--user-agent", "evil\nX-Injected: 1"], "--user-agent"),
        (["--user-agent", "a\u{0}b"], "--user-agent"),
        (["--user-agent", "a\u{1B}[2Jb"], "--user-agent"),
        (["--user-agent", "ua/1", "-H", "user-agent: ua/2"], "--user-agent"),
        (["-H", "User-Agent;", "--user-agent", "ua/1"], "--user-agent"),
        (["--proxy", "http://pu:pSECRET@127.0.0.1:abc"], "--proxy"),
        (["--proxy", "http://pu:pSECRET@[::1"], "--proxy"),
        (["--proxy", "http://pu:pSECRET@127.0.0.1:99999"], "--proxy"),
        (["--proxy", "gopher://pu:pSECRET@127.0.0.1:1"], "--proxy"),
        (["--proxy", "pu:pSECRET@127.0.0.1:0"], "--proxy"),
        (["--proxy", "http://pu:pSECRET@127.0.0.1:1/path"], "--proxy"),
        (["--proxy", "http://pu:pSECRET@pr oxy:1"], "--proxy"),
        (["--proxy", "http://pu:pSECRET@pr!oxy:1"], "--proxy"),
        (["--proxy", "http://pu:pSECRET@:1"], "--proxy"),
    ])
    func badValuesAreUsageErrorsNamingTheOption(arguments: [String], option: String) {
        let message = UsageError.message { () throws(ImgError) in _ = try Self.settings(arguments) }
        #expect(message?.contains(option) == true, "\(arguments): \(message ?? "accepted")")
        // One line, and a proxy's password shown as ***.
        #expect(message?.contains("\n") == false && message?.contains("\r") == false, "\(message ?? "")")
        #expect(message?.contains("pSECRET") == false, "\(message ?? "")")
        if arguments.joined().contains("pSECRET") { #expect(message?.contains("pu:***@") == true, "\(message ?? "")") }
    }

    /// Tab is the one control character a header value may hold; proxies of every form curl takes are kept as given.
    @Test func goodHeaderAndProxyValuesAreKept() throws {
        let network = try Self.settings(["-H", "X-A: a\tb", "--user-agent", "ua/1\t(x)"]).configuration.network
        #expect(network.headers == ["X-A: a\tb"] && network.userAgent == "ua/1\t(x)")
        for proxy in ["http://127.0.0.1:3128", "127.0.0.1", "socks5h://u:p@proxy.example:1080/", "HTTPS://[::1]:8443",
                      "u:p%40x@proxy_1.example", ""] {
            #expect(try Self.settings(["--proxy", proxy]).configuration.network.proxy == proxy)
        }
    }

    /// A proxy's password is masked in any text, a malformed value and a libcurl message included.
    @Test func aProxyPasswordIsMaskedEverywhere() {
        #expect(ProxyAddress.masked("http://pu:pSECRET@127.0.0.1:abc") == "http://pu:***@127.0.0.1:abc")
        #expect(ProxyAddress.masked("pu:pSECRET@[::1") == "pu:***@[::1")
        #expect(ProxyAddress.masked("http://pu@127.0.0.1:1") == "http://pu@127.0.0.1:1")
        let message = "Unsupported proxy syntax in 'pu:pSECRET@h:1': bad"
        #expect(ProxyAddress.maskingPassword(of: "pu:pSECRET@h:1", in: message) == "Unsupported proxy syntax in 'pu:***@h:1': bad")
        #expect(!ProxyAddress.maskingPassword(of: nil, in: "in 'http://u:pSECRET@h:1'").contains("pSECRET"))
    }

    @Test func theScannerSuggestsAndScopes() throws {
        let unknown = UsageError.message { () throws(ImgError) in _ = try ArgumentScanner.scan(["--timout", "3"]) }
        #expect(unknown?.contains("--timeout") == true, "\(unknown ?? "accepted")")
        let missing = UsageError.message { () throws(ImgError) in _ = try ArgumentScanner.scan(["--timeout"]) }
        #expect(missing?.contains("--timeout") == true, "\(missing ?? "accepted")")

        let scanned = try ArgumentScanner.scan(["--jobs", "2", "-q", "a.txt"])
        #expect(scanned.value("jobs") == "2" && scanned.has("quiet") && scanned.positionals == ["a.txt"])
        let scope = UsageError.message { () throws(ImgError) in try OptionCatalog.checkApplicable(scanned, to: .fetch) }
        #expect(scope?.contains("--jobs") == true && scope?.contains("'fetch'") == true, "\(scope ?? "accepted")")
        #expect(UsageError.message { () throws(ImgError) in try OptionCatalog.checkApplicable(scanned, to: .batch) } == nil)
    }
}

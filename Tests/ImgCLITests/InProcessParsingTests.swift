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
    ])
    func badValuesAreUsageErrorsNamingTheOption(arguments: [String], option: String) {
        let message = UsageError.message { () throws(ImgError) in _ = try Self.settings(arguments) }
        #expect(message?.contains(option) == true, "\(arguments): \(message ?? "accepted")")
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

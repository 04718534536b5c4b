import Foundation
import Testing
@testable import ImgCore

/// Values that would change the request itself (a User-Agent that adds a header, a control byte in a header) or
/// leak a secret (a proxy's password) are refused as the command line is read: exit 2, one line, nothing fetched,
/// no manifest, the password never shown. Everything dialled is on 127.0.0.1.
@Suite("Hostile settings")
struct HostileSettingsTests: EndToEndSuite {
    let server: FixtureServer
    let work: TemporaryDirectory

    func expectRefusedBeforeFetching(_ result: CommandResult, naming option: String,
                                     sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(result.status == 2, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(!result.stderr.contains("\r"), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains("bad \(option) '"), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(try server.stats().total == 0, sourceLocation: sourceLocation)
    }

    @Test func aUserAgentOrHeaderWithControlCharactersIsRefused() throws {
        let url = server.url("/img/sample.jpg")
        for agent in ["evil\r\nX-Injected: 1", "evil\nX-Injected: 1", "a\u{1}b"] {
            let result = try Imgfetch.run([url, "--no-cache", "-o", work.file("a.jpg"), "--user-agent", agent])
            try expectRefusedBeforeFetching(result, naming: "--user-agent")
        }
        let header = try Imgfetch.run([url, "--no-cache", "-o", work.file("a.jpg"), "-H", "X-V: a\u{1}b"])
        try expectRefusedBeforeFetching(header, naming: "--header")
        #expect(header.stderr.contains("control characters are not allowed in a header"), "\(header.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.file("a.jpg")))
        // A tab is sent as it is.
        let tab = try Imgfetch.run([server.url("/headers"), "--no-cache", "-o", work.file("h.png"),
                                    "--user-agent", "ua/1\t(x)"])
        let sent = try #require(try server.recordedRequests().first)
        #expect(sent.header("User-Agent") == "ua/1\t(x)", "\(tab.stderr)")
    }

    @Test func aBadProxyIsAUsageErrorBeforeABatchStartsAndHidesItsPassword() throws {
        let list = work.file("list.txt"), manifest = work.file("m.jsonl")
        try Data((server.url("/img/sample.jpg") + "\n" + server.url("/img/rgba.png") + "\n").utf8)
            .write(to: URL(fileURLWithPath: list))
        for proxy in ["http://pu:pSECRET@127.0.0.1:abc", "http://pu:pSECRET@[::1", "http://pu:pSECRET@127.0.0.1:99999",
                      "gopher://pu:pSECRET@127.0.0.1:1"] {
            let result = try Imgfetch.run(["batch", list, "-O", work.file("out"), "--no-cache", "--manifest", manifest,
                                           "--json", "--proxy", proxy])
            try expectRefusedBeforeFetching(result, naming: "--proxy")
            #expect(!(result.stderr + result.stdoutText).contains("pSECRET"), "\(result.stderr)")
            #expect(result.stderr.contains("pu:***@"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: manifest))
        }
    }

    /// No proxy variable set, over whatever the test's own environment holds: each test sets the ones it names.
    static let noProxies = Dictionary(uniqueKeysWithValues: (proxyVariables + ["no_proxy", "NO_PROXY"]).map { ($0, "") })
    /// The variables libcurl may take a proxy from.
    static let proxyVariables = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]

    /// Malformed proxies, each with a password that must not be shown; nothing is dialled (none can be).
    static let malformedProxies = ["http://pu:pSECRET@[::1", "http://pu:pSECRET@127.0.0.1:99999", "http://pu:pSECRET@127.0.0.1:1 x",
                                   "http://pu:pSECRET@127.0.0.1:1\u{1}", "gopher://pu:pSECRET@127.0.0.1:1"]

    @Test func aBadProxyVariableIsAUsageErrorNamingItBeforeABatchStarts() throws {
        let list = work.file("list.txt"), manifest = work.file("m.jsonl")
        try Data((server.url("/img/sample.jpg") + "\n").utf8).write(to: URL(fileURLWithPath: list))
        for name in Self.proxyVariables {
            for proxy in Self.malformedProxies {
                let environment = Self.noProxies.merging([name: proxy]) { $1 }
                let result = try Imgfetch.runInProcess([server.url("/img/sample.jpg"), "--no-cache", "-o", work.file("a.jpg")],
                                                       environment: environment)
                try expectRefusedBeforeFetching(result, naming: "proxy in \(name)")
                #expect(!result.stderr.contains("pSECRET") && !result.stderr.contains("\u{1}"), "\(result.stderr)")
                #expect(result.stderr.hasPrefix("imgfetch: bad proxy in \(name) '"), "\(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: work.file("a.jpg")))
            }
        }
        // The binary, a batch: refused before it starts, no manifest; a list of hosts to reach directly still
        // leaves the proxy to the others, so the variable is judged.
        let environment = Self.noProxies.merging(["https_proxy": "http://pu:pSECRET@[::1", "no_proxy": "127.0.0.1"]) { $1 }
        let result = try Imgfetch.run(["batch", list, "-O", work.file("out"), "--no-cache", "--manifest", manifest, "--json"],
                                      environment: environment)
        try expectRefusedBeforeFetching(result, naming: "proxy in https_proxy")
        #expect(result.stderr == "imgfetch: bad proxy in https_proxy 'http://pu:***@[::1': an IPv6 address that is not closed\n")
        #expect(!result.stdoutText.contains("pSECRET"))
        #expect(!FileManager.default.fileExists(atPath: manifest))
        // A local file needs no proxy: it is converted whatever the variables hold.
        let local = try Imgfetch.runInProcess([Paths.images + "/sample.jpg", "--resize", "20x20", "-o", work.file("l.png")],
                                              environment: Self.noProxies.merging(["http_proxy": "http://[::1"]) { $1 })
        #expect(local.status == 0, "\(local.stderr)")
        #expect(FileManager.default.fileExists(atPath: work.file("l.png")))
    }

    /// A well-formed variable is used (the fixture server as the proxy, given the absolute URL of an address
    /// nothing listens on); a malformed one libcurl would not use, beside the scheme's own, is not judged; with
    /// `no_proxy` `*` no proxy is used, so none is judged.
    @Test func onlyTheProxyVariablesLibcurlWouldUseAreJudged() throws {
        let proxy = "http://127.0.0.1:\(server.port)", bad = "http://pu:pSECRET@[::1"
        let used = Self.noProxies.merging(["http_proxy": proxy, "https_proxy": proxy, "HTTPS_PROXY": bad,
                                           "all_proxy": bad, "ALL_PROXY": bad]) { $1 }
        let proxied = try Imgfetch.run(["http://127.0.0.5:9/img/sample.jpg", "--no-cache", "-o", work.file("a.jpg")],
                                       environment: used)
        #expect(proxied.status == 0, "\(proxied.stderr)")
        #expect(try server.recordedRequests().map(\.path) == ["http://127.0.0.5:9/img/sample.jpg"])
        // https has no variable of its own: all_proxy is its proxy, and judged.
        let fallback = try Imgfetch.runInProcess([server.url("/img/sample.jpg"), "--no-cache", "-o", work.file("b.jpg")],
                                                 environment: used.merging(["https_proxy": "", "HTTPS_PROXY": ""]) { $1 })
        #expect(fallback.status == 2 && fallback.stderr.contains("bad proxy in all_proxy 'http://pu:***@[::1'"), "\(fallback.stderr)")
        for noProxy in [["no_proxy": "*"], ["NO_PROXY": "*"]] {
            var direct = Self.noProxies.merging(noProxy) { $1 }
            for name in Self.proxyVariables { direct[name] = bad }
            let result = try Imgfetch.run([server.url("/img/sample.jpg"), "--no-cache", "-o", work.file("c.jpg")],
                                          environment: direct)
            #expect(result.status == 0, "\(noProxy): \(result.stderr)")
        }
        #expect(try server.recordedRequests().map(\.path) == ["http://127.0.0.5:9/img/sample.jpg", "/img/sample.jpg", "/img/sample.jpg"])
    }
}

import Foundation
import Testing
@testable import ImgCore

/// Values that would change the request itself (a User-Agent that adds a header, a control byte in a header) or
/// leak a secret (a proxy's password) are refused as the command line is read: exit 2, one line, nothing fetched,
/// no manifest, the password never shown. Everything dialled is on 127.0.0.1.
@Suite("Hostile settings")
struct HostileSettingsTests {
    let work: TemporaryDirectory
    let server: FixtureServer

    init() throws {
        work = try TemporaryDirectory()
        server = try FixtureServer()
    }

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
}

import Foundation
import Testing
@testable import ImgCore

/// Option values that would do something other than what they say: each is refused as a usage error (exit 2, one
/// line naming the option, nothing fetched) or made to mean what it says.
@Suite("Option values refused or made exact", .serialized)
struct OptionCheckTests: EndToEndSuite {
    let server: FixtureServer
    let work: TemporaryDirectory

    func expectUsageError(_ result: CommandResult, naming options: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 2, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        for option in options {
            #expect(result.stderr.contains(option), "\(result.stderr)", sourceLocation: sourceLocation)
        }
    }

    @Test func onlyFromCacheWithAnOptionThatContradictsItIsAUsageError() throws {
        let url = server.url("/img/sample.jpg")
        #expect(try fetch([url, "-o", work.file("a.jpg")]).status == 0)
        for other in ["--force-refresh", "--no-cache", "--memory-only"] {
            expectUsageError(try fetch([url, "--only-from-cache", other, "-o", work.file("b.jpg")]),
                             naming: ["--only-from-cache", other])
            let list = work.file("list.txt")
            try Data((url + "\n").utf8).write(to: URL(fileURLWithPath: list))
            expectUsageError(try fetch(["batch", list, "-O", work.file("out"), other, "--only-from-cache"]),
                             naming: ["--only-from-cache", other])
        }
        #expect(!FileManager.default.fileExists(atPath: work.file("b.jpg")))
        #expect(try server.requests("/img/sample.jpg") == 1)
        let cached = try fetch([url, "--only-from-cache", "-o", work.file("c.jpg")])
        #expect(cached.status == 0, "\(cached.stderr)")
    }

    /// `--upscale` where it would do nothing (no `--resize`, or one that enlarges as it says) is refused: it was
    /// accepted and dropped without a word.
    @Test func upscaleThatWouldDoNothingIsAUsageError() throws {
        let url = server.url("/img/sample.jpg")
        let cases: [([String], String)] = [
            ([], "--upscale needs --resize (it would do nothing)"),
            (["--resize", "64x64:fill"], "--resize 64x64:fill: 'fill' enlarges as it needs: upscale applies to fit only"),
            (["--resize", "50%"], "upscale would do nothing"),
            (["-p", "resize(64x64)"], "--upscale needs --resize"),
        ]
        for (extra, message) in cases {
            let result = try fetch([url, "--upscale", "-o", work.file("u.png")] + extra)
            expectUsageError(result, naming: [message])
        }
        #expect(try server.requests("/img/sample.jpg") == 0 && !FileManager.default.fileExists(atPath: work.file("u.png")))
        #expect(try fetch([url, "--upscale", "--resize", "900x", "-o", work.file("u.png")]).status == 0)
    }

    @Test func aTimeoutUnderAMillisecondStillTimesOut() throws {
        let started = Date()
        let result = try fetch([server.url("/delay/60/sample.jpg"), "--timeout", "0.0001", "--retry", "0", "-o", work.file("a.jpg")])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("timed out"), "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 30, "a 0.0001 s timeout waited for the 60 s delay")
        #expect(NetworkOptions.curlMilliseconds(0.0001) == 1)
        #expect(NetworkOptions.curlMilliseconds(0.0015) == 2)
        #expect(NetworkOptions.curlMilliseconds(30) == 30_000)
    }

    @Test func secondsOutOfRangeAreRefusedWithTheRange() throws {
        for (option, value) in [("--timeout", "0"), ("--timeout", "86401"), ("--connect-timeout", "0.0"), ("--idle", "100000"),
                                ("--connect-timeout", "soon")] {
            let result = try fetch([server.url("/img/sample.jpg"), option, value, "-o", work.file("a.jpg")])
            expectUsageError(result, naming: [option, "86400"])
        }
        #expect(try fetch([server.url("/img/sample.jpg"), "--timeout", "86400", "-o", work.file("a.jpg")]).status == 0)
        // In range: refused only because nothing would read it here.
        let idle = try fetch([server.url("/img/sample.jpg"), "--idle", "0.5", "-o", work.file("b.jpg")])
        #expect(idle.status == 2 && idle.stderr.contains("--idle applies with --renderer auto"), "\(idle.stderr)")
    }

    /// A bad value from the environment is named as the variable it came from, not as an option never given.
    @Test func aBadVariableIsNamedAsTheVariable() throws {
        let sample = Paths.images + "/sample.jpg"
        for (variable, value) in [("IMGFETCH_RENDERER", "bogus"), ("IMGFETCH_RENDERER_IDLE", "abc")] {
            let result = try Imgfetch.run([sample, "-o", work.file("v.png"), "--no-cache"], environment: [variable: value])
            #expect(result.status == 2 && result.stderr.hasPrefix("imgfetch: bad \(variable) '\(value)'"), "\(result.stderr)")
        }
        let option = try Imgfetch.run([sample, "-o", work.file("v.png"), "--no-cache", "--idle", "0"],
                                      environment: ["IMGFETCH_RENDERER_IDLE": "abc"])
        #expect(option.status == 2 && option.stderr.contains("bad --idle '0'"), "\(option.stderr)")
    }

    @Test func anEmptyHeaderIsSent() throws {
        let url = server.url("/echo-header/X-Empty/sample.jpg")
        #expect(try fetch([url, "--no-cache", "-o", work.file("a.jpg")]).status == 4)
        let colon = try fetch([url, "--no-cache", "-H", "X-Empty:", "-o", work.file("b.jpg")])
        #expect(colon.status == 0, "\(colon.stderr)")
        let spaces = try fetch([url, "--no-cache", "-H", "X-Empty:   ", "-o", work.file("c.jpg")])
        #expect(spaces.status == 0, "\(spaces.stderr)")
        let semicolon = try fetch([url, "--no-cache", "-H", "X-Empty;", "-o", work.file("d.jpg")])
        #expect(semicolon.status == 0, "\(semicolon.stderr)")
        #expect(try RequestHeader.curlLine(parsing: "X-Empty:") == "X-Empty;")
        #expect(try RequestHeader.curlLine(parsing: "X-Token:  a b ") == "X-Token: a b")
    }

    @Test func headersWithLineBreaksOrNULAreRefused() throws {
        let url = server.url("/img/sample.jpg")
        for header in ["X-Inj: a\r\nX-Evil: 1", "X-Inj: a\nX-Evil: 1", "X-Inj: a\r", "X-\nInj: a", ": no name", "X-Inj;x"] {
            expectUsageError(try fetch([url, "-H", header, "-o", work.file("a.jpg")]), naming: ["--header"])
        }
        #expect(throws: ImgError.self) { try RequestHeader.curlLine(parsing: "X-Nul: a\0b") }
        #expect(try server.requests("/img/sample.jpg") == 0)
    }
}

import Foundation
import Testing

/// `--generate KIND` (hidden: what `make man` and the completions are made from) stands alone, as `--version` does.
@Suite("--generate alone", .serialized)
struct GenerateAloneTests: EndToEndSuite {
    let server: FixtureServer
    let work: TemporaryDirectory

    /// `--generate KIND` stands alone, as `--version` does: beside a command, an input or another option it is a
    /// usage error (one line, exit 2) and nothing runs; it replaced the command (`batch LIST -O DIR --generate
    /// man-options` printed the man text, exited 0 and ran no batch).
    @Test func generateBesideAnythingElseIsAUsageError() throws {
        let url = server.url("/img/sample.jpg")
        let list = work.file("list.txt")
        try Data((url + "\n").utf8).write(to: URL(fileURLWithPath: list))
        let cases: [([String], String)] = [
            (["batch", list, "-O", work.file("out"), "--generate", "man-options"], "takes no arguments; got 'batch'"),
            ([url, "--generate", "complete-bash"], "takes no arguments; got '\(url)'"),
            (["--generate", "man-options", "--", "x"], "takes no arguments; got 'x'"),
            (["--generate", "man-options", "-o", work.file("x.jpg")], "takes no option; got --output"),
            (["--generate", "man-options", "--cache-dir", work.file("cache")], "takes no option; got --cache-dir"),
        ]
        for (arguments, message) in cases {
            let result = try Imgfetch.run(arguments)
            #expect(result.status == 2 && result.stdout.isEmpty, "\(arguments): \(result.stderr)")
            #expect(result.stderr == "imgfetch: --generate \(message)\n", "\(arguments): \(result.stderr)")
        }
        #expect(try server.requests("/img/sample.jpg") == 0)
        for name in ["x.jpg", "out", "cache"] {
            #expect(!FileManager.default.fileExists(atPath: work.file(name)), "\(name) was created")
        }
        let alone = try Imgfetch.run(["--generate", "complete-bash"])
        #expect(alone.status == 0 && alone.stderr.isEmpty && alone.stdoutText.contains("complete -"), "\(alone.stderr)")
    }
}

import Foundation
import Testing

/// Values and combinations the command line refused wrongly, accepted silently, or refused in the wrong words:
/// each is now one clear line (exit 2), before anything is made.
@Suite("Command-line refusals worded and placed right")
struct CommandLineRefusalTests {
    let work: TemporaryDirectory

    init() throws {
        work = try TemporaryDirectory()
    }

    func run(_ arguments: [String]) throws -> CommandResult {
        try Imgfetch.runInProcess(arguments + ["--cache-dir", work.file("cache")])
    }

    /// `--rate` takes up to 1,000,000: the refusal of a larger one says so (it said "a number over 0", which it is).
    @Test func theRatesBoundIsSaid() throws {
        let list = work.file("list.txt")
        try Data("http://127.0.0.1:9/x.jpg\n".utf8).write(to: URL(fileURLWithPath: list))
        for rate in ["1000001", "0", "-1"] {
            let result = try run(["batch", list, "-O", work.file("out"), "--rate", rate])
            #expect(result.status == 2 && result.stderr.contains("over 0 and at most 1000000"), "\(rate): \(result.stderr)")
        }
        let help = try Imgfetch.runInProcess(["help", "batch"]).stdoutText
        #expect(help.contains("1000000"), "\(help)")
        #expect(!FileManager.default.fileExists(atPath: work.file("cache")))
    }

    /// `cache inspect --all --limit N`: one of them would be ignored (`--all` won silently).
    @Test func allAndLimitContradictEachOther() throws {
        let result = try run(["cache", "inspect", "--all", "--limit", "5"])
        #expect(result.status == 2 && result.stderr == "imgfetch: --all and --limit contradict each other: give one of them\n",
                "\(result.stderr)")
        #expect(try run(["cache", "inspect", "--all"]).status == 0)
        #expect(try run(["cache", "inspect", "--limit", "5"]).status == 0)
    }

    /// `--cacert DIR` was taken (a directory is "readable"): a bundle is a file.
    @Test func aDirectoryIsNoCABundle() throws {
        let result = try run(["info", "http://127.0.0.1:9/x.jpg", "--cacert", work.path])
        #expect(result.status == 2 && result.stderr.contains("--cacert \(work.path): it is a directory"), "\(result.stderr)")
        let missing = try run(["info", "http://127.0.0.1:9/x.jpg", "--cacert", work.file("none.pem")])
        #expect(missing.status == 2 && missing.stderr.contains("no such readable file"), "\(missing.stderr)")
    }

    /// `renderer` words its refusals as `cache` does: an unknown command by its name, extra words as extra words
    /// (both said "renderer needs one command").
    @Test func theRendererCommandsRefusalsNameWhatIsWrong() throws {
        let cases = [
            (["renderer", "bogus"], "unknown renderer command 'bogus' (serve, start, stop, status)"),
            (["renderer", "status", "extra"], "renderer status takes no arguments, got 'extra'"),
            (["renderer"], "renderer needs a command: serve, start, stop, status"),
            (["renderer", "stauts"], "unknown renderer command 'stauts'; did you mean 'status'?"),
        ]
        for (arguments, message) in cases {
            let result = try run(arguments)
            #expect(result.status == 2 && result.stderr == "imgfetch: \(message)\n", "\(arguments): \(result.stderr)")
        }
    }

    /// Blanks around a number, size or duration, or a `+` before it, are refused by every option's parser: `--ttl`,
    /// `--size-limit` and `--max-bytes` took `' 1h'`, `' 64M'`, `'64 M'` while `--timeout` and `--retry` refused
    /// `' 5'` (and took `+5`).
    @Test func blanksAndAPlusAroundANumberAreRefusedEverywhere() throws {
        let url = "http://127.0.0.1:9/x.jpg"
        let given = [("--ttl", " 1h"), ("--ttl", "1h "), ("--size-limit", " 64M"), ("--max-bytes", "64 M"),
                     ("--max-bytes", "+64M"), ("--timeout", " 5"), ("--timeout", "+5"), ("--retry", "+5"),
                     ("--retry", "5 "), ("--max-pixels", "+100"), ("--rate", " 2")]
        for (option, value) in given {
            let arguments = option == "--rate" ? ["prefetch", url] : [url, "-o", work.file("x.jpg")]
            let result = try run(arguments + [option, value])
            let named = result.stderr.contains("bad \(option) '\(value)'") || result.stderr.contains("'\(value)' in \(option)")
            #expect(result.status == 2 && named, "\(option) '\(value)': \(result.stderr)")
        }
        let variable = try Imgfetch.runInProcess([url, "-o", work.file("x.jpg"), "--cache-dir", work.file("cache")],
                                                 environment: ["IMGFETCH_TTL": " 1h"])
        #expect(variable.status == 2 && variable.stderr.contains("IMGFETCH_TTL"), "\(variable.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.file("cache")))
        let list = work.file("list.txt")
        try "http://127.0.0.1:9/a.jpg\n".write(toFile: list, atomically: true, encoding: .utf8)
        for shard in ["auto/+4", "auto/ 4", "+0/2"] {
            let result = try run(["batch", list, "-O", work.file("out"), "--shard", shard])
            #expect(result.status == 2 && result.stderr.contains("--shard"), "\(shard): \(result.stderr)")
        }
    }
}

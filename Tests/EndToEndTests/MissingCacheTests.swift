import Foundation
import Testing

/// A cache command pointed at a cache directory that does not exist (a mistyped `--cache-dir` in a cron line) has
/// nothing to do and exits 0, as before, but says so in one line on stderr (not with `-q`), and makes nothing there:
/// it reported 0 entries without a word.
@Suite("cache commands on a missing cache directory")
struct MissingCacheTests {
    static let commands: [[String]] = [
        ["inspect"], ["inspect", "http://127.0.0.1/a.png"], ["clean-expired"], ["prune", "--size-limit", "1G"],
        ["clear"], ["remove", "http://127.0.0.1/a.png"], ["verify"], ["clean-expired", "--dry-run"],
        ["prune", "--size-limit", "1G", "--dry-run"], ["clear", "--dry-run"], ["verify", "--repair"],
    ]

    @Test(arguments: commands)
    func aMissingCacheIsNothingToDoAndSaysSo(command: [String]) throws {
        let home = try TemporaryDirectory()
        let directory = home.file("imgfetc/cache")
        let arguments = ["cache"] + command + ["--cache-dir", directory]
        let text = try Imgfetch.run(arguments)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stderr == "imgfetch: no cache at \(directory): nothing to do\n", "\(text.stderr)")
        let json = try Imgfetch.run(arguments + ["--json"])
        #expect(json.status == 0 && json.stderr == text.stderr, "\(json.stderr)")
        #expect(try JSONSerialization.jsonObject(with: json.stdout) is [String: Any], "\(json.stdoutText)")
        let quiet = try Imgfetch.run(arguments + ["-q"])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty && quiet.stdout.isEmpty, "\(quiet.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.file("imgfetc")), "nothing is made there")
    }

    /// A command refused for its words or options says that alone: the note comes only once it has something to
    /// run.
    @Test func aRefusalComesAloneBeforeTheNote() throws {
        let home = try TemporaryDirectory()
        let refused = try Imgfetch.run(["cache", "prune", "--size-limit", "none", "--cache-dir", home.file("nowhere")])
        #expect(refused.status == 2 && refused.stderr.split(separator: "\n").count == 1
                && !refused.stderr.contains("no cache at"), "\(refused.stderr)")
    }
}

import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// The cache commands' exit codes and quiet output, where the cache's settings come from, and the automatic clean
/// a fetch does.
@Suite("cache settings, exit codes and auto clean")
struct CacheSettingsTests {
    @Test func settingsComeFromOptionThenEnvironmentThenTheDirectorysConfig() throws {
        let fixture = try CacheFixture(inProcess: true)
        let set = try fixture.run(["cache", "config", "size-limit=1K", "ttl=1h"])
        #expect(set.status == 0, "\(set.stderr)")
        let text = try String(contentsOfFile: fixture.cache + "/config", encoding: .utf8)
        #expect(text.contains("size-limit=1K") && text.contains("ttl=1h"))
        #expect(FileState.listing(fixture.cache + "/tmp").isEmpty, "written through a temporary that was renamed")

        func expirySpan(_ extra: [String], environment: [String: String] = [:]) throws -> Int64 {
            _ = try fixture.run(["cache", "clear", "-q"])
            let output = fixture.home.file("o.png")
            // The directory's 1K limit would keep the entries out (larger than the limit allows one entry).
            let result = try fixture.run(["fetch", fixture.server.url("/img/rgba.png"), "-o", output, "--no-auto-clean",
                                          "--size-limit", "1M"] + extra, environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            let state = try #require(fixture.entries().first { $0.key.hasSuffix("/original") }?.value)
            return Int64(state.span.rounded())
        }
        #expect(try expirySpan([]) == 3600, "fetch takes the directory's ttl")
        #expect(try expirySpan([], environment: ["IMGFETCH_TTL": "2h"]) == 7200, "the environment beats the config")
        #expect(try expirySpan(["--ttl", "3h"], environment: ["IMGFETCH_TTL": "2h"]) == 10_800, "the option beats both")

        // prune needs no flag now; the environment and the option override the config.
        let pruned = try fixture.run(["cache", "prune"])
        #expect(pruned.status == 0 && pruned.stdoutText.hasPrefix("removed 2 entries"), "\(pruned.stdoutText) \(pruned.stderr)")
        let shown = try fixture.run(["cache", "config"], environment: ["IMGFETCH_SIZE_LIMIT": "5M"])
        #expect(shown.stdoutText.contains("size-limit 5.0 MiB (from the environment)"), "\(shown.stdoutText)")
        #expect(shown.stdoutText.contains("ttl        1h (from the directory's config)"), "\(shown.stdoutText)")
        let unset = try fixture.run(["cache", "config", "size-limit="])
        #expect(unset.stdoutText.contains("size-limit 1.0 GiB (default)"), "\(unset.stdoutText)")
        let off = try fixture.run(["cache", "config", "size-limit=none"])
        #expect(off.stdoutText.contains("size-limit none (from the directory's config)"), "\(off.stdoutText)")
    }

    @Test func fetchCleansOnItsOwnAtMostOnceAnHour() throws {
        let fixture = try CacheFixture(inProcess: true)
        try fixture.fetch("/img/sample.jpg", ["--ttl", "1s"])
        try fixture.passTime()
        try fixture.fetch("/img/rgba.png", autoClean: true) // first clean of this directory: due
        let marker = fixture.cache + "/last-clean"
        #expect(FileManager.default.fileExists(atPath: marker))
        #expect(try fixture.inspectJSON([fixture.server.url("/img/sample.jpg")])["entries"] as? Int == 0)

        try fixture.fetch("/img/cogs.gif", ["--ttl", "1s"])
        try fixture.passTime()
        try fixture.fetch("/img/rgba.png", autoClean: true) // cleaned less than an hour ago: not due
        #expect(try fixture.inspectJSON([fixture.server.url("/img/cogs.gif")])["entries"] as? Int == 2)

        var times = [EntryIO.timespecOf(Date().timeIntervalSince1970 - 7200), EntryIO.timespecOf(Date().timeIntervalSince1970 - 7200)]
        #expect(utimensat(AT_FDCWD, marker, &times, 0) == 0)
        try fixture.fetch("/img/rgba.png", ["--no-auto-clean"], autoClean: true)
        #expect(try fixture.inspectJSON([fixture.server.url("/img/cogs.gif")])["entries"] as? Int == 2, "--no-auto-clean")
        try fixture.fetch("/img/rgba.png", autoClean: true)
        #expect(try fixture.inspectJSON([fixture.server.url("/img/cogs.gif")])["entries"] as? Int == 0)
    }

    @Test func everyCommandsExitCodeAndQuietOutput() throws {
        let fixture = try CacheFixture(inProcess: true)
        try fixture.fetch("/img/sample.jpg")
        let url = fixture.server.url("/img/sample.jpg")
        let quietRuns: [[String]] = [
            ["cache", "inspect"], ["cache", "inspect", url], ["cache", "clean-expired"], ["cache", "prune", "--size-limit", "1G"],
            ["cache", "verify"], ["cache", "config"], ["cache", "clear", "--dry-run"], ["cache", "remove", url],
            ["cache", "config", "ttl=3d"], ["cache", "clear"],
        ]
        for arguments in quietRuns {
            let result = try fixture.run(["-q"] + arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty && result.stderr.isEmpty, "\(arguments): \(result.stdoutText) \(result.stderr)")
        }
        let usage: [([String], String)] = [
            (["cache"], "needs a command"), (["cache", "tidy"], "unknown cache command 'tidy'"),
            (["cache", "prune", "--size-limit", "none"], "--size-limit"), (["cache", "prune", "--size-limit", "12Q"], "12Q"),
            (["cache", "remove"], "one URL"), (["cache", "remove", "ftp://h/a.jpg"], "ftp"),
            (["cache", "clean-expired", "--temp-age", "soon"], "--temp-age"), (["cache", "config", "colour=red"], "colour"),
            (["cache", "config", "ttl=3w"], "3w"), (["cache", "inspect", "--limit", "-1"], "--limit"),
            (["cache", "clear", "extra"], "extra"),
        ]
        for (arguments, mention) in usage {
            let result = try fixture.run(arguments + ["-q"])
            #expect(result.status == 2, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(mention), "\(arguments): \(result.stderr)")
        }
        let noLimit = try fixture.run(["cache", "prune"], environment: ["IMGFETCH_SIZE_LIMIT": "none"])
        #expect(noLimit.stderr.contains("cache config size-limit="), "the message says how to set a limit")
        // An unsafe directory is refused first, with exit 7.
        chmod(fixture.cache, 0o777)
        let unsafe = try fixture.run(["cache", "inspect"])
        #expect(unsafe.status == 7 && unsafe.stderr.contains("writable"), "\(unsafe.stderr)")
        chmod(fixture.cache, 0o700)
        // A missing directory is an empty cache, and inspecting it creates nothing.
        let missing = try Imgfetch.runInProcess(["cache", "inspect", "--cache-dir", fixture.home.file("nowhere")])
        #expect(missing.status == 0 && missing.stdoutText.contains("entries        0"))
        #expect(!FileManager.default.fileExists(atPath: fixture.home.file("nowhere")))
    }

    /// A bad setting is refused before the directory is made: `cache config` made a whole cache (its tag and
    /// folders) and then refused the setting.
    @Test func aBadSettingMakesNoDirectory() throws {
        let home = try TemporaryDirectory()
        for assignments in [["ttl=bogus"], ["size-limit=1M", "ttl=bad"], ["foo=bar"], ["size-limit"]] {
            let directory = home.file("cache")
            let result = try Imgfetch.runInProcess(["cache", "config"] + assignments + ["--cache-dir", directory])
            #expect(result.status == 2 && result.stderr.split(separator: "\n").count == 1, "\(assignments): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory), "\(assignments)")
        }
    }

    /// A bad option or variable beside `cache config`'s assignments is refused before anything is written: the
    /// assignments were stored (the directory made, its config written) and then the command refused. A bad value
    /// in the directory's own config is no refusal there: an assignment is how it is mended.
    @Test func aBadOptionOrVariableWritesNoConfig() throws {
        let home = try TemporaryDirectory()
        let directory = home.file("cache")
        let cases: [([String], [String: String])] = [
            (["--ttl", "bogus"], [:]), (["--size-limit", "bogus"], [:]),
            ([], ["IMGFETCH_TTL": "bogus"]), ([], ["IMGFETCH_SIZE_LIMIT": "bogus"]), ([], ["IMGFETCH_FAIL_ON": "bogus"]),
        ]
        for (options, environment) in cases {
            let result = try Imgfetch.runInProcess(["cache", "config", "size-limit=5M"] + options
                                                   + ["--cache-dir", directory], environment: environment)
            #expect(result.status == 2 && result.stderr.split(separator: "\n").count == 1,
                    "\(options) \(environment): \(result.stderr)")
            #expect(result.stderr.contains("bogus"), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory), "\(options) \(environment)")
        }
        #expect(try Imgfetch.runInProcess(["cache", "config", "ttl=1h", "--cache-dir", directory]).status == 0)
        try "ttl=bogus\n".write(toFile: directory + "/config", atomically: true, encoding: .utf8)
        let refused = try Imgfetch.runInProcess(["cache", "config", "size-limit=5M", "--ttl", "bogus",
                                                 "--cache-dir", directory])
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(try String(contentsOfFile: directory + "/config", encoding: .utf8) == "ttl=bogus\n")
        let mended = try Imgfetch.runInProcess(["cache", "config", "ttl=2h", "--cache-dir", directory])
        #expect(mended.status == 0, "\(mended.stderr)")
        #expect(mended.stdoutText.contains("ttl        2h (from the directory's config)"), "\(mended.stdoutText)")
    }

    /// The config as `cache config`'s assignments leave it is judged before it is written: another bad value or an
    /// unknown key in the directory's config refused the command (exit 2) after the assignment had been written, and
    /// an unknown key refused every `cache config`, its removal too, so that only an editor could mend the file.
    @Test func aConfigStillBadAfterTheAssignmentsIsRefusedUnwrittenAndOneThatMendsItIsTaken() throws {
        let home = try TemporaryDirectory()
        let directory = home.file("cache")
        #expect(try Imgfetch.runInProcess(["cache", "config", "ttl=1h", "--cache-dir", directory]).status == 0)
        let config = directory + "/config"
        func run(_ assignments: [String]) throws -> CommandResult {
            try Imgfetch.runInProcess(["cache", "config"] + assignments + ["--cache-dir", directory])
        }
        func expectRefused(_ assignments: [String], mentioning words: [String], stored: String) throws {
            try stored.write(toFile: config, atomically: true, encoding: .utf8)
            let refused = try run(assignments)
            #expect(refused.status == 2 && refused.stdout.isEmpty, "\(assignments): \(refused.stdoutText)")
            #expect(refused.stderr.split(separator: "\n").count == 1 && words.allSatisfy(refused.stderr.contains),
                    "\(assignments): \(refused.stderr)")
            #expect(try String(contentsOfFile: config, encoding: .utf8) == stored, "\(assignments): nothing written")
        }
        let badLimit = "size-limit=abc\nttl=1h\n"
        try expectRefused(["ttl=2h"], mentioning: ["'abc'", "cache config size-limit="], stored: badLimit)
        try expectRefused([], mentioning: ["'abc'", "cache config size-limit="], stored: badLimit)
        let mended = try run(["size-limit=2G", "ttl=2h"])
        #expect(mended.status == 0, "\(mended.stderr)")
        #expect(try String(contentsOfFile: config, encoding: .utf8).hasSuffix("size-limit=2G\nttl=2h\n"))
        // An unknown key: named with its removal, which is taken; removing one the file lacks stays unknown.
        let unknown = "foo=1\nttl=1h\n"
        try expectRefused(["ttl=2h"], mentioning: ["unknown setting 'foo'", "cache config foo=default"], stored: unknown)
        try expectRefused(["bar=default"], mentioning: ["unknown setting 'bar'"], stored: unknown)
        for removal in ["foo=default", "foo="] {
            try unknown.write(toFile: config, atomically: true, encoding: .utf8)
            let removed = try run([removal, "size-limit=default"])
            #expect(removed.status == 0 && removed.stdoutText.contains("ttl        1h (from the directory's config)"),
                    "\(removal): \(removed.stderr)")
            #expect(try String(contentsOfFile: config, encoding: .utf8).hasSuffix("\nttl=1h\n"))
            #expect(try run([]).status == 0)
        }
        // A line with no `=` can't be named by an assignment: it says so, and nothing is written.
        try expectRefused(["ttl=2h"], mentioning: ["line 1", "'junk'", "edit or delete"], stored: "junk\nttl=1h\n")
    }
}

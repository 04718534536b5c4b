import Foundation
import Testing
@testable import ImgCore

/// `--fail-on LEVEL`, `IMGFETCH_FAIL_ON` and `cache config fail-on=` (issue #13), end to end.
@Suite("--fail-on", .serialized)
struct FailOnTests {
    let work: TemporaryDirectory
    var cache: String { work.file("cache") }

    init() throws {
        work = try TemporaryDirectory()
    }

    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> CommandResult {
        try Imgfetch.runInProcess(arguments + ["--cache-dir", cache], environment: environment)
    }

    struct Record: Decodable {
        var status: String
        var source: String?
        var damaged: Bool?
        var damage: String?
    }

    func record(_ result: CommandResult) throws -> Record {
        try JSONDecoder().decode(Record.self, from: result.stdout)
    }

    /// The first half of the test image `name`, written as `cut.EXT` in the work directory: its path.
    func truncatedSample(_ name: String) throws -> String {
        let cut = work.file("cut." + (name as NSString).pathExtension)
        let whole = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/" + name))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: cut))
        return cut
    }

    @Test func aDamagedResultIsMarkedAndCachedUnderItsOwnKey() throws {
        let cut = try truncatedSample("sample.jpg")
        let output = work.file("out.png")

        let refused = try run([cut, "--resize", "64x", "-o", output])
        #expect(refused.status == 5 && refused.stderr.contains("truncated: pixel data ends at row"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))

        let rescued = try run([cut, "--resize", "64x", "-o", output, "--fail-on", "none", "--json"])
        #expect(rescued.status == 0, "\(rescued.stderr)")
        let made = try record(rescued)
        #expect(made.damaged == true && made.damage?.hasPrefix("truncated: pixel data ends at row") == true)
        let verbose = try run([cut, "--resize", "64x", "-o", output, "--fail-on", "none", "-v"])
        #expect(verbose.stderr.contains("fail-on=none") && verbose.stderr.contains("damaged: truncated"), "\(verbose.stderr)")
        #expect(verbose.stderr.contains("disk,"), "served from the damaged variant's own entry: \(verbose.stderr)")

        // The damaged result is never served at the default level.
        try? FileManager.default.removeItem(atPath: output)
        let again = try run([cut, "--resize", "64x", "-o", output])
        #expect(again.status == 5)
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func aDamagedSourcePassedThroughIsMarkedAndNeverServedAtTheDefaultLevel() throws {
        let cut = try truncatedSample("sample.jpg")
        let output = work.file("out.jpg")

        // No processing: the source's own bytes are the output.
        let rescued = try run([cut, "-o", output, "--fail-on", "none", "--json"])
        #expect(rescued.status == 0, "\(rescued.stderr)")
        let made = try record(rescued)
        #expect(made.damaged == true && made.damage?.hasPrefix("truncated: pixel data ends at row") == true, "\(rescued.stdout)")

        try? FileManager.default.removeItem(atPath: output)
        let again = try run([cut, "-o", output])
        #expect(again.status == 5, "a cached damaged pass-through was served at the default level: \(again.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test func aWholeInputSharesItsVariantAcrossLevels() throws {
        let output = work.file("out.png")
        let first = try run([Paths.images + "/sample.jpg", "--resize", "64x", "-o", output, "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let firstRecord = try record(first)
        #expect(firstRecord.damaged == nil)
        // A stricter level checks it again once (from the file: a local original is not cached); the result checked
        // strictest then serves every level.
        for (level, source) in [("none", "disk"), ("error", "local"), ("warning", "local"),
                                ("none", "disk"), ("truncated", "disk"), ("error", "disk"), ("warning", "disk")] {
            let later = try run([Paths.images + "/sample.jpg", "--resize", "64x", "-o", output, "--json", "--fail-on", level])
            #expect(try record(later).source == source, "--fail-on \(level): \(later.stdoutText)")
        }
    }

    /// A cached result is served only to a request at most as strict as the level it was checked at: a stricter
    /// request checks again (from the original: a cached one for a URL, no download) and is refused when that level
    /// refuses.
    @Test func aStricterLevelIsNotServedAResultCheckedLess() throws {
        // A bad checksum on an ancillary chunk (pHYs) is a warning: let through below --fail-on warning.
        let warned = work.file("warned.png")
        let interlaced = try FixtureBytes.image("generated/interlaced.png")
        try FixtureBytes.png(interlaced, changing: "pHYs") { $0[$0.count - 1] ^= 0xFF }.write(to: URL(fileURLWithPath: warned))
        let output = work.file("out.png")
        let made = try run([warned, "--resize", "32x", "-o", output])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try run([warned, "--resize", "32x", "-o", output, "--json", "--fail-on", "error"]).status == 0)

        try? FileManager.default.removeItem(atPath: output)
        let strict = try run([warned, "--resize", "32x", "-o", output, "--fail-on", "warning"])
        #expect(strict.status == 5 && strict.stderr.contains("pHYs chunk fails its checksum"), "\(strict.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        // The result checked at the default level still serves the default level.
        let again = try run([warned, "--resize", "32x", "-o", output, "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try record(again).source == "disk", "\(again.stdoutText)")
    }

    @Test func theLevelComesFromOptionEnvironmentOrConfig() throws {
        let cut = try truncatedSample("sample.png")
        let output = work.file("out.png")
        #expect(try run([cut, "-o", output, "--no-cache"]).status == 5)
        #expect(try run([cut, "-o", output, "--no-cache"], environment: ["IMGFETCH_FAIL_ON": "none"]).status == 0)
        #expect(try run(["cache", "config", "fail-on=none"]).status == 0)
        #expect(try run([cut, "-o", output, "--no-cache"]).status == 0)
        #expect(try run([cut, "-o", output, "--no-cache", "--fail-on", "truncated"]).status == 5)
        let shown = try run(["cache", "config"])
        #expect(shown.stdoutText.contains("fail-on    none (from"), "\(shown.stdoutText)")
        for bad in [["--fail-on", "sometimes"], ["cache", "config", "fail-on=sometimes"]] {
            let result = try run(bad[0] == "cache" ? bad : [cut, "-o", output] + bad)
            #expect(result.status == 2 && result.stderr.contains("none, truncated, error or warning"), "\(result.stderr)")
        }
    }

    /// info decodes with `--facts`: there it takes the level as fetch does (option, then variable, then config);
    /// it refused `--fail-on` while taking `IMGFETCH_FAIL_ON`. Without `--facts` the option is refused as
    /// `--max-pixels` is, and the variable is not read.
    @Test func infoTakesTheLevelWithFacts() throws {
        let cut = try truncatedSample("sample.png")
        #expect(try run(["info", cut, "--facts"]).status == 5)
        let given = try run(["info", cut, "--facts", "--fail-on", "none"])
        #expect(given.status == 0, "\(given.stderr)")
        #expect(try run(["info", cut, "--facts"], environment: ["IMGFETCH_FAIL_ON": "none"]).status == 0)
        let stricter = try run(["info", cut, "--facts", "--fail-on", "truncated"], environment: ["IMGFETCH_FAIL_ON": "none"])
        #expect(stricter.status == 5, "the option beats the variable: \(stricter.stderr)")
        let alone = try run(["info", cut, "--fail-on", "none"])
        #expect(alone.status == 2 && alone.stderr.contains("--fail-on applies to info only with --facts"), "\(alone.stderr)")
        let unread = try run(["info", cut], environment: ["IMGFETCH_FAIL_ON": "bogus"])
        #expect(unread.status == 0, "\(unread.stderr)")
        let judged = try run(["info", cut, "--facts"], environment: ["IMGFETCH_FAIL_ON": "bogus"])
        #expect(judged.status == 2 && judged.stderr.contains("IMGFETCH_FAIL_ON"), "\(judged.stderr)")
    }
}

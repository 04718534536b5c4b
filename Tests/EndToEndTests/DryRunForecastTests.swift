import Foundation
import Testing
@testable import ImgCore

/// A dry run says what the run does: what stands in the way of a removal (a directory holding files at an entry's
/// name, a file of another name in a removal folder) is named as not removed by both, and counted by neither.
@Suite("Dry runs forecast their runs")
struct DryRunForecastTests {
    private func json(_ result: CommandResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stdoutText)")
    }

    /// The same cache twice: an original, and a directory holding a file at one of its variants' names.
    private func blockedCache() throws -> (fixture: CacheFixture, url: String) {
        let fixture = try CacheFixture()
        let url = fixture.server.url("/img/rgba.png")
        #expect(try fixture.fetch("/img/rgba.png").status == 0)
        let original = try #require(fixture.entries().keys.first { $0.hasSuffix("/original") })
        let variant = fixture.cache + "/entries/" + (original as NSString).deletingLastPathComponent + "/"
            + String(repeating: "c", count: 64) + ".variant"
        try FileManager.default.createDirectory(atPath: variant, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: variant + "/keep"))
        return (fixture, url)
    }

    @Test(arguments: ["clear", "remove"])
    func aClearOrRemoveDryRunCountsWhatTheRunRemoves(command: String) throws {
        let (fixture, url) = try blockedCache()
        let arguments = ["cache", command] + (command == "remove" ? [url] : []) + ["--json"]
        let dry = try fixture.run(arguments + ["--dry-run"])
        #expect(dry.status == 0 && dry.stderr.contains("warning: would not remove ") && dry.stderr.contains("not empty"),
                "\(dry.stderr)")
        let run = try fixture.run(arguments)
        #expect(run.status == 7 && run.stderr.contains("warning: could not remove "), "\(run.stderr)")
        let (forecast, done) = (try json(dry), try json(run))
        // The original and its variant go; the directory stays.
        #expect(forecast["entries"] as? Int == 2 && done["entries"] as? Int == 2, "\(forecast) \(done)")
        #expect(forecast["bytes"] as? Int == done["bytes"] as? Int)
        #expect((forecast["failed"] as? [Any])?.count == 1 && (done["failed"] as? [Any])?.count == 1)
        // Once they are gone, what stands in the way still would be.
        let text = try fixture.run(["cache", command] + (command == "remove" ? [url] : []) + ["--dry-run"])
        #expect(text.stdoutText.contains("would remove 0 entries, 0 B; 1 would not be removed"), "\(text.stdoutText)")
    }

    /// An entry folder the run can't write (mounted read-only here: root too gets EROFS) keeps its entries: the dry
    /// run names them as not removed, as the run does, and counts only the others.
    @Test(.enabled(if: geteuid() == 0, "mounts a folder read-only")) func aDryRunNamesWhatAReadOnlyFolderKeeps() throws {
        let (fixture, _) = try blockedCache()
        #expect(try fixture.fetch("/img/sample.jpg").status == 0)
        let original = try #require(fixture.entries().keys.first { $0.hasSuffix("/original") && !$0.contains("cccc") })
        let folder = fixture.cache + "/entries/" + (original as NSString).deletingLastPathComponent
        let script = "mount --bind \"$0\" \"$0\" && mount -o remount,ro,bind \"$0\" || exit 99; "
            + "\"$1\" cache clear --dry-run --json --cache-dir \"$2\"; echo; \"$1\" cache clear --json --cache-dir \"$2\""
        let run = try Imgfetch.run([], program: "/usr/bin/unshare",
                                   prefix: ["-m", "sh", "-c", script, folder, Paths.binary, fixture.cache])
        let reports = try run.stdoutText.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(reports.count == 2, "\(run.stdoutText) \(run.stderr)")
        guard reports.count == 2 else { return }
        let (forecast, done) = (reports[0], reports[1])
        #expect(forecast["entries"] as? Int == done["entries"] as? Int && forecast["bytes"] as? Int == done["bytes"] as? Int,
                "\(forecast) \(done)")
        #expect((forecast["failed"] as? [Any])?.count == (done["failed"] as? [Any])?.count, "\(forecast) \(done)")
        #expect(((done["failed"] as? [Any])?.count ?? 0) >= 2, "the read-only folder's entries and the directory")
    }

    /// A removal folder holding a file of another name keeps it and stays: not a temporary removed, though the
    /// entries in it go (their bytes count), in the dry run as in the run.
    @Test func aCleanDryRunCountsARemovalFolderOnlyWhenTheRunEmptiesIt() throws {
        let fixture = try CacheFixture()
        let ended = try Imgfetch.endedProcessID()
        let kept = fixture.cache + "/tmp/\(ended)-1.removing", emptied = fixture.cache + "/tmp/\(ended)-2.removing"
        for folder in [kept, emptied] {
            let entry = folder + "/ab/" + String(repeating: "d", count: 64)
            try FileManager.default.createDirectory(atPath: entry, withIntermediateDirectories: true)
            try Data(count: 100).write(to: URL(fileURLWithPath: entry + "/original"))
        }
        try Data("notes".utf8).write(to: URL(fileURLWithPath: kept + "/notes.txt"))
        let arguments = ["cache", "clean-expired", "--temp-age", "0", "--json"]
        let (forecast, done) = (try json(try fixture.run(arguments + ["--dry-run"])), try json(try fixture.run(arguments)))
        #expect(forecast["temporaries"] as? Int == 1 && done["temporaries"] as? Int == 1, "\(forecast) \(done)")
        #expect(forecast["temporaryBytes"] as? Int == 200 && done["temporaryBytes"] as? Int == 200, "\(forecast) \(done)")
        #expect(FileManager.default.fileExists(atPath: kept + "/notes.txt") && !FileManager.default.fileExists(atPath: emptied))
        // The folder that stays is named, as what could not be removed is (it was left without a word).
        for report in [forecast, done] {
            let failed = (report["failed"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
            #expect(failed.count == 1 && failed.allSatisfy { $0.hasSuffix("/tmp/\(ended)-1.removing") }, "\(report)")
        }
    }
}

import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// A WebDataset batch whose folder fills up in its one tar: the tar is given up with its samples and the other lines it
/// counted (a failed one among them: no stats file counted it after, and `--retry-failed` carried it as done), no line
/// starts after, and every count (the summary line, the manifest's records and summary) says what is on disk.
@Suite("a full folder and the counts of a WebDataset batch")
struct WebDatasetFullDiskTests {
    /// The run's stderr, the manifest's records and what its folder held after it (in the mount namespace of the
    /// command's own): each tar with its members, and every file.
    private struct Outcome {
        var result: CommandResult
        var records: [[String: Any]]
        /// The `--json` records on stdout.
        var printed: [[String: Any]] = []
        var members: [String: [String]] = [:]
        var files: [String] = []
    }

    /// `batch` of 20 photos (23 KB each), the second line a 404, into a 160 KiB tmpfs, all in one tar of up to 100
    /// samples, 4 at once.
    private func runIntoFullFolder(json: Bool = false) throws -> Outcome {
        let fixture = try BatchFixture(count: 20)
        var lines = (1...20).map { fixture.server.url("/img/img\($0).jpg") }
        lines.insert(fixture.server.url("/status/404/gone.jpg"), at: 1)
        let list = try fixture.list(lines)
        let out = fixture.output, manifest = fixture.root.file("m.jsonl")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let script = "mount -t tmpfs -o size=160k,mode=700 tmpfs \"$0\" || exit 99; \"$@\"; status=$?; "
            + "for t in \"$0\"/*.tar; do [ -e \"$t\" ] || continue; tar -tf \"$t\" | sed \"s|^|member $(basename \"$t\") |\"; "
            + "done; ls -A \"$0\" | sed 's/^/file /'; exit $status"
        let namespace = geteuid() == 0 ? "-m" : "-rm"
        let result = try Imgfetch.run(["batch", list, "-O", out, "--output-format", "webdataset", "--samples-per-shard",
                                       "100", "-j", "4", "--retry", "0", "--manifest", manifest, "--cache-dir", fixture.cache,
                                       "--no-auto-clean", "--no-progress"] + (json ? ["--json"] : []),
                                      program: "/usr/bin/unshare", prefix: [namespace, "sh", "-c", script, out, Paths.binary])
        var outcome = Outcome(result: result, records: try JSONLines.objects(inFile: manifest))
        for line in result.stdoutText.split(separator: "\n") {
            let words = line.split(separator: " ").map(String.init)
            if words.first == "member", words.count == 3 { outcome.members[words[1], default: []].append(words[2]) }
            if words.first == "file", words.count == 2 { outcome.files.append(words[1]) }
            if line.hasPrefix("{"), let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] {
                outcome.printed.append(object)
            }
        }
        withExtendedLifetime(fixture) {}
        return outcome
    }

    @Test func theTarGivenUpTakesItsLinesWithItAndTheCountsSayWhatIsOnDisk() throws {
        let outcome = try runIntoFullFolder()
        let stderr = outcome.result.stderr
        #expect(outcome.result.status == 7, "\(stderr)")
        // Every tar given up is said, with the samples it loses.
        let givenUp = stderr.split(separator: "\n").filter { $0.contains("not kept") }
        #expect(!givenUp.isEmpty && givenUp.allSatisfy { $0.contains("not done") }, "\(stderr)")
        // On disk: the samples of the complete tars (their image and JSON).
        let keys = Set(outcome.members.values.joined().map { String($0.prefix(9)) })
        let tars = outcome.files.filter { $0.hasSuffix(".tar") }
        #expect(tars.sorted() == outcome.members.keys.sorted(), "\(outcome.files)")
        #expect(outcome.files.allSatisfy { $0.hasSuffix(".tar") || $0.hasSuffix("_stats.json") }, "\(outcome.files)")
        // A line's last record counts: ok exactly for the samples on disk, and `skipped` (not done) for the rest of
        // the lines started; those never started have no record, and the summary counts them as not reached.
        var last: [Int: [String: Any]] = [:]
        for record in outcome.records { if let line = record["line"] as? Int { last[line] = record } }
        let summary = try #require(outcome.records.last)
        let notReached = summary["not_reached"] as? Int ?? 0
        #expect(last.count + notReached == 21, "\(summary)")
        let ok = last.filter { $0.value["status"] as? String == "ok" }.keys.map { String(format: "%09d", $0) }
        #expect(Set(ok) == keys, "ok \(ok.sorted()), on disk \(keys.sorted())")
        #expect(last.values.allSatisfy { ["ok", "skipped"].contains($0["status"] as? String) }, "\(last)")
        #expect(summary["written"] as? Int == keys.count && summary["ok"] as? Int == keys.count, "\(summary)")
        #expect(summary["skipped"] as? Int == last.count - keys.count && summary["failed"] as? Int == 0, "\(summary)")
        #expect(last[2]?["status"] as? String == "skipped", "the failed line the tar counted: \(String(describing: last[2]))")
        let written = "\(keys.count) sample\(keys.count == 1 ? "" : "s") written into \(tars.count) tar\(tars.count == 1 ? "" : "s")"
        let reached = notReached > 0 ? ", \(notReached) not reached" : ""
        #expect(stderr.contains("\(keys.count) ok, 0 failed, \(last.count - keys.count) not done\(reached), \(written)"), "\(stderr)")
    }

    /// The `--json` records tell the same as the manifest: a line's last record counts, `ok` exactly for the samples on
    /// disk, and a withdrawn `ok` says so.
    @Test func theJSONRecordsWithdrawTheOKOfTheLinesTheTarTook() throws {
        let outcome = try runIntoFullFolder(json: true)
        #expect(outcome.result.status == 7, "\(outcome.result.stderr)")
        let keys = Set(outcome.members.values.joined().map { String($0.prefix(9)) })
        var last: [Int: [String: Any]] = [:]
        for record in outcome.printed { if let line = record["line"] as? Int { last[line] = record } }
        let ok = last.filter { $0.value["status"] as? String == "ok" }.keys.map { String(format: "%09d", $0) }
        #expect(Set(ok) == keys, "ok \(ok.sorted()), on disk \(keys.sorted())")
        let withdrawn = last.values.filter { $0["withdrawsOK"] as? Bool == true }
        #expect(!withdrawn.isEmpty, "\(outcome.printed)")
        #expect(withdrawn.allSatisfy { $0["status"] as? String == "skipped" && ($0["reason"] as? String)?.contains("not done") == true })
        let summary = try #require(outcome.printed.last)
        #expect(summary["summary"] as? Bool == true && summary["ok"] as? Int == keys.count
                && summary["written"] as? Int == keys.count, "\(summary)")
    }
}

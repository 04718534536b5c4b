import Foundation
import Testing
@testable import ImgCore

/// `--manifest`, `--resume`, `--retry-failed`.
@Suite("Batch manifest: records, resume, retry-failed, kill -9")
struct BatchManifestTests {
    static func inode(_ path: String) -> (ino_t, Int)? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return (info.st_ino, info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec)
    }

    /// A manifest that is the list itself (by any spelling of its path) is refused before anything is read, fetched
    /// or written: opening it would empty the list (it did: the list became the manifest's summary line).
    @Test func aManifestThatIsTheListIsRefused() throws {
        let fixture = try BatchFixture(count: 1)
        let list = try fixture.list([fixture.server.url("/img/img1.jpg")])
        let before = try String(contentsOfFile: list, encoding: .utf8)
        let spelled = fixture.root.path + "/./" + (list as NSString).lastPathComponent
        for arguments in [["batch", list, "-O", fixture.output, "--manifest", spelled], ["prefetch", "--from", list, "--manifest", list]] {
            let result = try Imgfetch.run(arguments + ["--cache-dir", fixture.cache])
            #expect(result.status == 2 && result.stderr.contains("is the list '\(list)': writing it would destroy the list"),
                    "\(arguments): \(result.stderr)")
        }
        #expect(try String(contentsOfFile: list, encoding: .utf8) == before)
        #expect(try fixture.server.requests("/img/img1.jpg") == 0)
        #expect(!FileManager.default.fileExists(atPath: fixture.output))
    }

    /// `-` is no standard stream for a manifest (it made a file named `-` in the working directory): refused.
    @Test func aDashManifestIsRefused() throws {
        let fixture = try BatchFixture(count: 1)
        let list = try fixture.list([fixture.server.url("/img/img1.jpg")])
        for option in ["--manifest", "--resume", "--retry-failed"] {
            let result = try Imgfetch.run(["batch", list, "-O", fixture.output, option, "-", "--cache-dir", fixture.cache])
            #expect(result.status == 2 && result.stderr.contains("\(option) - names a file, not standard output (records on "
                                                                  + "stdout: --json); for a file named '-', give ./-"),
                    "\(option): \(result.stderr)")
        }
        #expect(try fixture.server.requests("/img/img1.jpg") == 0)
        #expect(!FileManager.default.fileExists(atPath: fixture.output))
    }

    @Test func aManifestRecordsEveryLineAndEndsWithASummary() throws {
        let fixture = try BatchFixture(count: 3)
        let credentials = Data("alice:secret".utf8).base64EncodedString()
        let secret = fixture.server.url("/basic-auth/\(credentials)/img2.jpg").replacingOccurrences(of: "://", with: "://alice:secret@")
        let lines = ["# comment", fixture.server.url("/img/img1.jpg"), secret, fixture.server.url("/status/404"),
                     fixture.server.url("/status/503")]
        let manifest = fixture.root.file("m-{shard}.jsonl")
        let result = try fixture.batch(lines, ["--manifest", manifest, "--retry", "0", "--resize", "40x40:fill"])
        #expect(result.status == 1, "\(result.stderr)")
        let records = try JSONLines.objects(inFile: fixture.root.file("m-0-of-1.jsonl"))
        #expect(records.count == 5)
        #expect(records.map { $0["line"] as? Int } == [2, 3, 4, 5, nil])
        #expect(records.map { $0["status"] as? String } == ["ok", "ok", "failed", "failed", "error"])
        let first = records[0]
        #expect(first["url"] as? String == lines[1])
        let output = try #require((first["outputs"] as? [[String: Any]])?.first)
        let path = try #require(output["path"] as? String)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(output["sha256"] as? String == Digest.sha256(bytes) && output["bytes"] as? Int == bytes.count)
        #expect(output["width"] as? Int == 40 && output["height"] as? Int == 40 && output["source"] as? String == "network")
        let original = try #require(first["original"] as? [String: Any])
        #expect(original["width"] as? Int == 290 && original["height"] as? Int == 442)
        #expect(records[1]["url"] as? String == secret.replacingOccurrences(of: "alice:secret@", with: "alice:***@"))
        #expect(!(try String(contentsOfFile: fixture.root.file("m-0-of-1.jsonl"), encoding: .utf8)).contains("secret"))
        let notFound = try #require(records[2]["error"] as? [String: Any])
        #expect(notFound["class"] as? String == "http" && notFound["status"] as? Int == 404 && notFound["exit"] as? Int == 4)
        #expect(records[2]["exit_class"] as? String == "permanent" && records[3]["exit_class"] as? String == "transient")
        let summary = records[4]
        #expect(summary["summary"] as? Bool == true && summary["ok"] as? Int == 2 && summary["failed"] as? Int == 2
                && summary["failed_transient"] as? Int == 1 && summary["exit"] as? Int == 1)
        let sharded = try fixture.batch(lines, ["--manifest", manifest, "--retry", "0", "--shard", "1/3"])
        #expect(sharded.status != 2, "\(sharded.stderr)")
        #expect(FileManager.default.fileExists(atPath: fixture.root.file("m-1-of-3.jsonl")))
    }

    /// A record's `key` is the one asked (`--resume` compares it); with the original's format kept, the cache keeps
    /// the output under the format made, which `cache_key` gives as `-v` and `cache inspect` show it.
    @Test func aRecordGivesTheKeyTheCacheKeepsItsOutputUnder() throws {
        let fixture = try BatchFixture(count: 1)
        let url = fixture.server.url("/img/img1.jpg"), manifest = fixture.root.file("m.jsonl")
        let result = try fixture.batch([url], ["--manifest", manifest, "--resize", "40x", "-v"])
        #expect(result.status == 0, "\(result.stderr)")
        let output = try #require((try JSONLines.objects(inFile: manifest).first?["outputs"] as? [[String: Any]])?.first)
        let asked = try #require(output["key"] as? String), kept = try #require(output["cache_key"] as? String)
        #expect(asked.contains("@source(") && kept.contains("@jpeg(") && asked != kept, "\(asked), \(kept)")
        #expect(result.stderr.contains("variant key:  \(kept)"), "\(result.stderr)")
        let inspected = try Imgfetch.run(["cache", "inspect", url, "--json", "--cache-dir", fixture.cache])
        let items = try #require(try JSONSerialization.jsonObject(with: inspected.stdout) as? [String: Any])["items"]
        #expect((items as? [[String: Any]])?.contains { $0["key"] as? String == kept } == true, "\(inspected.stdoutText)")
        // Asked with the format made, the two are one: no cache_key.
        let jpeg = try fixture.batch([url], ["--manifest", manifest, "--resize", "40x", "--format", "jpeg"])
        let same = try #require((try JSONLines.objects(inFile: manifest).first?["outputs"] as? [[String: Any]])?.first)
        #expect(jpeg.status == 0 && same["key"] as? String == kept && same["cache_key"] == nil, "\(same)")
    }

    /// The --json summary of a resumed run counts the lines the manifest settled, as stderr and the manifest do
    /// (it said total 0, ok 0 of a shard whose lines were all done earlier).
    @Test func aResumedRunsJSONSummaryCountsTheLinesDoneEarlier() throws {
        let fixture = try BatchFixture(count: 3)
        let lines = (1...3).map { fixture.server.url("/img/img\($0).jpg") }, manifest = fixture.root.file("m.jsonl")
        #expect(try fixture.batch(lines, ["--manifest", manifest]).status == 0)
        let again = try fixture.batch(lines, ["--manifest", manifest, "--resume", manifest, "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        let summary = try #require(try BatchFixture.records(again).last)
        #expect(summary["summary"] as? Bool == true && summary["doneEarlier"] as? Int == 3 && summary["total"] as? Int == 0,
                "\(summary)")
    }

    /// A line over a limit the user set fails in the manifest with the message stderr prints for it, which names the
    /// option (`--max-bytes`), not with the library's own wording.
    @Test func aManifestErrorIsWordedAsStderrWordsIt() throws {
        let fixture = try BatchFixture(count: 1)
        let url = fixture.server.url("/img/img1.jpg")
        let manifest = fixture.root.file("m.jsonl")
        let result = try fixture.batch([url], ["--manifest", manifest, "--max-bytes", "1000", "--no-cache"])
        #expect(result.status == 1, "\(result.stderr)")
        let line = try #require(result.stderr.split(separator: "\n").first { $0.hasPrefix("imgfetch: \(url): ") })
        let stderrMessage = try #require(line.dropFirst("imgfetch: \(url): ".count).components(separatedBy: " [").first)
        let error = try #require(try JSONLines.objects(inFile: manifest).first?["error"] as? [String: Any])
        let message = try #require(error["message"] as? String)
        #expect(message.contains("--max-bytes"), "\(message)")
        #expect(message == stderrMessage, "stderr: \(line)")
    }

    /// `--resume` runs what is not done (a failure, an output since removed) and nothing else: no request, and the
    /// outputs of the lines done earlier are not touched. `--retry-failed` runs only the failures.
    @Test func resumeRunsOnlyWhatIsNotDoneAndRetryFailedOnlyFailures() throws {
        let fixture = try BatchFixture(count: 6)
        let lines = (1...5).map { fixture.server.url("/img/img\($0).jpg") } + [fixture.server.url("/flaky/1/img6.jpg")]
        let first = fixture.root.file("first.jsonl")
        let run = try fixture.batch(lines, ["--manifest", first, "--retry", "0", "--no-cache"])
        #expect(run.status == 75, "\(run.stderr)")
        #expect(fixture.outputs() == (1...5).map { "img\($0).jpg" })
        try FileManager.default.removeItem(atPath: fixture.output + "/img2.jpg")
        let before = (1...5).map { Self.inode(fixture.output + "/img\($0).jpg") }
        let retried = try fixture.batch(lines, ["--retry-failed", first, "--manifest", fixture.root.file("retried.jsonl"), "--no-cache"])
        #expect(retried.status == 0, "\(retried.stderr)")
        var stats = try fixture.server.stats()
        #expect(stats.paths["/img/img2.jpg"] == 1 && stats.paths["/flaky/1/img6.jpg"] == 2 && stats.total == 7)
        #expect(!FileManager.default.fileExists(atPath: fixture.output + "/img2.jpg"))
        let retriedRecords = try JSONLines.objects(inFile: fixture.root.file("retried.jsonl"))
        #expect(retriedRecords.dropLast().compactMap { $0["status"] as? String } == ["ok", "ok", "ok", "ok", "ok", "ok"])
        #expect(retriedRecords.filter { $0["reason"] as? String == "done earlier" }.count == 5)

        let resumed = try fixture.batch(lines, ["--resume", first, "--manifest", fixture.root.file("second.jsonl"), "--no-cache"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        stats = try fixture.server.stats()
        #expect(stats.paths["/img/img2.jpg"] == 2 && stats.paths["/flaky/1/img6.jpg"] == 3 && stats.total == 9)
        #expect(stats.paths["/img/img1.jpg"] == 1)
        let after = (1...5).map { Self.inode(fixture.output + "/img\($0).jpg") }
        for index in [0, 2, 3, 4] { #expect(before[index]! == after[index]!, "img\(index + 1).jpg was touched") }
        #expect(after[1] != nil)
        let second = try JSONLines.objects(inFile: fixture.root.file("second.jsonl"))
        #expect(second.count == 7 && second.dropLast().allSatisfy { $0["status"] as? String == "ok" })
        #expect(second.last?["done_earlier"] as? Int == 4)
        // Resuming the complete manifest runs nothing.
        let nothing = try fixture.batch(lines, ["--resume", fixture.root.file("second.jsonl"), "--no-cache"])
        let total = try fixture.server.stats().total
        #expect(nothing.status == 0 && total == 9, "\(nothing.stderr)")
        let contradiction = try fixture.batch(lines, ["--resume", first, "--retry-failed", first])
        #expect(contradiction.status == 2)
        let missing = try fixture.batch(lines, ["--retry-failed", fixture.root.file("none.jsonl")])
        #expect(missing.status == 2 && missing.stderr.contains("none.jsonl"), "\(missing.stderr)")
    }

    /// A line recorded `ok` whose name another line now takes (the failed line above it was mended into a URL of the
    /// same file name) runs again under `--retry-failed` at the name this run gives it: carried, it kept a record of a
    /// file the mended line wrote over.
    @Test func retryFailedRunsAgainALineWhoseNameAnotherLineNowTakes() throws {
        let fixture = try BatchFixture(count: 1)
        let good = fixture.server.url("/img/img1.jpg")
        let first = fixture.root.file("first.jsonl")
        let run = try fixture.batch([fixture.server.url("/status/404"), good], ["--manifest", first, "--retry", "0"])
        #expect(run.status == 1 && fixture.outputs() == ["img1.jpg"], "\(run.stderr)")
        try FileManager.default.copyItem(atPath: Paths.images + "/rotation/6.jpg", toPath: fixture.root.file("www/other.jpg"))
        let mended = fixture.server.url("/by-query/img1.jpg?img=other.jpg")
        let second = fixture.root.file("second.jsonl")
        let retried = try fixture.batch([mended, good], ["--retry-failed", first, "--manifest", second])
        #expect(retried.status == 0 && retried.stderr.contains("recorded at another path"), "\(retried.stderr)")
        #expect(fixture.outputs() == ["img1-1.jpg", "img1.jpg"])
        let records = try JSONLines.objects(inFile: second).dropLast()
        #expect(records.map { $0["reason"] as? String } == [nil, "done again: recorded at another path"])
        for record in records {
            let output = try #require((record["outputs"] as? [[String: Any]])?.first)
            let path = try #require(output["path"] as? String)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(output["sha256"] as? String == Digest.sha256(bytes), "\(record)")
        }
        // Into another folder, nothing recorded there can be written over: every line is carried.
        let elsewhere = try fixture.batch([mended, good], ["--retry-failed", second, "-O", fixture.root.file("other")])
        #expect(elsewhere.status == 0 && !elsewhere.stderr.contains("done again"), "\(elsewhere.stderr)")
        #expect(try fixture.server.stats().total == 3)
    }

    /// A FIFO given as the earlier manifest is refused at once: it waited for a writer for ever.
    @Test func aFIFOAsTheEarlierManifestIsRefused() throws {
        let fixture = try BatchFixture(count: 1)
        let fifo = fixture.root.file("m.jsonl")
        #expect(mkfifo(fifo, 0o600) == 0)
        for option in ["--resume", "--retry-failed"] {
            let result = try fixture.batch([fixture.server.url("/img/img1.jpg")], [option, fifo])
            #expect(result.status == 2 && result.stderr.contains("not a regular file"), "\(option): \(result.stderr)")
        }
        #expect(try fixture.server.stats().total == 0)
    }

    /// A line that failed for its form (no URL in its column, more columns than `URL [NAME]`) is recorded by its
    /// text, and `--retry-failed` runs it again like any failure rather than calling it not failed.
    @Test func retryFailedRunsAMalformedLineAgain() throws {
        let fixture = try BatchFixture(count: 1)
        let lines = [fixture.server.url("/img/img1.jpg"), "\(fixture.server.url("/img/img1.jpg")) a.jpg extra"]
        let first = fixture.root.file("first.jsonl")
        #expect(try fixture.batch(lines, ["--manifest", first]).status == 1)
        let again = fixture.root.file("again.jsonl")
        let retried = try fixture.batch(lines, ["--retry-failed", first, "--manifest", again])
        #expect(retried.status == 1 && retried.stderr.contains("0 ok, 1 failed, 1 done earlier"), "\(retried.stderr)")
        let records = try JSONLines.objects(inFile: again).dropLast()
        #expect(records.map { $0["status"] as? String } == ["ok", "failed"])
        #expect(records.last?["raw"] as? String == lines[1] && records.last?["url"] == nil)
    }

    /// A run killed with `kill -9` leaves whole records and at most a torn last line; resuming into the same
    /// manifest completes the list and appends to it.
    @Test func aManifestTornByKill9IsResumed() throws {
        let fixture = try BatchFixture(count: 12)
        let lines = (1...4).map { fixture.server.url("/img/img\($0).jpg") } + (5...12).map { fixture.server.url("/slow/img\($0).jpg?delay=0.2") }
        let list = try fixture.list(lines)
        let manifest = fixture.root.file("m.jsonl")
        let arguments = ["batch", list, "-O", fixture.output, "--no-cache", "-j", "2", "--manifest", manifest, "--resume", manifest]
        let process = try Imgfetch.launch(arguments)
        try fixture.server.waitForRequests("/slow/img6.jpg")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        // The last record as a write cut short would leave it.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: manifest))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"line\": 12, \"url\": \"\(lines[11])\", \"sta".utf8))
        try handle.close()
        let done = try JSONLines.objects(inFile: manifest, tolerant: true)
        #expect(done.count >= 4, "the first four lines were recorded before the kill")
        let before = try fixture.server.stats()
        let resumed = try Imgfetch.run(arguments + ["--no-progress"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let after = try fixture.server.stats()
        for index in 1...4 { #expect(after.paths["/img/img\(index).jpg"] == before.paths["/img/img\(index).jpg"]) }
        #expect(fixture.outputs().count == 12)
        let records = try JSONLines.objects(inFile: manifest, tolerant: true)
        let ok = Set(records.filter { $0["status"] as? String == "ok" }.compactMap { $0["line"] as? Int })
        #expect(ok == Set(1...12))
    }

    @Test func aSignalStillEndsTheManifestWithASummary() throws {
        let fixture = try BatchFixture(count: 6)
        let lines = (1...6).map { fixture.server.url("/slow/img\($0).jpg?delay=0.3") }
        let manifest = fixture.root.file("m.jsonl")
        let process = try Imgfetch.launch(["batch", try fixture.list(lines), "-O", fixture.output, "--no-cache", "-j", "2", "--manifest", manifest])
        try fixture.server.waitForRequests("/slow/img1.jpg")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 143)
        let records = try JSONLines.objects(inFile: manifest)
        let summary = try #require(records.last)
        #expect(summary["summary"] as? Bool == true && summary["status"] as? String == "interrupted" && summary["signal"] as? Int == 15)
        #expect(summary["exit"] as? Int == 143)
    }
}

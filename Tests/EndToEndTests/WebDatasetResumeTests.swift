import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// `batch --output-format webdataset` run again: a tar torn by `kill -9` or a signal, `--resume` and `--retry-failed`
/// (shard helpers from `WebDatasetTests`).
@Suite("WebDataset output: resume")
struct WebDatasetResumeTests {
    /// A run killed with `kill -9` in the middle of a tar leaves its complete tars and the torn one's temporary
    /// only; `--resume` keeps the complete tars (their lines not requested again), discards the temporary and does
    /// the torn tar's samples again: across all tars every ok line is exactly one sample.
    @Test func aTarTornByKill9IsDoneAgainOnResume() throws {
        let fixture = try BatchFixture(count: 12)
        let lines = (1...4).map { fixture.server.url("/img/img\($0).jpg") }
            + (5...12).map { fixture.server.url("/slow/img\($0).jpg?delay=0.04") }
        let list = try fixture.list(lines)
        let manifest = fixture.root.file("m.jsonl")
        let arguments = ["batch", list, "-O", fixture.output, "--no-cache", "-j", "2", "--output-format", "webdataset",
                         "--samples-per-shard", "3", "--manifest", manifest, "--resume", manifest]
        let process = try Imgfetch.launch(arguments)
        let deadline = Date().addingTimeInterval(30)
        while (try? JSONLines.objects(inFile: manifest, tolerant: true).count) ?? 0 < 4, Date() < deadline { usleep(10_000) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let left = fixture.outputs()
        #expect(left.filter { $0.hasSuffix(".tar") } == ["00000.tar"], "\(left)")
        #expect(left.contains { $0.hasPrefix(".imgfetch-") && $0.hasSuffix(".part") }, "the torn tar's temporary: \(left)")
        #expect(try WebDatasetTests.keys(fixture.output) == ["000000001", "000000002", "000000003"])
        let before = try fixture.server.stats()

        let resumed = try Imgfetch.run(arguments + ["--no-progress", "-v"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("done again (") && resumed.stderr.contains(" tar not complete)"), "\(resumed.stderr)")
        let after = try fixture.server.stats()
        for index in 1...3 { #expect(after.paths["/img/img\(index).jpg"] == before.paths["/img/img\(index).jpg"]) }
        #expect(!fixture.outputs().contains { $0.hasPrefix(".") }, "\(fixture.outputs())")
        let keys = try WebDatasetTests.keys(fixture.output)
        #expect(keys.sorted() == (1...12).map { String(format: "%09d", $0) }, "every ok line exactly once: \(keys)")
        // The last record of each line names a complete tar that holds it.
        var last: [Int: [String: Any]] = [:]
        for record in try JSONLines.objects(inFile: manifest, tolerant: true) { if let line = record["line"] as? Int { last[line] = record } }
        for (line, record) in last {
            let output = try #require((record["outputs"] as? [[String: Any]])?.first)
            let tar = try #require(output["tar"] as? String)
            #expect(try WebDatasetTests.members(tar).contains(String(format: "%09d.json", line)))
        }
        // Resuming again does nothing and writes no tar.
        let again = try Imgfetch.run(arguments + ["--no-progress"])
        #expect(again.status == 0 && again.stderr.contains("12 done earlier, 0 samples written into 0 tars"), "\(again.stderr)")
        #expect(try WebDatasetTests.keys(fixture.output).count == 12)
    }

    /// A run resumed (or retried) from a manifest that does not record the samples of a tar in the folder would
    /// write them again: refused (exit 2) before anything is fetched or written, the new manifest included. A tar of
    /// no sample (every line failed) needs no record: retrying its lines goes on.
    @Test func aManifestThatDoesNotRecordTheFoldersSamplesIsRefused() throws {
        let fixture = try BatchFixture(count: 2)
        let urls = [fixture.server.url("/img/img1.jpg"), fixture.server.url("/img/img2.jpg")]
        let first = try fixture.batch(urls, ["--output-format", "webdataset"])
        #expect(first.status == 0 && fixture.outputs() == ["00000.tar", "00000_stats.json"], "\(first.stderr)")
        let before = try fixture.server.stats()
        let manifest = fixture.root.file("new.jsonl")
        for option in ["--resume", "--retry-failed"] {
            if option == "--retry-failed" { try Data().write(to: URL(fileURLWithPath: manifest)) }
            let again = try fixture.batch(urls, ["--output-format", "webdataset", option, manifest, "--manifest", manifest])
            #expect(again.status == 2 && again.stderr.contains("00000.tar holds samples that \(option) '\(manifest)' does not "
                                                               + "record, which this run would write again"), "\(again.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: manifest)).isEmpty, "the manifest is not opened")
        let after = try fixture.server.stats()
        #expect(fixture.outputs() == ["00000.tar", "00000_stats.json"] && after.paths == before.paths)

        let failing = try BatchFixture(count: 1)
        let missing = [failing.server.url("/status/503")]
        let recorded = failing.root.file("m.jsonl")
        let failed = try failing.batch(missing, ["--output-format", "webdataset", "--manifest", recorded, "--retry", "0"])
        #expect(failed.status == 75 && failing.outputs() == ["00000.tar", "00000_stats.json"], "\(failed.stderr)")
        let retried = try failing.batch(missing, ["--output-format", "webdataset", "--retry-failed", recorded, "--retry", "0"])
        #expect(retried.status == 75 && retried.stderr.contains("0 samples written into 1 tar"), "\(retried.stderr)")
    }

    /// A sample made from a variant the cache already holds (an earlier run into files made it) says its original's
    /// size as a fresh one does: the variant's entry records it.
    @Test func aCachedVariantsSampleKeepsItsOriginalsSize() throws {
        let fixture = try BatchFixture(count: 1)
        let url = [fixture.server.url("/img/img1.jpg")]
        #expect(try fixture.batch(url, ["--resize", "100x"]).status == 0)
        let output = fixture.root.file("w"), manifest = fixture.root.file("m.jsonl")
        let result = try Imgfetch.run(["batch", try fixture.list(url), "-O", output, "--cache-dir", fixture.cache, "-v",
                                       "--output-format", "webdataset", "--resize", "100x", "--manifest", manifest])
        #expect(result.status == 0 && result.stderr.contains(": disk,"), "served by the cache: \(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: WebDatasetTests.member("000000001.json", of: output + "/00000.tar"))
                                as? [String: Any])
        #expect(json["original_width"] as? Int == 290 && json["original_height"] as? Int == 442, "\(json)")
        let record = try #require(try JSONLines.objects(inFile: manifest).first)
        #expect(record["original"] as? [String: Int] == ["width": 290, "height": 442], "\(record)")
    }

    /// A signal stops the run and completes the open tar with the samples it has: each ok line recorded is in it,
    /// and no temporary is left.
    @Test func aSignalCompletesTheOpenTar() throws {
        let fixture = try BatchFixture(count: 6)
        let lines = (1...6).map { fixture.server.url("/slow/img\($0).jpg?delay=0.04") }
        let manifest = fixture.root.file("m.jsonl")
        let process = try Imgfetch.launch(["batch", try fixture.list(lines), "-O", fixture.output, "--no-cache", "-j", "1",
                                           "--output-format", "webdataset", "--manifest", manifest])
        let deadline = Date().addingTimeInterval(30)
        while (try? JSONLines.objects(inFile: manifest, tolerant: true).count) ?? 0 < 2, Date() < deadline { usleep(10_000) }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 143)
        let ok = try JSONLines.objects(inFile: manifest).filter { $0["status"] as? String == "ok" }.compactMap { $0["line"] as? Int }
        #expect(ok.count >= 2 && ok.count < 6)
        #expect(fixture.outputs() == ["00000.tar", "00000_stats.json"], "\(fixture.outputs())")
        #expect(try WebDatasetTests.keys(fixture.output) == ok.map { String(format: "%09d", $0) })
    }

    /// `--retry-failed` writes the lines it retries into a new tar after the complete ones, which stay.
    @Test func retryFailedWritesIntoNewTars() throws {
        let fixture = try BatchFixture(count: 4)
        let lines = (1...3).map { fixture.server.url("/img/img\($0).jpg") } + [fixture.server.url("/flaky/1/img4.jpg")]
        let first = fixture.root.file("first.jsonl")
        let common = ["--output-format", "webdataset", "--no-cache", "--retry", "0"]
        let run = try fixture.batch(lines, common + ["--manifest", first])
        #expect(run.status == 75, "\(run.stderr)")
        let written = try FileManager.default.attributesOfItem(atPath: fixture.output + "/00000.tar")[.modificationDate] as? Date
        let retried = try fixture.batch(lines, common + ["--retry-failed", first, "--manifest", fixture.root.file("second.jsonl")])
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(WebDatasetTests.tars(fixture.output) == ["00000.tar", "00001.tar"])
        #expect(try WebDatasetTests.members(fixture.output + "/00001.tar") == ["000000004.jpg", "000000004.json"])
        #expect(try FileManager.default.attributesOfItem(atPath: fixture.output + "/00000.tar")[.modificationDate] as? Date == written)
        #expect(try WebDatasetTests.keys(fixture.output).sorted() == ["000000001", "000000002", "000000003", "000000004"])
    }

    /// A record names a tar by name and id: a tar of that name written since by another run (the first one
    /// deleted; that run resumed from the same manifest, which records it) holds other samples, so `--resume` from
    /// the manifest does the lines recorded in the first one again, and keeps the line the second one holds.
    @Test func aTarWrittenAgainIsNotTakenForTheOneRecorded() throws {
        let fixture = try BatchFixture(count: 3)
        let lines = (1...3).map { fixture.server.url("/img/img\($0).jpg") }
        let manifest = fixture.root.file("m.jsonl")
        let common = ["--output-format", "webdataset", "--no-cache", "--manifest", manifest, "--resume", manifest]
        #expect(try fixture.batch(lines, common).status == 0)
        try FileManager.default.removeItem(atPath: fixture.output)
        let other = try fixture.batch(Array(lines.prefix(1)), common + ["--samples-per-shard", "1"])
        #expect(other.status == 0 && WebDatasetTests.tars(fixture.output) == ["00000.tar"], "\(other.stderr)")
        let resumed = try fixture.batch(lines, common + ["-v"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("2 done again (2 tar written again since)"), "\(resumed.stderr)")
        #expect(WebDatasetTests.tars(fixture.output) == ["00000.tar", "00001.tar"])
        #expect(try WebDatasetTests.keys(fixture.output).sorted() == ["000000001", "000000002", "000000003"])
    }

    /// With `--skip-duplicates`, a near-duplicate is no sample (its stats count it as `duplicate`), and `--resume`
    /// keeps it as done.
    @Test func aSkippedDuplicateIsNoSampleAndStaysDone() throws {
        let fixture = try BatchFixture(count: 3)
        let lines = (1...3).map { fixture.server.url("/img/img\($0).jpg") }
        let manifest = fixture.root.file("m.jsonl")
        let arguments = ["--output-format", "webdataset", "--no-cache", "--facts", "--skip-duplicates", "--manifest", manifest,
                         "--resume", manifest]
        let run = try fixture.batch(lines, arguments)
        #expect(run.status == 0 && run.stderr.contains("3 ok, 0 failed, 1 sample written into 1 tar"), "\(run.stderr)")
        #expect(try WebDatasetTests.keys(fixture.output) == ["000000001"])
        let stats = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath:
            fixture.output + "/00000_stats.json"))) as? [String: Any])
        #expect(stats["statuses"] as? [String: Int] == ["ok": 1, "duplicate": 2])
        let again = try fixture.batch(lines, arguments)
        #expect(again.status == 0 && again.stderr.contains("3 done earlier, 0 samples written"), "\(again.stderr)")
        #expect(try fixture.server.stats().total == 3)
    }
}

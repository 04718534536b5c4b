import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A batch stopped by a signal, and the `--retry-failed` or `--resume` runs after it: a line a stopped run did not
/// finish is not done, whatever it was before, and a run that exits 0 leaves every line done.
@Suite("Batch manifest: interrupted runs, and the retries after them")
struct BatchInterruptedManifestTests {
    /// The counts of a batch's summary line on stderr: ok, failed, not done and not reached (nil when not said).
    private struct Counts {
        var ok = 0, failed = 0, notDone = 0
        var notReached: Int?

        init(_ stderr: String) throws {
            let pattern = /(\d+) ok, (\d+) failed(?:, (\d+) not done)?(?:, (\d+) not reached)?/
            guard let match = stderr.firstMatch(of: pattern) else { throw TestFailure("no summary in \(stderr)") }
            (ok, failed) = (Int(match.1)!, Int(match.2)!)
            notDone = match.3.flatMap { Int($0) } ?? 0
            notReached = match.4.flatMap { Int($0) }
        }
    }

    /// Runs `arguments` until the server has seen `count` requests for `path`, then sends `signal`; returns the
    /// exit status and stderr.
    private func interrupt(_ arguments: [String], after path: String, count: Int = 1, server: FixtureServer,
                           signal: Int32) throws -> (Int32, String) {
        let errors = try CapturedOutput()
        defer { errors.remove() }
        let process = try Imgfetch.launch(arguments, errors: errors)
        try server.waitForRequests(path, count: count)
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: try errors.collect(), as: UTF8.self))
    }

    /// The status of the record that settles each line: its last one, but a `skipped` one replaces none.
    private static func settled(_ records: [[String: Any]]) -> [Int: String] {
        var settled: [Int: String] = [:]
        for record in records {
            guard let line = record["line"] as? Int, let status = record["status"] as? String else { continue }
            if status == "skipped", settled[line] != nil { continue }
            settled[line] = status
        }
        return settled
    }

    /// Twelve lines that failed (404); then, their images in place, a `--retry-failed` run stopped by SIGTERM after
    /// a few. Its `skipped` records made the failures look settled: the next retry ran nothing and exited 0 with 4
    /// of 12 outputs. Now the next retry runs every line not done, exits 0 and all 12 are there.
    @Test func aRetryStoppedBySIGTERMLeavesItsFailuresToTheNext() throws {
        let fixture = try BatchFixture(count: 1)
        let names = (1...12).map { "late\($0).jpg" }
        let list = try fixture.list(names.map { fixture.server.url("/img/\($0)") })
        let manifest = fixture.root.file("m.jsonl")
        let common = ["batch", list, "-O", fixture.output, "--cache-dir", fixture.cache, "--no-progress", "--no-cache",
                      "-j", "2", "--manifest", manifest]
        let first = try Imgfetch.run(common)
        #expect(first.status == 1 && first.stderr.contains("0 ok, 12 failed"), "\(first.stderr)")
        for name in names { try FileManager.default.copyItem(atPath: Paths.images + "/sample.jpg", toPath: fixture.root.file("www/\(name)")) }
        let retry = common + ["--retry-failed", manifest]
        // One request a second: the signal comes while most lines wait for their turn (at four a second, a loaded
        // machine saw the third request late, and the signal found the run over).
        let (status, stderr) = try interrupt(retry + ["--rate", "1"], after: "/img/late3.jpg", count: 2, server: fixture.server,
                                             signal: SIGTERM)
        #expect(status == 143, "\(stderr)")
        let stopped = try Counts(stderr)
        #expect(stopped.ok < 12 && stopped.notDone <= 2, "\(stderr)")
        #expect(stopped.ok + stopped.failed + stopped.notDone + (stopped.notReached ?? 0) == 12, "\(stderr)")
        let again = try Imgfetch.run(retry)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("\(12 - stopped.ok) ok, 0 failed, \(stopped.ok) done earlier"), "\(again.stderr)")
        #expect(fixture.outputs() == names.sorted())
        let records = try JSONLines.objects(inFile: manifest)
        #expect(Self.settled(records) == Dictionary(uniqueKeysWithValues: (1...12).map { ($0, "ok") }), "\(records)")
        #expect(records.last?["status"] as? String == "ok" && records.last?["exit"] as? Int == 0)
    }

    /// A plain run stopped by SIGINT records the lines it finished, the ones it had started as `skipped`, and no
    /// others; `--retry-failed` (which ran none of the lines not done and exited 0) and `--resume` then do every
    /// line not done, and exit 0 with all of them there.
    @Test(arguments: ["--retry-failed", "--resume"])
    func aStoppedRunIsCompletedByTheNext(option: String) throws {
        let fixture = try BatchFixture(count: 12)
        let list = try fixture.list((1...12).map { fixture.server.url("/img/img\($0).jpg") })
        let manifest = fixture.root.file("m.jsonl")
        let common = ["batch", list, "-O", fixture.output, "--cache-dir", fixture.cache, "--no-progress", "--no-cache",
                      "-j", "2", "--manifest", manifest]
        let (status, stderr) = try interrupt(common + ["--rate", "1"], after: "/img/img3.jpg", server: fixture.server,
                                             signal: SIGINT)
        #expect(status == 130, "\(stderr)")
        let stopped = try Counts(stderr)
        let records = try JSONLines.objects(inFile: manifest)
        let lines = records.filter { $0["line"] != nil }
        let skipped = lines.filter { $0["status"] as? String == "skipped" }.count
        #expect(skipped == stopped.notDone && skipped <= 2, "\(stderr)\n\(records)")
        #expect(lines.count == stopped.ok + stopped.notDone, "only the lines started have a record: \(records)")
        let summary = try #require(records.last)
        #expect(summary["skipped"] as? Int == skipped && summary["not_reached"] as? Int == stopped.notReached, "\(summary)")
        #expect(stopped.ok + stopped.notDone + (stopped.notReached ?? 0) == 12, "\(stderr)")
        let again = try Imgfetch.run(common + [option, manifest])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("\(12 - stopped.ok) ok, 0 failed, \(stopped.ok) done earlier"), "\(again.stderr)")
        #expect(fixture.outputs() == (1...12).map { "img\($0).jpg" }.sorted())
        let all = try JSONLines.objects(inFile: manifest)
        #expect(Self.settled(all) == Dictionary(uniqueKeysWithValues: (1...12).map { ($0, "ok") }), "\(all)")
    }

    /// A run stopped early in a long list (more lines than it reads ahead) recorded every line read ahead as
    /// `skipped` and counted them as not done (`1024 not done` with two workers). Now only the lines started are,
    /// and the lines not reached are not counted, as the list was not read to its end.
    @Test func linesReadAheadButNeverStartedHaveNoRecord() throws {
        let fixture = try BatchFixture(count: 20)
        let list = try fixture.list((1...1500).map { fixture.server.url("/img/img\($0 % 20 + 1).jpg?n=\($0)") })
        let manifest = fixture.root.file("m.jsonl")
        let (status, stderr) = try interrupt(["batch", list, "-O", fixture.output, "--cache-dir", fixture.cache,
                                              "--no-progress", "--no-cache", "-j", "2", "--rate", "2", "--manifest", manifest],
                                             after: "/img/img2.jpg", server: fixture.server, signal: SIGINT)
        #expect(status == 130, "\(stderr)")
        let stopped = try Counts(stderr)
        #expect(stopped.notDone <= 2 && stopped.notReached == nil, "\(stderr)")
        let records = try JSONLines.objects(inFile: manifest)
        let lines = records.filter { $0["line"] != nil }
        #expect(lines.count == stopped.ok + stopped.notDone && lines.count <= 10, "\(records.count) records")
        #expect(lines.filter { $0["status"] as? String == "skipped" }.count == stopped.notDone)
        #expect(records.last?["skipped"] as? Int == stopped.notDone && records.last?["not_reached"] == nil)
    }

    /// `--retry-failed` carries a line done that is neither ok nor failed (here opted out by its `X-Robots-Tag`) as
    /// its record was, status and reason, and counts it done earlier: it was `skipped`, `not failed in the earlier
    /// manifest`, and counted as not done.
    @Test func retryFailedCarriesALineOptedOutAsItWas() throws {
        let fixture = try BatchFixture(count: 2)
        let lines = [fixture.server.url("/img/img1.jpg"), fixture.server.url("/robots-tag/noai/img2.jpg"),
                     fixture.server.url("/status/404")]
        let (first, again) = (fixture.root.file("first.jsonl"), fixture.root.file("again.jsonl"))
        let run = try fixture.batch(lines, ["--disallow-robots-tags", "noai", "--manifest", first, "--no-cache"])
        #expect(run.status == 1, "\(run.stderr)")
        let retried = try fixture.batch(lines, ["--disallow-robots-tags", "noai", "--retry-failed", first, "--manifest", again,
                                                "--no-cache", "-v"])
        #expect(retried.status == 1, "\(retried.stderr)")
        #expect(retried.stderr.contains("0 ok, 1 failed, 2 done earlier") && !retried.stderr.contains("not done"),
                "\(retried.stderr)")
        #expect(retried.stderr.contains("img2.jpg: done earlier (opted out: "), "\(retried.stderr)")
        #expect(try fixture.server.requests("/robots-tag/noai/img2.jpg") == 1)
        let earlier = try JSONLines.objects(inFile: first), records = try JSONLines.objects(inFile: again)
        #expect(records.dropLast().map { $0["status"] as? String } == ["ok", "opted_out", "failed"])
        #expect(records[1]["reason"] as? String == earlier[1]["reason"] as? String && records[1]["reason"] != nil)
        #expect(records[1]["directive"] as? String == "noai" && records[1]["ms"] == nil)
        #expect(records.last?["done_earlier"] as? Int == 2 && records.last?["skipped"] as? Int == 0)
    }
}

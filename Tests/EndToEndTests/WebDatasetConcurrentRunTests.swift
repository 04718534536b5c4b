import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// Two WebDataset runs into one folder at once: one that would write tars of the names the other writes is refused
/// before it fetches anything (the lock `.imgfetch-PREFIXtars.lock`); the tasks of other shards share the folder.
@Suite("WebDataset runs into one folder at once")
struct WebDatasetConcurrentRunTests {
    /// `batch LIST -O out --output-format webdataset --samples-per-shard 2 -j JOBS ...`, started without waiting, its
    /// standard error to `errors`: slow lines (each answered after `delay` seconds), so that it runs for seconds.
    private func startSlowRun(_ fixture: BatchFixture, lines: ClosedRange<Int>, delay: Double, jobs: Int,
                              _ extra: [String], errors: CapturedOutput) throws -> Process {
        let list = try fixture.list(lines.map { fixture.server.url("/delay/\(delay)/img\($0).jpg") })
        return try Imgfetch.launch(["batch", list, "-O", fixture.output, "--cache-dir", fixture.cache, "--no-progress",
                                    "--output-format", "webdataset", "--samples-per-shard", "2", "-j", "\(jobs)"] + extra,
                                   errors: errors)
    }

    /// Waits until the server saw a request for one of `lines`' delayed URLs: the run holds its lock by then.
    private func waitForAnyRequest(_ fixture: BatchFixture, lines: ClosedRange<Int>, delay: Double) throws {
        let deadline = Date().addingTimeInterval(30)
        while try lines.map({ try fixture.server.requests("/delay/\(delay)/img\($0).jpg") }).reduce(0, +) == 0 {
            guard Date() < deadline else { throw TestFailure("no slow request was seen") }
            usleep(20_000)
        }
    }

    @Test func aSecondRunIntoTheFolderIsRefusedBeforeItFetchesAndTheFirstKeepsItsTars() throws {
        let fixture = try BatchFixture(count: 8)
        let errors = try CapturedOutput()
        defer { errors.remove() }
        let first = try startSlowRun(fixture, lines: 1...4, delay: 1, jobs: 1, ["--manifest", fixture.root.file("ma.jsonl")],
                                     errors: errors)
        try fixture.server.waitForRequests("/delay/1.0/img1.jpg")
        let manifest = fixture.root.file("mb.jsonl")
        let second = try fixture.batch((5...8).map { fixture.server.url("/img/img\($0).jpg") },
                                       ["--output-format", "webdataset", "--samples-per-shard", "2", "--manifest", manifest])
        first.waitUntilExit()
        #expect(second.status == 2, "\(second.stderr)")
        #expect(second.stderr.split(separator: "\n").count == 1, "one line: \(second.stderr)")
        #expect(second.stderr.contains("another batch is writing WebDataset tars NNNNN.tar into \(fixture.output) now "
                                       + "(it holds \(fixture.output)/.imgfetch-tars.lock)"), "\(second.stderr)")
        #expect(try (5...8).map { try fixture.server.requests("/img/img\($0).jpg") }.reduce(0, +) == 0)
        #expect(!FileManager.default.fileExists(atPath: manifest), "its manifest is not even opened")
        let firstErrors = String(decoding: try errors.collect(), as: UTF8.self)
        #expect(first.terminationStatus == 0, "\(firstErrors)")
        #expect(WebDatasetTests.tars(fixture.output) == ["00000.tar", "00001.tar"])
        #expect(try WebDatasetTests.keys(fixture.output).sorted() == (1...4).map { String(format: "%09d", $0) })
    }

    /// `--shard 1/2` and `--shard 1/3` both write `s0001-` tars: the second is refused while the first runs; shard
    /// 0/2 writes `s0000-` tars into the same folder at the same time.
    @Test func shardsOfOneNumberExcludeEachOtherAndOtherShardsShareTheFolder() throws {
        let fixture = try BatchFixture(count: 20)
        let errors = try CapturedOutput()
        defer { errors.remove() }
        // A line's shard follows from its URL (the port's too): 16 lines, all at once, each answered in 2 s.
        let manifest = fixture.root.file("m1.jsonl")
        let first = try startSlowRun(fixture, lines: 1...16, delay: 2, jobs: 16, ["--shard", "1/2", "--manifest", manifest],
                                     errors: errors)
        try waitForAnyRequest(fixture, lines: 1...16, delay: 2)
        let list = (17...20).map { fixture.server.url("/img/img\($0).jpg") }
        let clash = try fixture.batch(list, ["--output-format", "webdataset", "--shard", "1/3"])
        // Twenty lines, so that shard 0/2 takes some whatever the port (of four, none in one run of about 16).
        let other = try fixture.batch((1...20).map { fixture.server.url("/img/img\($0).jpg") },
                                      ["--output-format", "webdataset", "--shard", "0/2"])
        first.waitUntilExit()
        #expect(clash.status == 2 && clash.stderr.contains("another batch is writing WebDataset tars s0001-NNNNN.tar into")
                && clash.stderr.contains(".imgfetch-s0001-tars.lock") && clash.stderr.contains("or --shard"), "\(clash.stderr)")
        #expect(other.status == 0, "\(other.stderr)")
        let firstErrors = String(decoding: try errors.collect(), as: UTF8.self)
        #expect(first.terminationStatus == 0, "\(firstErrors)")
        let tars = WebDatasetTests.tars(fixture.output)
        #expect(tars.contains { $0.hasPrefix("s0000-") } && tars.contains { $0.hasPrefix("s0001-") }, "\(tars)")
        // Shard 1/2's tars hold every sample it wrote (none of them replaced by the runs beside it).
        var samples = 0
        for tar in tars where tar.hasPrefix("s0001-") { samples += try WebDatasetTests.members(fixture.output + "/" + tar).count / 2 }
        let summary = try #require(try JSONLines.objects(inFile: manifest).first { $0["summary"] != nil })
        #expect(summary["written"] as? Int == samples && samples > 0, "\(summary), \(samples) samples in \(tars)")
    }
}

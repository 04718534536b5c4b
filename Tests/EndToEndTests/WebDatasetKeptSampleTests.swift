import Foundation
import Testing
@testable import ImgCore

/// A sample in a complete tar is never written a second time: a line `--resume` or `--retry-failed` would do again
/// for another reason than its tar (other options, another URL on its line) is carried as done earlier, its sample
/// kept, and the reports say so (each line was written again into a new tar: the dataset gave it twice).
@Suite("WebDataset output: kept samples")
struct WebDatasetKeptSampleTests {
    @Test func resumingWithOtherOptionsKeepsTheTarsSamplesAndSaysSo() throws {
        let fixture = try BatchFixture(count: 2)
        let list = try fixture.list((1...2).map { fixture.server.url("/img/img\($0).jpg") })
        let manifest = fixture.root.file("m.jsonl")
        let arguments = ["batch", list, "-O", fixture.output, "--cache-dir", fixture.cache, "--no-progress",
                         "--output-format", "webdataset"]
        let first = try Imgfetch.run(arguments + ["--manifest", manifest])
        #expect(first.status == 0, "\(first.stderr)")
        let requests = try fixture.server.stats().total

        // Into a manifest of its own, which carries the earlier records.
        let carriedInto = fixture.root.file("m2.jsonl")
        let resumed = try Imgfetch.run(arguments + ["--resume", manifest, "--manifest", carriedInto, "--format", "png", "-v"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("2 done earlier (2 kept in their tars, whose samples are not replaced: "
                                        + "2 made with other options)"), "\(resumed.stderr)")
        #expect(resumed.stderr.contains("done earlier (kept in its tar: made with other options), not fetched"))
        #expect(try WebDatasetTests.keys(fixture.output) == ["000000001", "000000002"], "each line one sample")
        #expect(try fixture.server.stats().total == requests)
        let carried = try JSONLines.objects(inFile: carriedInto).filter { $0["summary"] == nil }
        #expect(carried.map { $0["reason"] as? String }
                == Array(repeating: "done earlier, kept in its tar: made with other options", count: 2))

        // Resumed again with those options: the kept samples' records still settle their lines.
        let again = try Imgfetch.run(arguments + ["--resume", carriedInto, "--manifest", carriedInto, "--format", "png"])
        #expect(again.status == 0 && again.stderr.contains("2 done earlier (2 kept"), "\(again.stderr)")
        #expect(try WebDatasetTests.keys(fixture.output) == ["000000001", "000000002"])
    }

    @Test func retryingFailuresAfterTheListChangedKeepsTheSampleOfTheOldURL() throws {
        let fixture = try BatchFixture(count: 3)
        let manifest = fixture.root.file("m.jsonl")
        let run = { (lines: [String], extra: [String]) in
            try Imgfetch.run(["batch", try fixture.list(lines), "-O", fixture.output, "--cache-dir", fixture.cache,
                              "--no-progress", "--output-format", "webdataset", "--manifest", manifest, "--retry", "0"]
                             + extra)
        }
        let gone = fixture.server.url("/status/404/gone.jpg")
        let first = try run([fixture.server.url("/img/img1.jpg"), gone], [])
        #expect(first.status == 1)
        let retried = try run([fixture.server.url("/img/img3.jpg"), fixture.server.url("/img/img2.jpg")],
                              ["--retry-failed", manifest])
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(retried.stderr.contains("1 done earlier (1 kept in their tars, whose samples are not replaced: "
                                        + "1 another URL on that line)"), "\(retried.stderr)")
        #expect(try WebDatasetTests.keys(fixture.output).sorted() == ["000000001", "000000002"], "each line one sample")
        #expect(try fixture.server.requests("/img/img3.jpg") == 0)
    }

    /// A line whose URL changed so that it is now another shard's: the task of its old shard says that its sample
    /// stays in its tar while the new shard's task writes one again (the folder then gives the line twice: it said
    /// nothing).
    @Test func aLineThatMovedToAnotherShardIsNamedByItsOldShard() throws {
        let fixture = try BatchFixture(count: 2)
        let url = { (version: Int) in fixture.server.url("/img/img1.jpg?v=\(version)") }
        let shardOf = { (version: Int) in
            Shard.hash(CacheKey.original(for: URL(string: url(version))!, query: .all)!) % 2
        }
        let moved = try #require((2...64).first { shardOf($0) != shardOf(1) })
        let manifest = fixture.root.file("m.{shard}.jsonl")
        let run = { (version: Int, shard: UInt64) in
            try Imgfetch.run(["batch", try fixture.list([fixture.server.url("/img/img2.jpg"), url(version)]),
                              "-O", fixture.output, "--cache-dir", fixture.cache, "--no-progress", "--keep-query",
                              "--output-format", "webdataset", "--shard", "\(shard)/2", "--manifest", manifest,
                              "--resume", manifest])
        }
        for shard: UInt64 in [0, 1] { #expect(try run(1, shard).status == 0) }
        let old = shardOf(1)
        let told = try run(moved, old)
        #expect(told.status == 0 && told.stderr.contains("warning: line 2's sample stays in s000\(old)-00000.tar, but "
                                                         + "the line is now another shard's"), "\(told.stderr)")
        let other = try run(moved, 1 - old)
        #expect(other.status == 0 && !other.stderr.contains("warning"), "\(other.stderr)")
    }
}

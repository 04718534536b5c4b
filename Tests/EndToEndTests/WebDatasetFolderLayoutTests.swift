import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What a WebDataset output folder already holds decides whether a run may write into it: tars of another shard
/// layout (their samples keyed by the same lines) and tars no longer as their stats describe them.
@Suite("WebDataset output: the folder's tars")
struct WebDatasetFolderLayoutTests {
    /// A run whose shard layout differs from the one that wrote the folder's tars is refused before anything is
    /// fetched: it wrote every line's sample a second time under its own names. The other shards of the same
    /// count share the folder.
    @Test func tarsOfAnotherShardLayoutAreRefused() throws {
        let fixture = try BatchFixture(count: 6)
        let urls = (1...6).map { fixture.server.url("/img/img\($0).jpg") }
        let manifest = fixture.root.file("m.jsonl")
        let plain = try fixture.batch(urls, ["--output-format", "webdataset", "--manifest", manifest])
        #expect(plain.status == 0, "\(plain.stderr)")
        let before = try fixture.server.stats().paths
        for shard in ["0/2", "0/1"] {
            let sharded = try fixture.batch(urls, ["--output-format", "webdataset", "--shard", shard, "--resume", manifest])
            #expect(sharded.status == 2, "\(shard): \(sharded.stderr)")
            #expect(sharded.stderr.contains("/00000.tar was written without --shard: a run with --shard K/\(shard.suffix(1)) "
                                            + "would write its samples again"), "\(sharded.stderr)")
        }
        #expect(try fixture.server.stats().paths == before, "nothing fetched")
        #expect(fixture.outputs() == ["00000.tar", "00000_stats.json"], "\(fixture.outputs())")

        // Twenty lines, so that each of two shards takes some whatever the fixture's port (a line's shard follows
        // from its URL).
        let shards = try BatchFixture(count: 20)
        let lines = (1...20).map { shards.server.url("/img/img\($0).jpg") }
        for shard in ["0/2", "1/2"] {
            let run = try shards.batch(lines, ["--output-format", "webdataset", "--shard", shard])
            #expect(run.status == 0, "the same count shares the folder: \(run.stderr)")
        }
        // Shard 0 of 4 names its tars as shard 0 of 2 did: theirs are no tars of its own either.
        for (shard, refused) in [("3/4", true), ("0/4", true)] {
            let run = try shards.batch(lines, ["--output-format", "webdataset", "--shard", shard])
            #expect((run.status == 2) == refused && run.stderr.contains("-00000.tar (and 1 more) was written with --shard ")
                    && run.stderr.contains("/2: a run with --shard K/4"),
                    "\(shard): \(run.stderr) \(shards.outputs())")
        }
        let unsharded = try shards.batch(lines, ["--output-format", "webdataset"])
        #expect(unsharded.status == 2 && unsharded.stderr.contains("a run with no --shard"), "\(unsharded.stderr)")
        #expect(try WebDatasetTests.keys(shards.output).sorted() == (1...20).map { String(format: "%09d", $0) })
    }

    /// A tar cut short after it was complete (its size no longer the one its stats record) holds fewer samples than
    /// its stats and the manifest say: `--resume` refuses it before anything is fetched (it counted its lines done;
    /// doing them again would give the samples still readable in it twice).
    @Test func aTarCutShortIsRefusedOnResume() throws {
        let fixture = try BatchFixture(count: 4)
        let urls = (1...4).map { fixture.server.url("/img/img\($0).jpg") }
        let manifest = fixture.root.file("m.jsonl")
        let arguments = ["--output-format", "webdataset", "--samples-per-shard", "2", "--manifest", manifest, "--resume", manifest]
        #expect(try fixture.batch(urls, arguments).status == 0)
        #expect(truncate(fixture.output + "/00000.tar", 2048) == 0)
        let before = try fixture.server.stats().paths
        let resumed = try fixture.batch(urls, arguments)
        #expect(resumed.status == 2 && resumed.stderr.contains("/00000.tar is not the size its stats record"), "\(resumed.stderr)")
        #expect(try fixture.server.stats().paths == before)
        #expect(unlink(fixture.output + "/00000.tar") == 0 && unlink(fixture.output + "/00000_stats.json") == 0)
        let redone = try fixture.batch(urls, arguments)
        #expect(redone.status == 0 && redone.stderr.contains("2 done earlier"), "\(redone.stderr)")
        #expect(try WebDatasetTests.keys(fixture.output).sorted() == (1...4).map { String(format: "%09d", $0) })
    }
}

import Foundation
import Testing
@testable import ImgCore

/// `cache inspect` says one thing in text and in JSON, and takes no option it would ignore.
@Suite("cache inspect's text and JSON agree")
struct CacheInspectOutputTests {
    /// A cache of three originals of 1000 bytes, and its entries' total on disk.
    private func cache() throws -> (home: TemporaryDirectory, directory: String, total: Int64) {
        let home = try TemporaryDirectory()
        let directory = home.file("cache")
        let cache = try DiskCache(directory: directory)
        for index in 1...3 { try EntryFixtures.storeOriginal(in: cache, url: "http://127.0.0.1/\(index).png") }
        let inspected = try Imgfetch.runInProcess(["cache", "inspect", "--json", "--cache-dir", directory])
        let document = try #require(try JSONSerialization.jsonObject(with: inspected.stdout) as? [String: Any])
        let total = try #require(document["totalBytes"] as? Int)
        return (home, directory, Int64(total))
    }

    /// How full the cache is, in text as in `--json`'s `fullPercent` (one decimal): the text rounded it to a whole
    /// percent, so that 977.9 KiB of 300 MiB was "0% full" where the JSON said 0.3.
    @Test func theTextSaysHowFullTheCacheIsAsTheJSONDoes() throws {
        let (home, directory, total) = try cache()
        _ = home
        for (limit, shown, percent) in [(total * 300, "0.3", 0.3), (total * 3 / 2, "66.7", 66.7), (total * 2, "50", 50.0)] {
            let arguments = ["cache", "inspect", "--size-limit", String(limit), "--cache-dir", directory]
            let text = try Imgfetch.runInProcess(arguments)
            #expect(text.status == 0 && text.stdoutText.contains("size limit (\(shown)% full)\n"), "\(text.stdoutText)")
            let json = try Imgfetch.runInProcess(arguments + ["--json"])
            let document = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
            #expect(document["fullPercent"] as? Double == percent, "\(document)")
        }
    }

    /// `--limit` with a URL or `--cache-key` (whose entries are all listed) would be ignored: refused in one line
    /// (exit 2), as `--all --limit` is; it listed every entry of the URL without a word.
    @Test func aLimitBesideAURLOrACacheKeyIsRefused() throws {
        let (home, directory, _) = try cache()
        _ = home
        let url = "http://127.0.0.1/1.png"
        for (given, named) in [([url], "a URL"), (["--cache-key", url], "--cache-key")] {
            let refused = try Imgfetch.runInProcess(["cache", "inspect"] + given + ["--limit", "1", "--cache-dir", directory])
            #expect(refused.status == 2 && refused.stdout.isEmpty, "\(given): \(refused.stdoutText)")
            #expect(refused.stderr.hasPrefix("imgfetch: --limit and \(named) contradict each other: ")
                    && refused.stderr.split(separator: "\n").count == 1, "\(given): \(refused.stderr)")
            let listed = try Imgfetch.runInProcess(["cache", "inspect", "--json"] + given + ["--cache-dir", directory])
            #expect(listed.status == 0, "\(given): \(listed.stderr)")
        }
        let limited = try Imgfetch.runInProcess(["cache", "inspect", "--json", "--limit", "1", "--cache-dir", directory])
        let document = try #require(try JSONSerialization.jsonObject(with: limited.stdout) as? [String: Any])
        #expect(document["shown"] as? Int == 1 && document["entries"] as? Int == 3, "\(document)")
    }
}

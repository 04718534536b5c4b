import Foundation
import Testing
@testable import ImgCore

/// `prefetch`: what it takes of batch's options (it fills the disk cache and writes no file), refused before any
/// request when it can't do its work.
@Suite("Prefetch: options and records")
struct PrefetchTests {
    /// prefetch's only work is to fill the disk cache: `--no-cache` and `--memory-only` would download everything
    /// and keep nothing, so each is one usage error naming it, before any request or any cache directory.
    @Test func optionsThatKeepTheDiskCacheOutAreRefused() throws {
        let fixture = try BatchFixture(count: 2)
        let list = try fixture.list([fixture.server.url("/img/img2.jpg")])
        for (option, users) in [("--no-cache", "fetch, batch and info"), ("--memory-only", "fetch and batch")] {
            let result = try Imgfetch.run(["prefetch", fixture.server.url("/img/img1.jpg"), "--from", list, option,
                                           "--cache-dir", fixture.cache, "--no-progress"])
            #expect(result.status == 2, "\(option): \(result.stderr)")
            #expect(result.stderr == "imgfetch: option \(option) does not apply to 'prefetch'; it is for \(users)\n")
            #expect(result.stdout.isEmpty)
        }
        #expect(try fixture.server.stats().total == 0)
        #expect(!FileManager.default.fileExists(atPath: fixture.cache))
    }

    /// prefetch names no output: `--name-column` is refused as `--name` is, and so are `--caption-column` and
    /// `--sha256-column` (batch's alone); `--url-column` and `--keep-columns` are taken, the kept columns in its records.
    @Test func columnOptionsForOutputsAreRefusedAndTheOthersTaken() throws {
        let fixture = try BatchFixture(count: 2)
        let (one, two) = (fixture.server.url("/img/img1.jpg"), fixture.server.url("/img/img2.jpg"))
        let csv = try fixture.write("link,key,caption\n\(one),first,a\n\(two),second,b\n", to: "list.csv")
        for option in ["--name-column", "--caption-column", "--sha256-column"] {
            let result = try Imgfetch.run(["prefetch", "--from", csv, "--url-column", "link", option, "key",
                                           "--cache-dir", fixture.cache, "--no-progress"])
            #expect(result.status == 2, "\(option): \(result.stderr)")
            #expect(result.stderr == "imgfetch: option \(option) does not apply to 'prefetch'; it is for batch\n")
        }
        #expect(try fixture.server.stats().total == 0)
        let manifest = fixture.root.file("m.jsonl")
        let result = try Imgfetch.run(["prefetch", "--from", csv, "--url-column", "link", "--keep-columns", "caption",
                                       "--manifest", manifest, "--json", "--cache-dir", fixture.cache, "--no-progress"])
        #expect(result.status == 0, "\(result.stderr)")
        let records = try JSONLines.objects(inFile: manifest).filter { $0["summary"] == nil }
        #expect(records.map { $0["columns"] as? [String: String] } == [["caption": "a"], ["caption": "b"]])
        let json = try BatchFixture.records(result).filter { $0["summary"] == nil }
        #expect(json.map { $0["columns"] as? [String: String] } == [["caption": "a"], ["caption": "b"]])
        #expect(try fixture.server.stats().total == 2)
    }

    /// The URLs given on the command line and the `--from` list are numbered on through them, as batch numbers several
    /// lists: each record's line is its own, a list's lines also name their list and line there, and `--resume`
    /// settles each line by its own record (none is taken for another URL on its line).
    @Test func urlsAndTheFromListAreNumberedOnThroughThem() throws {
        let fixture = try BatchFixture(count: 2)
        let list = try fixture.list([fixture.server.url("/img/img1.jpg"), fixture.server.url("/img/img2.jpg")])
        let (manifest, again) = (fixture.root.file("m.jsonl"), fixture.root.file("again.jsonl"))
        let arguments = ["prefetch", fixture.server.url("/img/missing.jpg"), "--from", list, "--cache-dir", fixture.cache,
                         "--no-progress"]
        let first = try Imgfetch.run(arguments + ["--manifest", manifest, "--json"])
        #expect(first.status == 1, "\(first.stderr)")
        let records = try JSONLines.objects(inFile: manifest).filter { $0["summary"] == nil }
        #expect(records.map { $0["line"] as? Int } == [1, 2, 3])
        #expect(records.map { $0["list"] as? String } == [nil, list, list])
        #expect(records.map { $0["list_line"] as? Int } == [nil, 1, 2])
        #expect(records.map { $0["status"] as? String } == ["failed", "ok", "ok"])
        let json = try BatchFixture.records(first).filter { $0["summary"] == nil }
        #expect(json.map { $0["line"] as? Int } == [1, 2, 3] && json.map { $0["listLine"] as? Int } == [nil, 1, 2])
        let resumed = try Imgfetch.run(arguments + ["--resume", manifest, "--manifest", again])
        #expect(resumed.status == 1, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("0 ok, 1 failed, 2 done earlier, no file written"), "\(resumed.stderr)")
        let summary = try #require(try JSONLines.objects(inFile: again).last)
        #expect(summary["done_earlier"] as? Int == 2 && summary["redone"] as? Int == 0, "\(summary)")
        // The failed line alone was asked again.
        #expect(try fixture.server.stats().total == 4)
    }

    /// A line whose original the disk cache could not keep (here larger than the size limit allows an entry) is no
    /// success: prefetch's only work is to fill the cache (it said ok and exited 0 with nothing cached).
    @Test func aLineTheCacheCouldNotKeepFails() throws {
        let fixture = try BatchFixture(count: 2)
        let lines = [fixture.server.url("/img/img1.jpg"), fixture.server.url("/img/img2.jpg")]
        let manifest = fixture.root.file("m.jsonl")
        // sample.jpg is 22,951 bytes: over 10K and its tenth.
        for extra in [[], ["--resize", "50x"]] {
            let result = try Imgfetch.run(["prefetch"] + lines + ["--size-limit", "10K", "--cache-dir", fixture.cache,
                                           "--manifest", manifest, "--no-progress"] + extra)
            #expect(result.status == 1 && result.stderr.contains("0 ok, 2 failed"), "\(extra): \(result.stderr)")
            let records = try JSONLines.objects(inFile: manifest).filter { $0["summary"] == nil }
            #expect(records.map { $0["status"] as? String } == ["failed", "failed"], "\(records)")
            let error = try #require(records.first?["error"] as? [String: Any])
            #expect((error["message"] as? String)?.hasPrefix("not cached: an entry of ") == true, "\(records)")
        }
    }

    /// `--resume` skips a prefetched line only when its entry is in this run's cache: resumed against another cache
    /// (or one cleared since) every line was skipped as done, with nothing cached and exit 0.
    @Test func aResumedPrefetchFetchesWhatThisCacheLacks() throws {
        let fixture = try BatchFixture(count: 2)
        let lines = [fixture.server.url("/img/img1.jpg"), fixture.server.url("/img/img2.jpg")]
        for extra in [[], ["--resize", "50x"]] {
            let manifest = fixture.root.file("m-\(extra.count).jsonl")
            let first = try Imgfetch.run(["prefetch"] + lines + ["--cache-dir", fixture.cache + "-a\(extra.count)",
                                          "--manifest", manifest, "--no-progress"] + extra)
            #expect(first.status == 0, "\(first.stderr)")
            let requests = try fixture.server.requests("/img/img1.jpg")
            let same = try Imgfetch.run(["prefetch"] + lines + ["--cache-dir", fixture.cache + "-a\(extra.count)",
                                         "--resume", manifest, "--no-progress"] + extra)
            #expect(same.status == 0 && same.stderr.contains("2 done earlier"), "\(extra): \(same.stderr)")
            #expect(try fixture.server.requests("/img/img1.jpg") == requests)
            let other = try Imgfetch.run(["prefetch"] + lines + ["--cache-dir", fixture.cache + "-b\(extra.count)",
                                          "--resume", manifest, "--no-progress", "-v"] + extra)
            #expect(other.status == 0 && other.stderr.contains("2 ok"), "\(extra): \(other.stderr)")
            #expect(other.stderr.contains("done again: not in the cache, or expired"), "\(other.stderr)")
            #expect(try fixture.server.requests("/img/img1.jpg") == requests + 1)
        }
    }

    /// A prefetch served from the entry of a URL with another query says so, as fetch and batch do: in its record
    /// (`queryDiffers`, `recordedURL`) and once on standard error.
    @Test func aPrefetchServedByAnotherQuerysEntrySaysSo() throws {
        let fixture = try BatchFixture(count: 1)
        let first = try Imgfetch.run(["prefetch", fixture.server.url("/img/img1.jpg?v=a"), "--cache-dir", fixture.cache,
                                      "-q", "--no-progress"])
        #expect(first.status == 0, "\(first.stderr)")
        let second = try Imgfetch.run(["prefetch", fixture.server.url("/img/img1.jpg?v=b"), "--cache-dir", fixture.cache,
                                       "-q", "--no-progress", "--json"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(second.stderr.contains("is served from the cache entry of"), "\(second.stderr)")
        let record = try #require(try BatchFixture.records(second).first { $0["summary"] == nil })
        #expect(record["queryDiffers"] as? Bool == true, "\(record)")
        #expect((record["recordedURL"] as? String)?.hasSuffix("?v=a") == true, "\(record)")
    }
}

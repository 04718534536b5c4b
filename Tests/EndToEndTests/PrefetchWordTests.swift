import Foundation
import Testing

/// The words given to `prefetch` on the command line are URLs, one a word, taken and checked as `fetch` takes and
/// checks its inputs; only the lines of a `--from` list are list lines.
@Suite("Prefetch: command-line words are URLs")
struct PrefetchWordTests {
    /// A word is one URL, escaped as fetch escapes it: its blanks are no columns (`/a b.jpg` requested `/a` and took
    /// `b.jpg` for a name; a third part failed the line for its columns).
    @Test func aWordWithBlanksIsOneURL() throws {
        let fixture = try BatchFixture(count: 1)
        let sample = fixture.root.path + "/www/img1.jpg"
        for name in ["a b.jpg", "a b c.jpg"] {
            try FileManager.default.copyItem(atPath: sample, toPath: fixture.root.path + "/www/" + name)
        }
        let result = try Imgfetch.run(["prefetch", fixture.server.url("/img/a b.jpg"), fixture.server.url("/img/a b c.jpg"),
                                       "--cache-dir", fixture.cache, "--no-progress"])
        #expect(result.status == 0 && result.stderr.contains("2 ok, 0 failed"), "\(result.stderr)")
        let stats = try fixture.server.stats()
        #expect(stats.paths["/img/a%20b.jpg"] == 1 && stats.paths["/img/a%20b%20c.jpg"] == 1, "\(stats.paths)")
        #expect(stats.total == 2, "\(stats.paths)")
    }

    /// What fetch refuses as an input (exit 2) prefetch refuses as a word the same way, before any request and
    /// before the cache directory is made: a scheme it can't fetch, a port out of range, `-`, a local input with
    /// `--deny-local`, and a word that starts with `#` (a list's comment, but no URL). A `--from` list's line with
    /// the same fault stays that line's failure.
    @Test func aWordFetchWouldRefuseIsAUsageError() throws {
        let fixture = try BatchFixture(count: 1)
        let url = fixture.server.url("/img/img1.jpg")
        let refused: [([String], String)] = [
            (["ftp://127.0.0.1/x.jpg"], "unsupported URL scheme 'ftp'"),
            (["http://127.0.0.1:99999/x.jpg"], "port 99999 is not a port number"),
            (["-"], "give --from -"),
            (["--deny-local", Paths.images + "/sample.jpg"], "--deny-local"),
            (["#" + url], "unsupported URL scheme '#http'"),
        ]
        for (words, saying) in refused {
            let result = try Imgfetch.run(["prefetch", url] + words + ["--cache-dir", fixture.cache, "--no-progress"])
            #expect(result.status == 2, "\(words): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains(saying),
                    "\(words): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: fixture.cache), "\(words)")
        }
        #expect(try fixture.server.stats().total == 0)
        let list = try fixture.list(["ftp://127.0.0.1/x.jpg", url])
        let fromList = try Imgfetch.run(["prefetch", "--from", list, "--cache-dir", fixture.cache, "--no-progress"])
        #expect(fromList.status == 1 && fromList.stderr.contains("1 ok, 1 failed"), "\(fromList.stderr)")
    }
}

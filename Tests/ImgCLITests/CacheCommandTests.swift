import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

@Suite("cache commands in process")
struct CacheCommandTests {
    @Test func anExpiredEntryWithoutValidatorsIsDownloadedAgain() throws {
        let fixture = try CacheFixture(inProcess: true)
        try fixture.fetch("/noval/sample.jpg", ["--ttl", "1s"])
        try fixture.passTime()
        let again = try fixture.fetch("/noval/sample.jpg", ["-v"])
        #expect(again.stderr.contains("network"), "\(again.stderr)")
        #expect(!again.stderr.contains("revalidated"))
        #expect(try fixture.requests("/noval/sample.jpg") == 2)
    }

    @Test func aChangedImageAnswers200AndReplacesTheOriginalAndDropsItsVariants() throws {
        let root = try TemporaryDirectory()
        try FileManager.default.copyItem(atPath: Paths.images + "/sample.jpg", toPath: root.file("a.jpg"))
        let fixture = try CacheFixture(root: root.path, inProcess: true)
        try fixture.fetch("/img/a.jpg", ["--ttl", "1s"])
        try fixture.fetch("/img/a.jpg", ["--ttl", "1s", "--resize", "20x20"])
        #expect(fixture.entries().filter { $0.key.hasSuffix(".variant") }.count == 2)
        try FileManager.default.removeItem(atPath: root.file("a.jpg"))
        try FileManager.default.copyItem(atPath: Paths.images + "/rgba.png", toPath: root.file("a.jpg"))
        try fixture.passTime()
        let again = try fixture.fetch("/img/a.jpg", ["-v"])
        #expect(again.stderr.contains("network"), "\(again.stderr)")
        let inspected = try fixture.inspectJSON([fixture.server.url("/img/a.jpg")])
        let items = inspected["items"] as? [[String: Any]] ?? []
        #expect(items.count == 2, "the resize variant must be gone: \(items)")
        #expect(!items.contains { ($0["variant"] as? String)?.contains("resize") == true })
        let original = try #require(items.first { $0["kind"] as? String == "original" })
        #expect(original["format"] as? String == "png")
        #expect(original["expired"] as? Bool == false)
    }

    @Test func pruneRemovesExactlyTheLeastRecentlyAccessedDownToHalfTheLimit() throws {
        let fixture = try CacheFixture(inProcess: true)
        for name in ["sample.jpg", "rgba.png", "1.webp", "cogs.gif", "indexed.png", "cramps.gif"] {
            try fixture.fetch("/img/\(name)")
            usleep(20_000)
        }
        try fixture.fetch("/img/sample.jpg") // its variant becomes the most recently used
        let before = fixture.entries().filter { !$0.value.isFolder }
        let total = before.values.reduce(0) { $0 + $1.size }
        let limit = total * 7 / 10
        // The expected survivors, computed from lstat: least recently accessed go first until total <= limit / 2.
        var remaining = total
        var expectedRemoved = Set<String>()
        for (path, state) in before.sorted(by: { ($0.value.accessed, $0.key) < ($1.value.accessed, $1.key) }) where remaining > limit / 2 {
            expectedRemoved.insert(path)
            remaining -= state.size
        }
        #expect(!expectedRemoved.isEmpty && expectedRemoved.count < before.count)

        let result = try fixture.run(["cache", "prune", "--size-limit", String(limit)])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.hasPrefix("removed \(expectedRemoved.count) entries"), "\(result.stdoutText)")
        let after = fixture.entries().filter { !$0.value.isFolder }
        #expect(Set(before.keys).subtracting(after.keys) == expectedRemoved)
        let afterTotal = after.values.reduce(0) { $0 + $1.size }
        #expect(afterTotal <= limit / 2)
        // It stopped as soon as it could: putting back the newest removed entry would be over half.
        let newestRemoved = expectedRemoved.max { before[$0]!.accessed < before[$1]!.accessed }!
        #expect(afterTotal + before[newestRemoved]!.size > limit / 2)
        #expect(after.values.map(\.accessed).min()! >= expectedRemoved.map { before[$0]!.accessed }.max()!)

        // Under the limit: nothing to do.
        let second = try fixture.run(["cache", "prune", "--size-limit", String(limit)])
        #expect(second.stdoutText.hasPrefix("removed 0 entries"))
        #expect(fixture.entries().filter { !$0.value.isFolder }.count == after.count)
    }

    @Test func cleanExpiredRemovesOnlyExpiredEntriesAndOldTemporaries() throws {
        let fixture = try CacheFixture(inProcess: true)
        try fixture.fetch("/img/sample.jpg", ["--ttl", "1s"])
        try fixture.fetch("/img/rgba.png")
        try fixture.fetch("/img/cogs.gif", ["--ttl", "never"])
        let shortLived = fixture.entries().filter { !$0.value.isFolder && $0.value.modified < Int64(Date().timeIntervalSince1970 + 60) }
        #expect(shortLived.count == 2)
        let temporary = fixture.cache + "/tmp/999999-1.tmp"
        #expect(FileManager.default.createFile(atPath: temporary, contents: Data("partial".utf8)))
        try fixture.passTime()

        let result = try fixture.run(["cache", "clean-expired"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.hasPrefix("removed 2 entries, "), "\(result.stdoutText)")
        let after = fixture.entries().filter { !$0.value.isFolder }
        #expect(after.count == 4)
        #expect(Set(after.keys).isDisjoint(with: shortLived.keys))
        #expect(FileManager.default.fileExists(atPath: temporary), "a young temporary must be left alone")
        // The emptied entry folder went with its entries.
        let folder = (shortLived.keys.first! as NSString).deletingLastPathComponent
        #expect(!FileManager.default.fileExists(atPath: fixture.cache + "/entries/" + folder))

        let old = try fixture.run(["cache", "clean-expired", "--temp-age", "0"])
        // Three downloads left no lock file behind: there are none to remove.
        #expect(old.stdoutText == "removed 0 entries, 0 B; 1 temporary, 7 B\n", "\(old.stdoutText)")
        #expect(!FileManager.default.fileExists(atPath: temporary))
        #expect(fixture.entries().filter { !$0.value.isFolder }.count == 4)
    }

    @Test func dryRunsChangeNothing() throws {
        let fixture = try CacheFixture(inProcess: true)
        try fixture.fetch("/img/sample.jpg", ["--ttl", "1s"])
        try fixture.fetch("/img/rgba.png", ["--resize", "10x10"])
        try fixture.fetch("/img/rgba.png")
        #expect(FileManager.default.createFile(atPath: fixture.cache + "/tmp/999999-2.tmp", contents: Data("x".utf8)))
        try fixture.passTime()
        let before = fixture.everything()
        let runs: [([String], String)] = [
            (["cache", "clean-expired", "--dry-run", "--temp-age", "0"], "would remove 2 entries"),
            (["cache", "prune", "--dry-run", "--size-limit", "1K"], "would remove 5 entries"),
            (["cache", "clear", "--dry-run"], "would remove 5 entries"),
            (["cache", "remove", "--dry-run", fixture.server.url("/img/rgba.png?v=2")], "would remove 3 entries"),
        ]
        for (arguments, expected) in runs {
            let result = try fixture.run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stdoutText.hasPrefix(expected), "\(arguments): \(result.stdoutText)")
            let after = fixture.everything()
            #expect(after == before, "\(arguments) changed: \(Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }.sorted())")
        }
    }

    @Test func removeTakesTheOriginalAndEveryVariant() throws {
        let fixture = try CacheFixture(inProcess: true)
        try fixture.fetch("/img/sample.jpg")
        try fixture.fetch("/img/sample.jpg", ["--resize", "30x30"])
        try fixture.fetch("/img/sample.jpg", ["--grayscale"])
        try fixture.fetch("/img/rgba.png")
        #expect(fixture.entries().filter { !$0.value.isFolder }.count == 6)
        let result = try fixture.run(["cache", "remove", fixture.server.url("/img/sample.jpg?sig=abc#frag")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdoutText.hasPrefix("removed 4 entries"), "\(result.stdoutText)")
        let left = fixture.entries().filter { !$0.value.isFolder }
        #expect(left.count == 2)
        let inspected = try fixture.inspectJSON([fixture.server.url("/img/sample.jpg")])
        #expect(inspected["entries"] as? Int == 0)
        #expect(try fixture.inspectJSON([fixture.server.url("/img/rgba.png")])["entries"] as? Int == 2)
        // Nothing left behind in tmp/ either.
        #expect(FileState.listing(fixture.cache + "/tmp").keys.allSatisfy { !$0.hasSuffix(".removing") })
    }

    @Test func inspectAndRemoveHonourKeepQueryAndCacheKey() throws {
        let fixture = try CacheFixture(inProcess: true)
        try fixture.fetch("/img/sample.jpg?v=1", ["--keep-query"])
        try fixture.fetch("/img/sample.jpg?v=2", ["--keep-query"])
        try fixture.fetch("/img/rgba.png", ["--cache-key", "my-key"])
        let url = fixture.server.url("/img/sample.jpg")
        #expect(try fixture.inspectJSON([url])["entries"] as? Int == 0, "without --keep-query the key has no query")
        #expect(try fixture.inspectJSON([url + "?v=1", "--keep-query"])["entries"] as? Int == 2)
        // --cache-key stands in the URL's place: given both (a URL unchecked, even), the URL was silently ignored.
        for command in ["inspect", "remove"] {
            for input in ["http://elsewhere/x.png", "ftp://x"] {
                let both = try fixture.run(["cache", command, input, "--cache-key", "my-key"])
                #expect(both.status == 2 && both.stderr.split(separator: "\n").count == 1, "\(both.stderr)")
                #expect(both.stderr.contains("takes a URL or --cache-key KEY, not both"), "\(both.stderr)")
            }
        }
        // A key needs no URL (it was ignored without one: the whole cache was shown); --keep-query keys no URL then.
        #expect(try fixture.inspectJSON(["--cache-key", "my-key"])["entries"] as? Int == 2)
        let keyless = try fixture.run(["cache", "inspect", "--keep-query"])
        #expect(keyless.status == 2 && keyless.stderr.contains("--keep-query changes how a URL is keyed"), "\(keyless.stderr)")
        let removed = try fixture.run(["cache", "remove", url + "?v=1", "--keep-query"])
        #expect(removed.stdoutText.hasPrefix("removed 2 entries"), "\(removed.stdoutText)")
        #expect(try fixture.inspectJSON([url + "?v=2", "--keep-query"])["entries"] as? Int == 2)
        #expect(try fixture.inspectJSON()["entries"] as? Int == 4)
        #expect(try fixture.run(["cache", "remove", "--cache-key", "my-key"]).stdoutText.hasPrefix("removed 2 entries"))
        #expect(try fixture.inspectJSON()["entries"] as? Int == 2)
    }

    @Test func verifyCatchesATruncatedEntryAndAFlippedByteAndRepairRemovesThem() throws {
        let fixture = try CacheFixture(inProcess: true)
        try fixture.fetch("/img/sample.jpg")
        try fixture.fetch("/img/rgba.png")
        let clean = try fixture.run(["cache", "verify"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(clean.stdoutText.contains("checked 4 entries"))

        let files = fixture.entries().filter { !$0.value.isFolder }.keys.sorted()
        let truncated = try fixture.cache + "/entries/" + #require(files.first { $0.hasSuffix("/original") })
        let flipped = try fixture.cache + "/entries/" + #require(files.first { $0.hasSuffix(".variant") })
        var info = stat()
        #expect(lstat(truncated, &info) == 0)
        #expect(truncate(truncated, info.st_size - 100) == 0)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: flipped))
        bytes[bytes.count - 10] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: flipped))

        let found = try fixture.run(["cache", "verify"])
        #expect(found.status == 8, "\(found.stderr)")
        #expect(found.stdoutText.contains(truncated) && found.stdoutText.contains("size mismatch"), "\(found.stdoutText)")
        #expect(found.stdoutText.contains(flipped) && found.stdoutText.contains("digest mismatch"), "\(found.stdoutText)")
        #expect(found.stderr.split(separator: "\n").count == 1)
        #expect(FileManager.default.fileExists(atPath: truncated), "verify without --repair removes nothing")

        let quiet = try fixture.run(["cache", "verify", "-q"])
        #expect(quiet.status == 8 && quiet.stdout.isEmpty)

        let repaired = try fixture.run(["cache", "verify", "--repair"])
        #expect(repaired.status == 0, "\(repaired.stderr)")
        #expect(!FileManager.default.fileExists(atPath: truncated) && !FileManager.default.fileExists(atPath: flipped))
        #expect(fixture.entries().filter { !$0.value.isFolder }.count == 2)
        #expect(try fixture.run(["cache", "verify"]).status == 0)
    }

    @Test func inspectJSONParsesAndItsTotalsAreTheSumOfItsItemsAndItTouchesNoAtime() throws {
        let fixture = try CacheFixture(inProcess: true)
        try fixture.fetch("/img/sample.jpg", ["--ttl", "1s"])
        try fixture.fetch("/img/sample.jpg", ["--resize", "40x40", "--ttl", "1s"])
        try fixture.fetch("/img/rgba.png")
        try fixture.fetch("/img/cogs.gif", ["--ttl", "never"])
        try fixture.passTime()
        let before = fixture.everything()
        let document = try fixture.inspectJSON(["--all", "--size-limit", "10M"])
        let items = try #require(document["items"] as? [[String: Any]])
        #expect(items.count == 7)
        #expect(document["entries"] as? Int == items.count)
        #expect(document["totalBytes"] as? Int == items.reduce(0) { $0 + ($1["size"] as? Int ?? 0) })
        #expect(document["totalBytes"] as? Int == Int(fixture.entries().values.reduce(0) { $0 + $1.size }))
        #expect(document["originals"] as? Int == items.filter { $0["kind"] as? String == "original" }.count)
        #expect(document["variants"] as? Int == items.filter { $0["kind"] as? String == "variant" }.count)
        #expect(document["originals"] as? Int == 3)
        #expect(document["expired"] as? Int == 3)
        #expect(document["expired"] as? Int == items.filter { $0["expired"] as? Bool == true }.count)
        #expect(document["sizeLimit"] as? Int == 10 << 20)
        let accesses = items.compactMap { $0["lastAccess"] as? Double }
        #expect(document["oldestAccess"] as? Double == accesses.min())
        #expect(document["newestAccess"] as? Double == accesses.max())
        #expect(accesses == accesses.sorted(by: >), "most recently used first")
        #expect(items.filter { $0["expires"] is NSNull }.count == 2, "cogs.gif never expires")
        for item in items {
            #expect(item["url"] is String && item["key"] is String && item["path"] is String && item["format"] is String)
            #expect((item["width"] as? Int ?? 0) > 0 && item["damaged"] as? Bool == false)
        }
        // A limit shows fewer items but the same totals.
        let limited = try fixture.inspectJSON(["--limit", "2"])
        #expect((limited["items"] as? [Any])?.count == 2 && limited["totalBytes"] as? Int == document["totalBytes"] as? Int)
        // The text form too; and nothing changed, atimes included.
        let text = try fixture.run(["cache", "inspect"])
        #expect(text.status == 0 && text.stdoutText.contains("entries        7 (3 originals, 4 variants)"), "\(text.stdoutText)")
        #expect(fixture.everything() == before, "inspect changed the cache")
    }
}

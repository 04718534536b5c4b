import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// Revalidation seen from the process that does it: a 304 renews the entries in place and starts no libvips.
@Suite("Revalidation through the binary")
struct RevalidationTests {
    @Test func anExpiredEntryWithAnETagCostsA304NotADownload() throws {
        let fixture = try CacheFixture()  // the binary: "libvips: not started" is a fact of its own process
        try fixture.fetch("/img/sample.jpg", ["--ttl", "1s"])
        let original = try #require(fixture.entries().first { $0.key.hasSuffix("/original") })
        let variant = try #require(fixture.entries().first { $0.key.hasSuffix(".variant") })
        try fixture.passTime()
        var before = stat(), variantBefore = stat()
        #expect(lstat(fixture.cache + "/entries/" + original.key, &before) == 0)
        #expect(lstat(fixture.cache + "/entries/" + variant.key, &variantBefore) == 0)
        let items = try fixture.inspectJSON(["--all"])["items"] as? [[String: Any]] ?? []
        #expect(items.filter { $0["kind"] as? String == "original" }.allSatisfy { $0["expired"] as? Bool == true })
        let again = try fixture.fetch("/img/sample.jpg", ["-v"])
        #expect(again.stderr.contains("revalidated"), "\(again.stderr)")
        #expect(try fixture.requests("/img/sample.jpg") == 2)
        // Renewed in place: the same file, its expiry now in the future by its own TTL.
        var after = stat()
        #expect(lstat(fixture.cache + "/entries/" + original.key, &after) == 0)
        #expect(after.st_ino == before.st_ino)
        #expect(EntryIO.seconds(after.st_mtim) > EntryIO.seconds(before.st_mtim) + 1)
        // The variant made from the unchanged original is served and renewed too, not made again.
        #expect(again.stderr.contains("libvips: not started"), "\(again.stderr)")
        var variantAfter = stat()
        #expect(lstat(fixture.cache + "/entries/" + variant.key, &variantAfter) == 0)
        #expect(variantAfter.st_ino == variantBefore.st_ino)
        #expect(EntryIO.seconds(variantAfter.st_mtim) > EntryIO.seconds(variantBefore.st_mtim) + 1)
    }

    /// A 304 that carries `Cache-Control: no-store` updates the stored headers (RFC 9111, 4.3.4): what was kept for
    /// the URL goes, and `-v` says why (it renewed both entries, which were served again on).
    @Test func a304SayingNoStoreRemovesWhatWasKept() throws {
        let fixture = try CacheFixture()
        try fixture.fetch("/img/sample.jpg", ["--ttl", "1s", "--cache-key", "k"])
        try fixture.passTime()
        let again = try fixture.fetch("/cache-control/no-store/sample.jpg", ["-v", "--cache-key", "k"])
        #expect(again.stderr.contains("revalidated") && again.stderr.contains(ImagePipeline.noStoreNote), "\(again.stderr)")
        #expect(try fixture.requests("/cache-control/no-store/sample.jpg") == 1)
        #expect(fixture.entries().filter { !$0.value.isFolder }.isEmpty, "\(fixture.entries())")
    }

    /// Entries removed while their original is revalidated (another process's `cache clean-expired`) are written
    /// again: the 304 renewed nothing, and the next run downloaded the whole image again.
    @Test func aRenewalWhoseEntriesWentWritesThemAgain() throws {
        let fixture = try CacheFixture()
        let path = "/delay/2/sample.jpg"
        try fixture.fetch(path, ["--ttl", "1s"])
        try fixture.passTime()
        let errors = try CapturedOutput()
        defer { errors.remove() }
        let process = try Imgfetch.launch(["fetch", fixture.server.url(path), "-o", fixture.home.file("renewed.png"),
                                           "-v", "--no-auto-clean", "--cache-dir", fixture.cache], errors: errors)
        // Once the revalidation is under way (the server holds it 2 s), the expired entries are cleaned away.
        let deadline = Date().addingTimeInterval(20)
        while try fixture.requests(path) < 2, Date() < deadline { usleep(20_000) }
        let cleaned = try fixture.run(["cache", "clean-expired"])
        #expect(cleaned.status == 0 && fixture.entries().filter { !$0.value.isFolder }.isEmpty, "\(cleaned.stdoutText)")
        process.waitUntilExit()
        let stderr = String(decoding: try errors.collect(), as: UTF8.self)
        #expect(process.terminationStatus == 0 && stderr.contains("revalidated"), "\(stderr)")
        #expect(fixture.entries().filter { !$0.value.isFolder }.count == 2, "the original and its variant kept again")
    }

    /// An original whose entry went while a 304 found it unchanged is written again with its variants left as they
    /// are: written as a new original, it took every other variant of it with it.
    @Test func aRenewedOriginalWrittenAgainKeepsItsOtherVariants() throws {
        let fixture = try CacheFixture()
        let path = "/delay/2/sample.jpg"
        try fixture.fetch(path, ["--ttl", "1s", "--resize", "20"])
        try fixture.fetch(path, ["--ttl", "1s", "--resize", "30"])
        try fixture.passTime()
        let original = try #require(fixture.entries().first { $0.key.hasSuffix("/original") }).key
        let process = try Imgfetch.launch(["fetch", fixture.server.url(path), "-o", fixture.home.file("again.png"),
                                           "--resize", "20", "--no-auto-clean", "--cache-dir", fixture.cache])
        let deadline = Date().addingTimeInterval(20)
        while try fixture.requests(path) < 2, Date() < deadline { usleep(20_000) }
        #expect(unlink(fixture.cache + "/entries/" + original) == 0)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let files = fixture.entries().filter { !$0.value.isFolder }
        #expect(files.count == 3 && files.keys.contains(original), "both variants kept, the original written again: \(files)")
    }
}

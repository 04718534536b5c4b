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
}

import Foundation
import Testing
@testable import ImgCore

/// A download spooled for the cache (over `EncodedBytes.memoryLimit`) becomes its cache entry in place: the spool
/// leaves room for the header before the body, and storing writes the header there and links the file in, so the
/// body is written once. Whatever cannot use the room (a second entry of the same bytes, a header too long for it)
/// is copied as before; every entry reads back whole.
@Suite("Spooled entries")
struct SpooledEntryTests {
    let work: TemporaryDirectory
    let cache: DiskCache

    init() throws {
        work = try TemporaryDirectory()
        cache = try DiskCache(directory: work.file("cache"))
    }

    func size(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    func bodyOf(_ path: String, key: String) -> Data? {
        guard case .fresh(_, let stored) = cache.lookup(at: path, key: key) else { return nil }
        return stored.data
    }

    @Test func aSpooledDownloadBecomesItsEntryAndASecondEntryOfItIsCopied() throws {
        let body = EntryFixtures.spoolableBody()
        let region = try EntryFixtures.spooled(body, for: cache)
        let original = cache.originalPath(originalKey: "k")
        try cache.store(.file(region), metadata: EntryFixtures.metadata(url: "u", key: "k", kind: .original, body: body), at: original)
        // The header filled the room the spool left: the entry is that file (a copy would be header + body).
        #expect(try size(original) == CacheEntryFile.headerRoom + body.count)
        #expect(bodyOf(original, key: "k") == body)
        // The bytes the pipeline goes on reading are still the body.
        #expect(EncodedBytes.file(region).data == body)

        // The same bytes stored again (a variant that is the source's own bytes) are copied: the room is taken.
        let variant = cache.variantPath(originalKey: "k", variantKey: "vk")
        try cache.store(.file(region), metadata: EntryFixtures.metadata(url: "u", key: "vk", kind: .variant, body: body), at: variant)
        #expect(try size(variant) < CacheEntryFile.headerRoom + body.count)
        #expect(bodyOf(variant, key: "vk") == body)
        #expect(bodyOf(original, key: "k") == body)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: work.file("cache/tmp"))) ?? []).isEmpty)
    }

    @Test func aHeaderTooLongForTheRoomIsWrittenWithACopyOfTheBody() throws {
        let body = EntryFixtures.spoolableBody()
        let region = try EntryFixtures.spooled(body, for: cache)
        let url = "http://127.0.0.1/" + String(repeating: "a", count: CacheEntryFile.headerRoom)
        let original = cache.originalPath(originalKey: url)
        try cache.store(.file(region), metadata: EntryFixtures.metadata(url: url, key: url, kind: .original, body: body), at: original)
        #expect(try size(original) > CacheEntryFile.headerRoom + body.count)
        #expect(bodyOf(original, key: url) == body)
    }

    @Test func aPaddedHeaderParsesAsTheOneItPads() throws {
        let metadata = EntryFixtures.metadata(url: "u", key: "k", kind: .original, body: Data("x".utf8))
        let padded = try #require(CacheEntryFile.encodeHeader(metadata, filling: 512))
        #expect(padded.count == 512)
        let parsed = try #require(CacheEntryFile.parseHeader(padded + Data("x".utf8)))
        #expect(parsed.0 == metadata && parsed.bodyOffset == 512)
        #expect(CacheEntryFile.encodeHeader(metadata, filling: 20) == nil)
    }
}

import Foundation
import Testing
@testable import ImgCore

/// Bodies, metadata and spooled downloads for tests of the cache's entry files (`SpooledEntryTests`,
/// `PageReleaseTests`).
enum EntryFixtures {
    /// `count` random bytes.
    static func randomBody(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// A body just over the memory limit: one a download spools to a file.
    static func spoolableBody() -> Data { randomBody(EncodedBytes.memoryLimit + 100_000) }

    /// Metadata for `body` stored under `key` as `kind`.
    static func metadata(url: String = "u", key: String, kind: CacheEntryMetadata.Kind = .original,
                         body: Data) -> CacheEntryMetadata {
        CacheEntryMetadata(url: url, key: key, variant: kind == .variant ? "v" : nil, kind: kind, size: body.count,
                           xxh3: Digest.integrity(body), format: "png", width: 1, height: 1, created: 1, ttl: nil,
                           etag: nil, lastModified: nil, contentType: nil)
    }

    /// Stores in `cache` an original of `bytes` bytes (all `fill`) for `url`, created at `created` (seconds since
    /// 1970; default now), last accessed at `accessed` (default now), kept an hour.
    static func storeOriginal(in cache: DiskCache, url: String, bytes: Int = 1000, fill: UInt8 = 0,
                              created: Double = Date().timeIntervalSince1970, accessed: Date = Date()) throws {
        let body = Data(repeating: fill, count: bytes)
        let metadata = CacheEntryMetadata(url: url, key: url, variant: nil, kind: .original, size: body.count,
                                          xxh3: Digest.integrity(body), format: "png", width: 1, height: 1,
                                          created: created, ttl: 3600)
        try cache.store(.memory(body), metadata: metadata, at: cache.originalPath(originalKey: url), now: accessed)
    }

    /// `body` spooled as a download for `cache` is (hashed, in the cache's tmp/, 16 KiB at a time as libcurl hands it
    /// over).
    static func spooled(_ body: Data, for cache: DiskCache) throws -> FileRegion {
        let spool = BodySpool(directory: cache.spoolDirectory, hashing: true)
        spool.expect(contentLength: Int64(body.count))
        for start in stride(from: 0, to: body.count, by: 16_384) {
            let piece = body[start..<min(body.count, start + 16_384)]
            #expect(piece.withUnsafeBytes { spool.append($0) })
        }
        guard case .file(let region) = try #require(spool.finish()) else { throw TestFailure("the body stayed in memory") }
        return region
    }
}

import Foundation
import Testing
@testable import ImgCore

/// `cache inspect` beside another process's prune or clear: an entry removed between the scan and the reading of its
/// header is gone, not damaged, and not counted; one really damaged still is.
@Suite("Inspecting a cache that is being emptied")
struct CacheInspectionTests {
    @Test func anEntryRemovedAfterTheScanIsNeitherListedNorCounted() throws {
        let work = try TemporaryDirectory()
        let cache = try DiskCache(directory: work.file("cache"))
        let urls = (1...4).map { "http://127.0.0.1/\($0).png" }
        for url in urls { try EntryFixtures.storeOriginal(in: cache, url: url, bytes: 1000) }
        let scan = CacheScan(root: cache.root)
        #expect(scan.entries.count == 4)
        // Another process removes one entry and damages another after the scan.
        try FileManager.default.removeItem(atPath: cache.originalPath(originalKey: urls[0]))
        try Data("not an entry".utf8).write(to: URL(fileURLWithPath: cache.originalPath(originalKey: urls[1])))
        let inspection = CacheInspector.inspect(scan, root: cache.root, limit: nil, sizeLimit: nil,
                                                now: Date().timeIntervalSince1970)
        #expect(inspection.items.count == 3, "\(inspection.items.map(\.path))")
        #expect(!inspection.items.contains { $0.path == cache.originalPath(originalKey: urls[0]) })
        #expect(inspection.items.filter(\.damaged).map(\.path) == [cache.originalPath(originalKey: urls[1])])
        #expect(inspection.summary.entries == 3 && inspection.summary.originals == 3)
        let listed = inspection.items.map(\.size).reduce(0, +)
        #expect(inspection.summary.totalBytes == listed, "\(inspection.summary.totalBytes) against \(listed)")
    }
}

import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCLI
@testable import ImgCore

/// CacheMaintenance in process: the rules that keep it safe beside fetchers and other cleaners.
@Suite("Cache maintenance beside other processes")
struct CacheMaintenanceTests {
    private func store(_ cache: DiskCache, url: String, bytes: Int = 1000, ttl: Int64? = 3600, now: Date = Date()) throws -> String {
        let body = Data(repeating: 7, count: bytes)
        let metadata = CacheEntryMetadata(url: url, key: url, variant: nil, kind: .original, size: body.count,
                                          xxh3: Digest.integrity(body), format: "png", width: 1, height: 1,
                                          created: now.timeIntervalSince1970, ttl: ttl)
        let path = cache.originalPath(originalKey: url)
        try cache.store(.memory(body), metadata: metadata, at: path, now: now)
        return path
    }

    @Test func largePrunesAndCleansRemoveExactlyTheRightEntriesOnSeveralThreads() throws {
        let home = try TemporaryDirectory()
        let cache = try DiskCache(directory: home.path)
        let base = Date(timeIntervalSinceNow: -100_000)
        var paths: [String] = []
        for index in 0..<2000 {
            // Entry i was last used at base + i seconds; the even ones expired long ago.
            let path = try store(cache, url: "http://h/\(index).png", ttl: index % 2 == 0 ? 1 : 1_000_000,
                                 now: base.addingTimeInterval(Double(index)))
            paths.append(path)
        }
        let entrySize = CacheScan(directory: home.path).entries[0].size
        let limit = entrySize * 1600
        let report = CacheMaintenance.prune(directory: home.path, sizeLimit: limit)
        let removed = report.entries
        #expect((1190...1200).contains(removed))
        #expect(paths.prefix(removed).allSatisfy { access($0, F_OK) != 0 }, "the least recently used go")
        #expect(paths.dropFirst(removed).allSatisfy { access($0, F_OK) == 0 }, "the others stay")
        let remaining = try #require(report.remainingBytes)
        #expect(remaining <= limit / 2 && remaining + entrySize > limit / 2)
        let cleaned = CacheMaintenance.cleanExpired(directory: home.path)
        #expect(cleaned.entries == (2000 - removed) / 2)
        #expect(paths.enumerated().dropFirst(removed).allSatisfy { index, path in (access(path, F_OK) == 0) == (index % 2 == 1) })
    }

    /// A prune over its limit holds no scan of the cache: it counts bytes by last access in fine buckets, removes what
    /// is older than the cut a batch at a time, and sorts only the bucket the cut falls in. What it removes is still
    /// exactly the least recently used (ties by path), in a dry run too, and a batch's prune lists no paths.
    @Test func aPruneOverItsLimitRemovesTheLeastRecentlyUsedWithoutHoldingTheCache() throws {
        let home = try TemporaryDirectory()
        let cache = try DiskCache(directory: home.path)
        let now = Date().timeIntervalSince1970
        var paths: [String] = []
        for index in 0..<300 {
            // 10 s apart around a day old, where a bucket is ~68 s wide: about seven entries share each bucket.
            let age = 100_000 - Double(index) * 10
            paths.append(try store(cache, url: "http://h/\(index).png", ttl: nil, now: Date(timeIntervalSince1970: now - age)))
        }
        let sizes = CacheScan(directory: home.path).entries.map(\.size)
        let total = sizes.reduce(0, +)
        let target = total * 37 / 100
        let planned = CacheMaintenance.prune(directory: home.path, sizeLimit: total - 1, target: target, dryRun: true,
                                             now: now, removalBatch: 7)
        #expect(planned.entries > 150 && planned.paths.count == planned.entries)
        let report = CacheMaintenance.prune(directory: home.path, sizeLimit: total - 1, target: target, listingPaths: false,
                                            now: now, removalBatch: 7)
        #expect(report.entries == planned.entries && report.bytes == planned.bytes && report.paths.isEmpty)
        #expect(paths.prefix(report.entries).allSatisfy { access($0, F_OK) != 0 }, "the least recently used go")
        #expect(paths.dropFirst(report.entries).allSatisfy { access($0, F_OK) == 0 }, "the others stay")
        let remaining = try #require(report.remainingBytes)
        #expect(remaining <= target && remaining + sizes.max()! > target)

        // Buckets grow with age and are fine: a minute wide for entries a day old; the cut frees what is asked.
        let ages = AccessAges(now: now)
        #expect(ages.bucket(of: now + 5) == 0 && ages.bucket(of: now - 0.5) == 0)
        #expect(ages.bucket(of: now - 86_400) > ages.bucket(of: now - 86_340))
        #expect(ages.bucket(of: now - 86_400) <= ages.bucket(of: now - 86_340) + 2)
        var counted = AccessAges(now: now)
        for (index, size) in [(10.0, Int64(5)), (1000, 7), (100_000, 11)] {
            counted.add(CacheEntryStat(folder: "f", name: "original", size: size, lastAccess: now - index, expires: 0, inode: 1))
        }
        #expect(counted.cut(freeing: 11) == counted.bucket(of: now - 100_000))
        #expect(counted.cut(freeing: 12) == counted.bucket(of: now - 1000))
        #expect(counted.cut(freeing: 100) == 0)
    }

    /// Clean and a prune's size check walk the cache one entry folder at a time (`CacheScan.visitFolders`), where each
    /// held a whole scan (~250 bytes an entry: 10 MB at the end of a 20,000-line batch, the most of its peak heap):
    /// each folder comes once with only its own entries, together the whole scan's; clean removes what expired in
    /// batches, and a prune of a cache within its limit, or one told it is over, finds the same total.
    @Test func cleanAndPruneWalkTheCacheOneFolderAtATime() throws {
        let home = try TemporaryDirectory()
        let cache = try DiskCache(directory: home.path)
        for index in 0..<40 {
            let expired = index % 4 == 0
            _ = try store(cache, url: "http://h/\(index).png", ttl: expired ? 1 : 1_000_000,
                          now: Date(timeIntervalSinceNow: expired ? -10 : 0))
        }
        // A variant beside the original of line 1, and an entry folder left empty.
        let body = Data(repeating: 3, count: 500)
        let variant = CacheEntryMetadata(url: "http://h/1.png", key: "http://h/1.png@v", variant: "v", kind: .variant,
                                         size: body.count, xxh3: Digest.integrity(body), format: "png", width: 1, height: 1,
                                         created: Date().timeIntervalSince1970, ttl: 3600)
        try cache.store(.memory(body), metadata: variant, at: cache.variantPath(originalKey: "http://h/1.png", variantKey: "http://h/1.png@v"))
        let empty = home.path + "/entries/" + DiskCache.entryFolder(originalKey: "http://h/gone.png")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)

        var visited: [String: [CacheEntryStat]] = [:]
        CacheScan.visitFolders(root: try CacheRoot.at(home.path)) { folder, contents in
            #expect(visited[folder] == nil, "\(folder) visited twice")
            #expect(contents.entries.allSatisfy { $0.folder == folder })
            #expect(contents.anything == !contents.entries.isEmpty)
            visited[folder] = contents.entries
        }
        let whole = CacheScan(directory: home.path)
        #expect(visited.count == 41 && visited.values.map(\.count).sorted().suffix(2) == [1, 2])
        #expect(Set(visited.values.joined().map { $0.path(in: home.path) }) == Set(whole.entries.map { $0.path(in: home.path) }))
        #expect(whole.emptyFolders == [DiskCache.entryFolder(originalKey: "http://h/gone.png")])

        let total = whole.entries.reduce(Int64(0)) { $0 + $1.size }
        let kept = CacheMaintenance.prune(directory: home.path, sizeLimit: total)
        #expect(kept.entries == 0 && kept.remainingBytes == total)
        let cleaned = CacheMaintenance.cleanExpired(directory: home.path, removalBatch: 3)
        #expect(cleaned.entries == 10 && cleaned.folders == 1 && cleaned.paths.count == 10)
        let left = CacheScan(directory: home.path)
        #expect(left.entries.count == 31 && left.entries.allSatisfy { !$0.isExpired(at: Date().timeIntervalSince1970) })
        #expect(access(empty, F_OK) != 0)
    }

    /// A prune's walks share the cache's `XX/` folders among threads (`CacheScan.visitFoldersConcurrently`): each
    /// folder reaches one thread once, the threads' parts taken in turn follow a one-thread walk's order, and a prune
    /// on four threads removes exactly what one on a single thread removes from an identical cache.
    @Test func aPruneSharesItsWalksAmongThreadsAndRemovesWhatOneThreadWould() throws {
        let now = Date().timeIntervalSince1970
        func filled() throws -> TemporaryDirectory {
            let home = try TemporaryDirectory()
            let cache = try DiskCache(directory: home.path)
            for index in 0..<400 {
                // Ages a few seconds apart around a day: several entries share a bucket, so the cut falls inside one.
                let age = 90_000 - Double(index % 200) * 7 - Double(index / 200)
                _ = try store(cache, url: "http://h/\(index).png", bytes: 500 + index, ttl: nil,
                              now: Date(timeIntervalSince1970: now - age))
            }
            return home
        }
        let one = try filled(), four = try filled()
        var order: [String] = []
        CacheScan.visitFolders(root: try CacheRoot.at(one.path)) { folder, _ in order.append(folder) }
        for threads in [1, 3, 8] {
            let parts = CacheScan.visitFoldersConcurrently(root: try CacheRoot.at(one.path), threads: threads, start: { [String]() }) { part, folder, contents in
                #expect(contents.entries.allSatisfy { $0.folder == folder })
                part.append(folder)
            }
            #expect(parts.count == threads, "\(threads) threads")
            #expect(Array(parts.joined()) == order, "\(threads) threads")
        }
        let total = CacheScan(directory: one.path).entries.reduce(Int64(0)) { $0 + $1.size }
        let target = total * 41 / 100
        let serial = CacheMaintenance.prune(directory: one.path, sizeLimit: total - 1, target: target, now: now,
                                            removalBatch: 7, walkThreads: 1)
        let shared = CacheMaintenance.prune(directory: four.path, sizeLimit: total - 1, target: target, now: now,
                                            removalBatch: 7, walkThreads: 4)
        #expect(serial.entries > 200 && serial.entries == shared.entries && serial.bytes == shared.bytes)
        #expect(serial.remainingBytes == shared.remainingBytes)
        let relative = { (report: CacheMaintenance.Report, home: TemporaryDirectory) in
            Set(report.paths.map { String($0.dropFirst(home.path.count)) })
        }
        #expect(relative(serial, one) == relative(shared, four))
        let left = { (home: TemporaryDirectory) in Set(CacheScan(directory: home.path).entries.map { $0.folder + "/" + $0.name }) }
        #expect(left(one) == left(four))
    }

    /// Stale lock files (left by killed processes) are removed as `locks/` is read, where its whole listing was held
    /// (2.2 MB of names at the end of a 20,000-line batch): old unheld ones go, a held one and a young one stay.
    @Test func staleLocksAreRemovedAsTheFolderIsRead() throws {
        let home = try TemporaryDirectory()
        _ = try DiskCache(directory: home.path)
        let old = Date().timeIntervalSince1970 - 7200
        var paths: [String] = []
        for index in 0..<300 {
            let path = home.path + "/locks/" + Digest.sha256("key \(index)") + ".lock"
            let descriptor = open(path, O_RDWR | O_CREAT, 0o600)
            var times = [EntryIO.timespecOf(old), EntryIO.timespecOf(index == 1 ? Date().timeIntervalSince1970 : old)]
            futimens(descriptor, &times)
            close(descriptor)
            paths.append(path)
        }
        let held = open(paths[0], O_RDWR)
        defer { close(held) }
        #expect(flock(held, LOCK_EX | LOCK_NB) == 0)
        #expect(KeyLock.removeStale(root: try CacheRoot.at(home.path), olderThan: 3600, dryRun: true).locks == 298)
        #expect(KeyLock.removeStale(root: try CacheRoot.at(home.path), olderThan: 3600, dryRun: false).locks == 298)
        #expect(paths.enumerated().allSatisfy { index, path in (access(path, F_OK) == 0) == (index < 2) })
    }

    /// A download lock is one byte of `locks/downloads`, at its key's offset: the same key is held against another
    /// open of the file (in this process as in another), another key is not, letting go frees it, and no file is
    /// made or removed per key (a batch left one lock file per download to make and remove).
    @Test func aDownloadLockIsAByteOfOneFileAndLeavesNoFilePerKey() throws {
        let home = try TemporaryDirectory()
        _ = try DiskCache(directory: home.path)
        var lock = KeyLock.acquire(root: try CacheRoot.at(home.path), key: "http://h/a.png", timeout: 1)
        #expect(lock != nil)
        #expect(KeyLock.acquire(root: try CacheRoot.at(home.path), key: "http://h/a.png", timeout: 0.05) == nil, "held")
        var other = KeyLock.acquire(root: try CacheRoot.at(home.path), key: "http://h/b.png", timeout: 0.05)
        #expect(other != nil, "another key is not held")
        lock = nil
        var next = KeyLock.acquire(root: try CacheRoot.at(home.path), key: "http://h/a.png", timeout: 0.05)
        #expect(next != nil, "let go")
        (next, other) = (nil, nil)
        let offsets = Set((0..<200).map { KeyLock.offset(of: "http://h/\($0).png") })
        #expect(offsets.count == 200 && offsets.allSatisfy { $0 >= 0 && $0 < 1 << 62 })
        for index in 0..<50 { #expect(KeyLock.acquire(root: try CacheRoot.at(home.path), key: "http://h/\(index).png", timeout: 1) != nil) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path + "/locks") == [KeyLock.fileName])
    }

    @Test func anEntryReplacedOrUsedSinceTheScanIsNotRemoved() throws {
        let home = try TemporaryDirectory()
        let cache = try DiskCache(directory: home.path)
        let path = try store(cache, url: "http://h/a.png", ttl: 1, now: Date(timeIntervalSinceNow: -10))
        let scanned = try #require(CacheScan(directory: home.path).entries.first)
        #expect(scanned.isExpired(at: Date().timeIntervalSince1970))
        // A fetcher publishes a fresh entry at the same path (a new inode): the stale decision must not delete it.
        _ = try store(cache, url: "http://h/a.png")
        #expect(CacheMaintenance.removeEntry(scanned, root: try CacheRoot.at(home.path)) { _, current in current.isExpired(at: Date().timeIntervalSince1970) } == .kept)
        #expect(access(path, F_OK) == 0)
        // A reader touches it after a prune's scan: no longer the least recently used, so kept.
        let rescanned = try #require(CacheScan(directory: home.path).entries.first)
        cache.touch(path, ttl: 3600, now: Date(timeIntervalSinceNow: 5))
        #expect(CacheMaintenance.removeEntry(rescanned, root: try CacheRoot.at(home.path)) { scanned, current in current.lastAccess == scanned.lastAccess } == .kept)
        #expect(access(path, F_OK) == 0)
        #expect(CacheMaintenance.removeEntry(rescanned, root: try CacheRoot.at(home.path)) { _, _ in true } == .removed)
        #expect(access(path, F_OK) != 0)
        #expect(access((path as NSString).deletingLastPathComponent, F_OK) != 0, "the emptied folder goes too")
    }

    @Test func autoCleanRunsWhenDueOnceAndNeverBesideAnotherCleaner() throws {
        let home = try TemporaryDirectory()
        let cache = try DiskCache(directory: home.path)
        _ = try store(cache, url: "http://h/old.png", ttl: 1, now: Date(timeIntervalSinceNow: -10))
        let marker = home.file("last-clean")

        // Another process holds the clean lock: we neither wait nor clean.
        let other = open(marker, O_RDWR | O_CREAT, 0o600)
        #expect(flock(other, LOCK_EX | LOCK_NB) == 0)
        #expect(CacheMaintenance.autoCleanIfDue(directory: home.path, settings: CacheSettings()) == nil)
        #expect(CacheScan(directory: home.path).entries.count == 1)
        close(other)

        let report = try #require(CacheMaintenance.autoCleanIfDue(directory: home.path, settings: CacheSettings()))
        #expect(report.entries == 1)
        #expect(CacheScan(directory: home.path).entries.isEmpty)
        // Within the hour: not due.
        _ = try store(cache, url: "http://h/old2.png", ttl: 1, now: Date(timeIntervalSinceNow: -10))
        #expect(CacheMaintenance.autoCleanIfDue(directory: home.path, settings: CacheSettings()) == nil)
        // An hour later, with a size limit: expired entries go, then a prune to half the limit.
        for index in 0..<4 { _ = try store(cache, url: "http://h/\(index).png", bytes: 10_000, ttl: nil) }
        let later = Date().timeIntervalSince1970 + CacheMaintenance.autoCleanInterval + 1
        let pruned = try #require(CacheMaintenance.autoCleanIfDue(directory: home.path, settings: CacheSettings(sizeLimit: 30_000),
                                                                  now: later))
        #expect(pruned.entries == 4, "one expired, then three pruned")
        let left = CacheScan(directory: home.path).summary()
        #expect(left.entries == 1 && left.totalBytes <= 15_000)
    }

    @Test func temporariesAreJudgedByTheirLastChangeNotTheirExpiry() throws {
        let home = try TemporaryDirectory()
        _ = try DiskCache(directory: home.path)
        // A temporary written just now carries its future expiry as mtime; its ctime says it is young.
        let now = Date().timeIntervalSince1970
        let written = home.path + "/" + (try EntryIO.writeTemporary(Data("x".utf8), in: try CacheRoot.at(home.path),
                                                                     accessed: now - 86_400 * 30, expires: now - 86_400 * 30))
        // Named as an ended process would have left it (this one's would be its work in progress).
        let temporary = home.path + "/tmp/\(try Imgfetch.endedProcessID())-1.tmp"; #expect(rename(written, temporary) == 0)
        #expect(CacheMaintenance.cleanExpired(directory: home.path).temporaries == 0)
        #expect(access(temporary, F_OK) == 0)
        #expect(CacheMaintenance.cleanExpired(directory: home.path, now: now + 3601).temporaries == 1)
        #expect(access(temporary, F_OK) != 0)
    }

    @Test func settingsPrecedenceAndTheConfigFile() throws {
        let home = try TemporaryDirectory()
        let root = try #require(try CacheRoot.open(home.path, create: true))
        try CacheSettings.writeConfig(root: root, checked: try CacheSettings.checkedAssignments(["size-limit=2M", "ttl=14d"]))
        let stored = try CacheSettingsChoice.resolve(directory: home.path, sizeLimitOption: nil, ttlOption: nil, environment: [:])
        #expect(stored.sizeLimit == 2 << 20 && stored.ttl == .seconds(14 * 86_400) && stored.ttlOrigin == .config)
        let environment = try CacheSettingsChoice.resolve(directory: home.path, sizeLimitOption: nil, ttlOption: nil,
                                                    environment: ["IMGFETCH_SIZE_LIMIT": "none", "IMGFETCH_TTL": "never"])
        #expect(environment.sizeLimit == nil && environment.ttl == .never && environment.sizeLimitOrigin == .environment)
        let option = try CacheSettingsChoice.resolve(directory: home.path, sizeLimitOption: "1G", ttlOption: "1h",
                                               environment: ["IMGFETCH_SIZE_LIMIT": "5M", "IMGFETCH_TTL": "2h"])
        #expect(option.sizeLimit == 1 << 30 && option.ttl == .seconds(3600) && option.ttlOrigin == .option)
        let defaults = try CacheSettingsChoice.resolve(directory: home.file("none"), sizeLimitOption: nil, ttlOption: nil, environment: [:])
        #expect(defaults == CacheSettings() && defaults.sizeLimit == CacheSettings.defaultSizeLimit && defaults.ttl == .seconds(7 * 86_400))
        #expect(throws: ImgError.usage("bad ttl '3w' in IMGFETCH_TTL: expected e.g. 30s, 15m, 12h, 7d or never")) {
            try CacheSettingsChoice.resolve(directory: home.path, sizeLimitOption: nil, ttlOption: nil, environment: ["IMGFETCH_TTL": "3w"])
        }
    }
}

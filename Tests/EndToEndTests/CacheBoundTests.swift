import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// The cache keeps to its size limit during a batch, not only at the next clean; it has a limit by default; local
/// originals are not copied into it; `cache inspect` shows how full it is and when it was last pruned.
@Suite("A cache that stays in bounds", .serialized)
struct CacheBoundTests {
    /// Every byte of the regular files below `path` (entries, temporaries, locks, config).
    static func bytesOnDisk(_ path: String) -> Int64 {
        var total: Int64 = 0
        for relative in (try? FileManager.default.subpathsOfDirectory(atPath: path)) ?? [] {
            var info = stat()
            if lstat(path + "/" + relative, &info) == 0, info.st_mode & S_IFMT == S_IFREG { total += Int64(info.st_size) }
        }
        return total
    }

    /// `fetch` stores no entry larger than the size limit allows (a tenth over it), as a batch does: the image and
    /// its result are written, the cache is left as it was, and a warning says why (the automatic clean, off here,
    /// prunes the rest at most once an hour).
    @Test func fetchStoresNoEntryLargerThanTheLimit() throws {
        let root = try TemporaryDirectory()
        let www = root.file("www"), cache = root.file("cache")
        try FileManager.default.createDirectory(atPath: www, withIntermediateDirectories: true)
        try StoredPNG.write(width: 260, height: 260, to: "\(www)/big.png")
        try StoredPNG.write(width: 20, height: 20, to: "\(www)/small.png")
        let server = try FixtureServer(root: www)
        let common = ["--cache-dir", cache, "--size-limit", "30K", "--no-auto-clean"]
        let big = try Imgfetch.run([server.url("/img/big.png"), "-o", root.file("big.webp")] + common)
        #expect(big.status == 0 && big.stderr.contains("caching failed: an entry of") && big.stderr.contains("is larger than the "
                                                                                                          + "cache's size limit"), "\(big.stderr)")
        #expect(FileManager.default.fileExists(atPath: root.file("big.webp")))
        #expect(Self.bytesOnDisk(cache + "/entries") < 30 << 10, "the original is not stored")
        let small = try Imgfetch.run([server.url("/img/small.png"), "-o", root.file("small.webp")] + common)
        #expect(small.status == 0 && small.stderr.isEmpty, "\(small.stderr)")
        #expect(Self.bytesOnDisk(cache + "/entries") > 0, "a small entry is stored")
    }

    /// The aim of issue 14 scaled down (400 photos of 1.16 MB into 60 MB: at most 80 MB at any moment, at most 60 MB
    /// at the end): 160 images of 30 KB (4.8 MB) into a 1.5 MB limit, the cache sampled while the batch runs.
    @Test func aBatchIntoASmallCacheNeverGoesFarOverItsLimitAndEndsUnderIt() throws {
        let root = try TemporaryDirectory()
        let www = root.file("www"), cache = root.file("cache")
        try FileManager.default.createDirectory(atPath: www, withIntermediateDirectories: true)
        let count = 160
        // Every 16th is larger than the slack (a tenth of the limit): it must wait for room, not go over.
        for index in 1...count {
            let side = index % 16 == 0 ? 260 : 100
            try StoredPNG.write(width: side, height: side, to: "\(www)/p\(index).png")
        }
        let server = try FixtureServer(root: www)
        let limit: Int64 = 1_500_000
        let peak = Atomic<Int64>(0), running = Atomic<Bool>(true), samples = Atomic<Int>(0)
        let sampler = Thread {
            while running.load(ordering: .acquiring) {
                let bytes = Self.bytesOnDisk(cache + "/entries")
                if bytes > peak.load(ordering: .relaxed) { peak.store(bytes, ordering: .relaxed) }
                samples.add(1, ordering: .relaxed)
                usleep(2_000)
            }
        }
        sampler.start()
        let list = root.file("list.txt")
        try ((1...count).map { server.url("/img/p\($0).png") }.joined(separator: "\n") + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let result = try Imgfetch.run(["batch", list, "-O", root.file("out"), "--cache-dir", cache, "--size-limit", String(limit),
                                       "--variant", "a=resize(20x)", "--variant", "b=resize(40x)", "-j", "4",
                                       "--no-progress", "--no-auto-clean"])
        running.store(false, ordering: .releasing)
        while !sampler.isFinished { usleep(1_000) }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.file("out")).count == count * 2)
        let final = Self.bytesOnDisk(cache)
        print("bounded batch: \(count) originals of \(Self.bytesOnDisk(www) / Int64(count)) bytes, limit \(limit), "
              + "peak \(peak.load(ordering: .relaxed)) over \(samples.load(ordering: .relaxed)) samples, final \(final)")
        #expect(samples.load(ordering: .relaxed) > 10)
        #expect(peak.load(ordering: .relaxed) <= limit + limit / 10, "peak \(peak.load(ordering: .relaxed))")
        #expect(final <= limit, "final \(final)")
        let inspect = try Imgfetch.run(["cache", "inspect", "--cache-dir", cache, "--size-limit", String(limit)])
        #expect(inspect.stdoutText.contains("of a 1.4 MiB size limit ("), "\(inspect.stdoutText)")
        #expect(!inspect.stdoutText.contains("last pruned    never"), "\(inspect.stdoutText)")
        let json = try #require(try JSONSerialization.jsonObject(with: try Imgfetch.run(["cache", "inspect", "--json", "--cache-dir", cache,
                                                                                       "--size-limit", String(limit)]).stdout) as? [String: Any])
        #expect(json["lastPruned"] is Double && json["fullPercent"] is Double && json["sizeLimit"] as? Int == Int(limit))
    }

    /// Writers that outpace a prune wait for it once the total with what they write would pass the limit plus a
    /// tenth, so a slow prune (a loaded machine, a huge cache) can't let a batch run far over its limit; they go on
    /// when it ends. The prune is held at its start (in `needed`, which each prune calls first) while a writer adds
    /// entries of a twentieth of the limit: 22 fit in 110% of it, never all 30.
    @Test func writersThatOutpaceAPruneWaitForIt() throws {
        let home = try TemporaryDirectory()
        _ = try DiskCache(directory: home.path)
        let limit: Int64 = 1_000_000
        let gate = DispatchSemaphore(value: 0)
        let bound = CacheBound(root: try CacheRoot.at(home.path), limit: limit) {
            gate.wait()
            gate.signal()
            return []
        }
        let written = Atomic<Int>(0)
        let writer = Thread {
            for _ in 0..<30 {
                try? bound.admit(limit / 20)
                bound.landed(limit / 20)
                written.add(1, ordering: .releasing)
            }
        }
        writer.start()
        while written.load(ordering: .acquiring) < 2 { usleep(1_000) }
        usleep(300_000)
        #expect(written.load(ordering: .acquiring) == 22, "writers go on within 110% of the limit, and no further")
        gate.signal()
        while !writer.isFinished { usleep(1_000) }
        #expect(written.load(ordering: .acquiring) == 30)
        bound.settle()
    }

    /// An entry larger than the slack is admitted only once a prune made room for it; one larger than the limit plus
    /// the slack is not stored at all.
    @Test func aLargeEntryWaitsForRoomAndAnOversizedOneIsRefused() throws {
        let home = try TemporaryDirectory()
        let cache = try DiskCache(directory: home.path)
        let limit: Int64 = 100_000
        cache.keepWithin(limit: limit) { [] as [String] }
        func store(_ index: Int, bytes: Int) throws(ImgError) {
            let body = Data(repeating: UInt8(index % 256), count: bytes)
            let url = "http://h/\(index).png"
            let metadata = CacheEntryMetadata(url: url, key: url, variant: nil, kind: .original, size: body.count,
                                              xxh3: Digest.integrity(body), format: "png", width: 1, height: 1,
                                              created: 0, ttl: 3600)
            try cache.store(.memory(body), metadata: metadata, at: cache.originalPath(originalKey: url))
        }
        for index in 0..<9 { try store(index, bytes: 10_000) }
        try store(100, bytes: 60_000)
        #expect(Self.bytesOnDisk(home.path + "/entries") <= limit + limit / 10)
        #expect(throws: ImgError.self) { try store(101, bytes: 120_000) }
        cache.settle()
        #expect(Self.bytesOnDisk(home.path + "/entries") <= limit)
    }

    @Test func theDefaultLimitIsShownAndNoneTurnsItOff() throws {
        let root = try TemporaryDirectory()
        let cache = root.file("cache")
        let config = try Imgfetch.run(["cache", "config", "--cache-dir", cache])
        #expect(config.stdoutText.contains("size-limit 1.0 GiB (default)"), "\(config.stdoutText)")
        let inspect = try Imgfetch.run(["cache", "inspect", "--cache-dir", cache])
        #expect(inspect.stdoutText.contains("of a 1.0 GiB size limit (0% full)"), "\(inspect.stdoutText)")
        #expect(inspect.stdoutText.contains("last pruned    never"), "\(inspect.stdoutText)")
        #expect(try Imgfetch.run(["cache", "config", "size-limit=none", "--cache-dir", cache]).status == 0)
        let off = try Imgfetch.run(["cache", "inspect", "--cache-dir", cache])
        #expect(off.stdoutText.contains("size limit none"), "\(off.stdoutText)")
        // A prune with no limit to prune to says which setting gave none.
        for (arguments, environment, says) in [([String](), [String: String](), "the cache's config sets none"),
                                               (["--size-limit", "none"], [:], "--size-limit none sets none"),
                                               ([], ["IMGFETCH_SIZE_LIMIT": "none"], "IMGFETCH_SIZE_LIMIT sets none")] {
            let prune = try Imgfetch.runInProcess(["cache", "prune", "--cache-dir", cache] + arguments, environment: environment)
            #expect(prune.status == 2 && prune.stderr.contains("cache prune needs a size limit and \(says): give --size-limit SIZE"),
                    "\(prune.stderr)")
        }
    }

    @Test func aLocalFilesOriginalIsNotCopiedIntoTheCacheOnlyItsVariant() throws {
        let root = try TemporaryDirectory()
        let cache = root.file("cache")
        let result = try Imgfetch.run([Paths.images + "/sample.jpg", "--resize", "50x", "-o", root.file("a.jpg"), "--cache-dir", cache])
        #expect(result.status == 0, "\(result.stderr)")
        let files = FileState.listing(cache + "/entries").filter { !$0.value.isFolder }.keys
        #expect(files.count == 1 && files.allSatisfy { $0.hasSuffix(".variant") }, "\(files)")
    }

    @Test func aPruneKeepsTheEntriesARunStillNeeds() throws {
        let home = try TemporaryDirectory()
        let cache = try DiskCache(directory: home.path)
        var folders: [String] = []
        // One creation time for all, so every entry's metadata (and so its size) is the same length.
        let created = Date().timeIntervalSince1970.rounded()
        for index in 0..<10 {
            let url = "http://h/\(index).png"
            try EntryFixtures.storeOriginal(in: cache, url: url, fill: UInt8(index), created: created,
                                            accessed: Date(timeIntervalSinceNow: Double(index - 100)))
            folders.append(DiskCache.entryFolder(originalKey: url))
        }
        let sizes = Set(CacheScan(directory: home.path).entries.map(\.size))
        #expect(sizes.count == 1, "entries of equal bodies differ in size: \(sizes)")
        let size = try #require(sizes.max())
        // The two least recently used are needed: the prune takes the next ones instead.
        let report = CacheMaintenance.prune(directory: home.path, sizeLimit: size * 5, target: size * 5, keeping: Set(folders.prefix(2)))
        #expect(report.entries == 5)
        let left = Set(CacheScan(directory: home.path).entries.map(\.folder))
        #expect(left == Set(folders.prefix(2) + folders.suffix(3)))
        #expect(CacheMaintenance.lastPrune(root: try CacheRoot.at(home.path)) != nil)
    }

    /// Prunes of one cache run one at a time, whichever process runs them: a prune waits while another holds the
    /// prune lock, and then its own scan decides (two at once removed far past the target and reported a total that
    /// was not on the disk).
    @Test func prunesOfOneCacheRunOneAtATime() throws {
        let home = try TemporaryDirectory()
        let cache = try DiskCache(directory: home.path)
        for index in 0..<6 {
            try EntryFixtures.storeOriginal(in: cache, url: "http://h/\(index).png", fill: UInt8(index),
                                            accessed: Date(timeIntervalSinceNow: Double(index - 100)))
        }
        let held = open(home.file("locks/\(CacheMaintenance.pruneLockName)"), O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        #expect(held >= 0 && flock(held, LOCK_EX) == 0)
        let report = Locked<CacheMaintenance.Report?>(nil)
        let done = startThreads(1) { _ in
            let pruned = CacheMaintenance.prune(directory: home.path, sizeLimit: 4000)
            report.withLock { $0 = pruned }
        }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(report.withLock { $0 } == nil, "the prune went on while another held the lock")
        #expect(CacheScan(directory: home.path).entries.count == 6)
        close(held)
        done.wait()
        let remaining = CacheScan(directory: home.path).entries.reduce(Int64(0)) { $0 + $1.size }
        #expect(report.withLock { $0?.remainingBytes } == remaining)
        #expect(remaining <= 2000 && remaining > 0)
    }
}

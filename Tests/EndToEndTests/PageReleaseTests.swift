import Foundation
import Synchronization
import Testing
@testable import ImgCore

/// A batch writes its originals once, at scale, and does not read them again soon: large entries leave the page cache
/// as they are stored (written out, then dropped), rather than filling memory with pages nobody reads. A fetch leaves
/// them to the kernel (the next fetch of another size reads the original again). Residency is read with mincore(2).
@Suite("Page cache release of a batch's large entries")
struct PageReleaseTests {
    let work: TemporaryDirectory

    init() throws {
        work = try TemporaryDirectory()
    }

    /// How many of the file's pages are in the page cache, and how many it has.
    static func residentPages(_ path: String) throws -> (resident: Int, total: Int) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw TestFailure("cannot open \(path)") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size > 0 else { throw TestFailure("cannot stat \(path)") }
        let size = Int(status.st_size)
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let pages = (size + page - 1) / page
        guard let map = mmap(nil, size, PROT_READ, MAP_SHARED, descriptor, 0), map != MAP_FAILED else {
            throw TestFailure("cannot map \(path)")
        }
        defer { munmap(map, size) }
        var vector = [UInt8](repeating: 0, count: pages)
        guard mincore(map, size, &vector) == 0 else { throw TestFailure("mincore failed on \(path)") }
        return (vector.filter { $0 & 1 != 0 }.count, pages)
    }

    @Test func aLargeEntryLeavesThePageCacheOnlyWhenTheCacheIsToldTo() throws {
        let body = EntryFixtures.randomBody(1 << 20)
        let kept = try DiskCache(directory: work.file("kept"))
        let keptPath = kept.originalPath(originalKey: "k")
        try kept.store(.memory(body), metadata: EntryFixtures.metadata(key: "k", body: body), at: keptPath)
        let left = try Self.residentPages(keptPath)
        #expect(left.resident == left.total)

        let released = try DiskCache(directory: work.file("released"))
        released.releasePagesOfLargeEntries()
        let releasedPath = released.originalPath(originalKey: "k")
        try released.store(.memory(body), metadata: EntryFixtures.metadata(key: "k", body: body), at: releasedPath)
        released.settle()
        #expect(try Self.residentPages(releasedPath).resident == 0)
        // Still whole: it reads back (and reading brings its pages back).
        guard case .fresh(_, let stored) = released.lookup(at: releasedPath, key: "k") else {
            throw TestFailure("the released entry does not read back")
        }
        #expect(stored.data == body)
    }

    @Test func aSmallEntryStaysInThePageCache() throws {
        let body = EntryFixtures.randomBody(DiskCache.pageReleaseSize - 1)
        let cache = try DiskCache(directory: work.file("cache"))
        cache.releasePagesOfLargeEntries()
        let path = cache.originalPath(originalKey: "k")
        try cache.store(.memory(body), metadata: EntryFixtures.metadata(key: "k", body: body), at: path)
        let pages = try Self.residentPages(path)
        #expect(pages.resident == pages.total)
    }

    /// A spooled download that became its entry is still read by its rendering: its pages go once it is done with.
    @Test func aSpooledEntryLeavesThePageCacheWhenItsRegionCloses() throws {
        let cache = try DiskCache(directory: work.file("cache"))
        cache.releasePagesOfLargeEntries()
        let body = EntryFixtures.spoolableBody()
        let path = cache.originalPath(originalKey: "k")
        do {
            let region = try EntryFixtures.spooled(body, for: cache)
            try cache.store(.file(region), metadata: EntryFixtures.metadata(key: "k", body: body), at: path)
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int == CacheEntryFile.headerRoom + body.count)
            let open = try Self.residentPages(path)
            #expect(open.resident == open.total)
            #expect(EncodedBytes.file(region).data == body)
        }
        cache.settle()
        #expect(try Self.residentPages(path).resident == 0)
    }

    /// The release runs on the releaser's thread, not the writer's: a file given to it returns at once however long
    /// its release takes, and once `capacity` files wait, the next ones are closed at once (their pages left to the
    /// kernel), so a slow disk holds neither the batch nor its descriptors; a drain that gives up leaves the rest to be
    /// closed only.
    @Test func pagesAreReleasedOffTheWritersThreadAndAtMostCapacityFilesWait() throws {
        let gate = DispatchSemaphore(value: 0)
        let released = Atomic<Int>(0)
        let releaser = PageReleaser { _ in
            gate.wait()
            released.add(1, ordering: .relaxed)
        }
        // Each file is one end of a socket pair: the other end sees the end of the stream once it is closed (robust
        // against the descriptor's number being reused meanwhile by another test; close-on-exec from the start, so
        // no process another test starts holds a copy).
        var readEnds: [Int32] = []
        defer { readEnds.forEach { close($0) } }
        for _ in 0..<(PageReleaser.capacity + 6) {
            var ends: [Int32] = [0, 0]
            let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
            try #require(socketpair(AF_UNIX, type, 0, &ends) == 0)
            readEnds.append(ends[0])
            releaser.release(ends[1])
        }
        let isClosed = { (readEnd: Int32) -> Bool in
            var byte: UInt8 = 0
            return read(readEnd, &byte, 1) == 0
        }
        // All given while the first release is held: the first `capacity` wait, open; the rest were closed.
        #expect(readEnds.prefix(PageReleaser.capacity).allSatisfy { !isClosed($0) })
        #expect(readEnds.dropFirst(PageReleaser.capacity).allSatisfy(isClosed))
        #expect(released.load(ordering: .relaxed) == 0)
        // A drain that gives up (the end of a batch on a slow disk) leaves the files still waiting only to be closed.
        releaser.drain(waitingAtMost: 0.05)
        gate.signal()
        releaser.drain(waitingAtMost: 60)
        #expect(released.load(ordering: .relaxed) == 1)
        #expect(readEnds.allSatisfy(isClosed))
    }

    /// From the command line: `batch` releases its originals' pages, `fetch` keeps them.
    @Test func aBatchReleasesItsOriginalsAndAFetchKeepsThem() throws {
        let www = work.file("www")
        try FileManager.default.createDirectory(atPath: www, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Paths.images + "/sample.png", toPath: www + "/big.png")
        let server = try FixtureServer(root: www)
        let url = server.url("/img/big.png")
        let list = work.file("list.txt")
        try (url + "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let batchCache = work.file("batch-cache")
        let batch = try Imgfetch.run(["batch", list, "-O", work.file("out"), "--cache-dir", batchCache, "--no-progress",
                                      "--resize", "32x32"])
        #expect(batch.status == 0, "\(batch.stderr)")
        let fetchCache = work.file("fetch-cache")
        let fetch = try Imgfetch.run([url, "--resize", "32x32", "-o", work.file("one.png"), "--cache-dir", fetchCache])
        #expect(fetch.status == 0, "\(fetch.stderr)")
        let parsed = try #require(URL(string: url))
        let key = try #require(CacheKey.original(for: parsed))
        let batchEntry = try Self.residentPages(try DiskCache(directory: batchCache).originalPath(originalKey: key))
        let fetchEntry = try Self.residentPages(try DiskCache(directory: fetchCache).originalPath(originalKey: key))
        #expect(batchEntry.total > 1 && batchEntry.resident == 0)
        #expect(fetchEntry.resident == fetchEntry.total)
    }
}

import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// SIGINT and SIGTERM stop `cache clean-expired`, `prune` and `clear` between entries: what was removed until then
/// is reported as removed, and the command says it was interrupted (before, the signal ended the process at once
/// and a cron job's log had no word of what went).
@Suite("Interrupted cache upkeep")
struct InterruptedUpkeepTests {
    /// `count` originals of 1,000 bytes in a cache at `home`, accessed `apart` seconds apart (default 1), none
    /// expired.
    func fill(_ home: TemporaryDirectory, count: Int, apart: Double = 1) throws {
        let cache = try DiskCache(directory: home.path)
        let start = Date()
        for index in 0..<count {
            try EntryFixtures.storeOriginal(in: cache, url: "http://h/\(index).png", fill: UInt8(index % 251),
                                            accessed: start.addingTimeInterval(-100 + apart * Double(index - count)))
        }
    }

    /// A prune waiting for another's lock is stopped by SIGINT at once (it waited until the lock was free): exit
    /// 130, one line on stderr, a JSON report of nothing removed and `interrupted` true. One signal, sent as soon as
    /// the prune waits, is enough every time (with libdispatch's signal sources, armed later on its manager thread, a
    /// prune of this test once waited on after its one SIGINT, in a loaded run of the whole suite).
    @Test func aPruneWaitingForTheLockStopsAtTheSignal() throws {
        let home = try TemporaryDirectory()
        try fill(home, count: 6)
        let held = open(home.file("locks/\(CacheMaintenance.pruneLockName)"), O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        defer { close(held) }
        #expect(held >= 0 && flock(held, LOCK_EX) == 0)
        for round in 0..<10 {
            let errors = try CapturedOutput(), output = home.file("report-\(round).json")
            defer { errors.remove() }
            let process = try Imgfetch.launch(["cache", "prune", "--cache-dir", home.path, "--size-limit", "4000",
                                               "--json"], output: output, errors: errors)
            try waitUntil(process, holdsOpen: "locks/\(CacheMaintenance.pruneLockName)")
            kill(process.processIdentifier, SIGINT)
            try waitForEnd(of: process)
            let stderr = String(decoding: try errors.collect(), as: UTF8.self)
            #expect(process.terminationStatus == 130, "round \(round): \(stderr)")
            #expect(stderr == "imgfetch: interrupted by SIGINT\n")
            let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output)))
            let fields = try #require(report as? [String: Any])
            #expect(fields["interrupted"] as? Bool == true && fields["entries"] as? Int == 0)
        }
        #expect(CacheScan(directory: home.path).entries.count == 6)
    }

    /// Stopped in the middle of its removals, a prune reports exactly the entries that are gone, and the total
    /// left is what the disk holds: entries accessed a second apart (removed as older than the cut), and entries all
    /// accessed at once (all in the cut's bucket, removed after the walk).
    @Test(arguments: [1.0, 0.0])
    func aPruneStoppedMidwayReportsWhatIsGone(apart: Double) throws {
        let home = try TemporaryDirectory()
        try fill(home, count: 3000, apart: apart)
        let root = try CacheRoot.at(home.path)
        let scanned = CacheScan(directory: home.path).entries
        let before = scanned.reduce(Int64(0)) { $0 + $1.size }
        // One thread, one entry a batch: the walk's first entry (the scan's order) is the first removed; of entries
        // all in the cut's bucket, the first by path.
        let firstRemoved = apart > 0 ? scanned.first : scanned.min { ($0.folder, $0.name) < ($1.folder, $1.name) }
        let first = home.path + "/" + (try #require(firstRemoved)).relativeName
        let stop = Cancellation()
        let watcher = startThreads(1) { _ in
            let deadline = Date() + 10
            while FileManager.default.fileExists(atPath: first), Date() < deadline { usleep(100) }
            stop.cancel(signal: SIGTERM)
        }
        let report = CacheMaintenance.prune(root: root, sizeLimit: 100_000, target: 0, removalBatch: 1,
                                            walkThreads: 1, stop: stop)
        watcher.wait()
        let left = CacheScan(directory: home.path).entries
        #expect(report.interrupted)
        let leftBytes = left.reduce(Int64(0)) { $0 + $1.size }
        #expect(report.entries == 3000 - left.count && report.bytes == before - leftBytes)
        #expect(report.entries > 0 && !left.isEmpty, "stopped midway: \(report.entries) removed")
        #expect(report.remainingBytes == leftBytes)
    }

    /// `clean-expired` and `clear` stopped before they start remove nothing and say so.
    @Test func cleanAndClearStoppedRemoveNothingAndSaySo() throws {
        let home = try TemporaryDirectory()
        try fill(home, count: 5)
        let root = try CacheRoot.at(home.path)
        let stop = Cancellation()
        stop.cancel(signal: SIGINT)
        let cleaned = CacheMaintenance.cleanExpired(root: root, tempAge: 0, now: Date().timeIntervalSince1970 + 7200,
                                                    stop: stop)
        let cleared = CacheMaintenance.clear(root: root, stop: stop)
        #expect(cleaned.interrupted && cleaned.entries == 0 && cleared.interrupted && cleared.entries == 0)
        #expect(CacheScan(directory: home.path).entries.count == 5)
        let whole = CacheMaintenance.cleanExpired(root: root, tempAge: 0, now: Date().timeIntervalSince1970 + 7200)
        #expect(!whole.interrupted && whole.entries == 5)
    }

    /// Waits at most 10 s for `process` to end; then kills it and fails.
    func waitForEnd(of process: Process) throws {
        for _ in 0..<1000 where process.isRunning { usleep(10_000) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw TestFailure("the prune went on waiting for the lock after SIGINT")
        }
        process.waitUntilExit()
    }

    /// Waits (at most 10 s) until `process` has the cache file `relative` open: it then watches its signals.
    func waitUntil(_ process: Process, holdsOpen relative: String) throws {
        let folder = "/proc/\(process.processIdentifier)/fd"
        for _ in 0..<20_000 where process.isRunning {
            let targets = (try? FileManager.default.contentsOfDirectory(atPath: folder))?.compactMap {
                try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/\($0)")
            } ?? []
            if targets.contains(where: { $0.hasSuffix("/" + relative) }) { return }
            usleep(500)
        }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        throw TestFailure("the prune never opened \(relative)")
    }
}

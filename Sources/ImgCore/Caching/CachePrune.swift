import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension CacheMaintenance {
    // MARK: prune

    /// When the entries' total is over `sizeLimit`, removes the least recently accessed entries until the total is
    /// at or below `target` (default half the limit: Kingfisher's rule). An entry accessed since the scan is kept
    /// (it is no longer the least recently used), and so is every entry in the folders `keeping` names (below
    /// `entries/`: what a running batch still needs). A prune that removed something records its time in
    /// `DIR/last-prune` (for `cache inspect`).
    ///
    /// Memory stays flat in the number of entries. A first walk of the cache, folder by folder, sums it and counts
    /// bytes by last access (`AccessAges`); only when over the limit, a second walk removes every entry older than
    /// the cut, `removalBatch` at a time, and holds only the entries of the one bucket the cut falls in, to take the
    /// oldest of those. It walks again (twice at most) when entries accessed meanwhile left the total over the target,
    /// but not after a removal failed (a folder it may not change): the next walk would find those entries oldest
    /// again, and fail on them again; the total it reports counts them, and a dry run (which forecasts each
    /// removal: `removeEntry`) says the same.
    /// Each walk shares the cache's `XX/` folders among `walkThreads` threads (default: the cores, at most 4), each
    /// with counts, removals and a bucket of its own, merged in folder order.
    /// `listingPaths` (default true): the report lists the removed paths (for `-v` and `--json`). When most entries
    /// share the cut's bucket (a cache filled within a minute or so), that bucket is held whole, as a scan was.
    /// Prunes of one cache run one at a time, across processes (`withPruneLock`). Once `stop` (default none) is
    /// cancelled, the batches begun are removed and nothing more (`interrupted`); the remaining total is then known
    /// only when the stop came after a whole walk had summed it.
    public static func prune(root: CacheRoot, sizeLimit: Int64, target: Int64? = nil, keeping: Set<String> = [],
                             dryRun: Bool = false, listingPaths: Bool = true,
                             now: Double = Date().timeIntervalSince1970, removalBatch: Int = CacheMaintenance.removalBatch,
                             walkThreads: Int = CacheScan.defaultWalkThreads, stop: Cancellation? = nil) -> Report {
        withPruneLock(root: root, unless: dryRun, stop: stop) {
            pruneHoldingTheLock(root: root, sizeLimit: sizeLimit, target: target ?? sizeLimit / 2, keeping: keeping,
                                dryRun: dryRun, listingPaths: listingPaths, now: now, removalBatch: removalBatch,
                                walkThreads: walkThreads, stop: stop)
        }
    }

    /// Runs `body` holding the cache's prune lock, an exclusive `flock` on `locks/prune` (waited for), unless
    /// `dryRun`: two prunes at once each removed what they had planned from the same scan, together far past the
    /// target, and said a total that was not on the disk. The next prune's scan sees what the last one removed.
    /// A lock that can't be opened (no `locks/` folder) is gone without. With a `stop`, the lock is tried every 20 ms
    /// and a stop while waiting ends the wait: nothing is done (`interrupted`); without one, the wait blocks.
    private static func withPruneLock(root: CacheRoot, unless dryRun: Bool, stop: Cancellation?,
                                      _ body: () -> Report) -> Report {
        let descriptor = dryRun ? -1 : root.openFile("locks/\(pruneLockName)", O_RDWR | O_CREAT)
        defer { if descriptor >= 0 { close(descriptor) } }
        let waiting = stop == nil ? LOCK_EX : LOCK_EX | LOCK_NB
        while descriptor >= 0, flock(descriptor, waiting) != 0, errno == EWOULDBLOCK || errno == EINTR {
            if let stop, stop.isCancelled { return interrupted(Report(), remaining: nil, root: root, dryRun: dryRun) }
            if errno == EWOULDBLOCK { usleep(lockPollMicroseconds) }
        }
        return body()
    }

    /// How often a prune waiting for another's lock tries it again: every 20 ms.
    static let lockPollMicroseconds: UInt32 = 20_000

    /// The file in `locks/` whose lock a prune holds.
    static let pruneLockName = "prune"

    private static func pruneHoldingTheLock(root: CacheRoot, sizeLimit: Int64, target: Int64, keeping: Set<String>,
                                            dryRun: Bool, listingPaths: Bool, now: Double, removalBatch: Int,
                                            walkThreads: Int, stop: Cancellation?) -> Report {
        var report = Report()
        var total: Int64 = 0
        for walk in 0..<3 {
            let ages: AccessAges
            (total, ages) = sizesAndAges(root: root, keeping: keeping, now: now, walkThreads: walkThreads, stop: stop)
            if stop?.isCancelled == true { return interrupted(report, remaining: nil, root: root, dryRun: dryRun) }
            guard total > (walk == 0 ? sizeLimit : target) else { break }
            let cut = ages.cut(freeing: total - target)
            let removal = PruneRemoval(root: root, dryRun: dryRun, listingPaths: listingPaths, stop: stop)
            let passes = CacheScan.visitFoldersConcurrently(root: root, threads: walkThreads, stop: stop,
                                                            start: { removal }) { pass, folder, contents in
                guard keeping.isEmpty || !keeping.contains(folder) else { return }
                for entry in contents.entries {
                    let bucket = ages.bucket(of: entry.lastAccess)
                    if bucket > cut { pass.doomed.append(entry) } else if bucket == cut { pass.boundary.append(entry) }
                }
                if pass.doomed.count >= max(1, removalBatch) { pass.removeDoomed() }
            }
            var removedInWalk = 0
            var boundary: [CacheEntryStat] = []
            for var pass in passes {
                pass.removeDoomed()
                report.absorb(pass.report)
                total -= pass.report.bytes
                removedInWalk += pass.report.entries
                boundary += pass.boundary
            }
            if stop?.isCancelled == true { return interrupted(report, remaining: total, root: root, dryRun: dryRun) }
            // Of the cut's bucket, the least recently used until the total would be at the target; ties by path.
            boundary.sort { a, b in a.lastAccess != b.lastAccess ? a.lastAccess < b.lastAccess : (a.folder, a.name) < (b.folder, b.name) }
            var planned = total
            var taken: [CacheEntryStat] = []
            for entry in boundary where planned > target {
                taken.append(entry)
                planned -= entry.size
            }
            let last = removeEntries(taken, root: root, dryRun: dryRun, listingPaths: listingPaths,
                                     stillDoomed: unlessStopped(stop, sameAccess))
            report.absorb(last)
            total -= last.bytes
            removedInWalk += last.entries
            if stop?.isCancelled == true { return interrupted(report, remaining: total, root: root, dryRun: dryRun) }
            if dryRun || total <= target || removedInWalk == 0 || !report.failures.isEmpty { break }
        }
        report.remainingBytes = total
        if !dryRun, report.entries > 0 { recordPrune(root: root) }
        return report
    }

    /// `report` of a prune stopped before it was done, with the total left (nil: not summed since the last removal),
    /// its time recorded when it removed something.
    private static func interrupted(_ report: Report, remaining: Int64?, root: CacheRoot, dryRun: Bool) -> Report {
        var report = report
        report.interrupted = true
        report.remainingBytes = remaining
        if !dryRun, report.entries > 0 { recordPrune(root: root) }
        return report
    }

    /// One walk of the cache: the size of all its entries, and the last accesses of those not in `keeping`'s folders.
    private static func sizesAndAges(root: CacheRoot, keeping: Set<String>, now: Double, walkThreads: Int,
                                     stop: Cancellation?) -> (total: Int64, ages: AccessAges) {
        let sums = CacheScan.visitFoldersConcurrently(root: root, threads: walkThreads, stop: stop,
                                                      start: { PruneSum(ages: AccessAges(now: now)) }) { sum, folder, contents in
            let counted = keeping.isEmpty || !keeping.contains(folder)
            for entry in contents.entries {
                sum.total += entry.size
                if counted { sum.ages.add(entry) }
            }
        }
        var merged = AccessAges(now: now)
        var total: Int64 = 0
        for sum in sums {
            total += sum.total
            merged.merge(sum.ages)
        }
        return (total, merged)
    }

    /// A prune removes an entry only while it has not been accessed since it was scanned.
    private static func sameAccess(_ scanned: CacheEntryStat, _ current: CacheEntryStat) -> Bool {
        current.lastAccess == scanned.lastAccess
    }

    /// What one thread of a prune's first walk counts: the bytes of every entry, and those it may remove by age.
    private struct PruneSum: Sendable {
        var total: Int64 = 0
        var ages: AccessAges
    }

    /// One thread's share of a prune's removal walk: the entries older than the cut waiting to be removed (at most
    /// `removalBatch`), those in the cut's bucket, and what it removed.
    private struct PruneRemoval: Sendable {
        let root: CacheRoot
        let dryRun: Bool
        let listingPaths: Bool
        let stop: Cancellation?
        var doomed: [CacheEntryStat] = []
        var boundary: [CacheEntryStat] = []
        var report = Report()

        init(root: CacheRoot, dryRun: Bool, listingPaths: Bool, stop: Cancellation?) {
            (self.root, self.dryRun, self.listingPaths, self.stop) = (root, dryRun, listingPaths, stop)
        }

        /// Removes the doomed entries on this thread (the walk's threads are the removal's), in order.
        mutating func removeDoomed() {
            report.absorb(removeEntries(doomed, root: root, dryRun: dryRun, listingPaths: listingPaths, threads: 1,
                                        stillDoomed: unlessStopped(stop, sameAccess)))
            doomed.removeAll(keepingCapacity: true)
        }
    }

    private static func recordPrune(root: CacheRoot, now: Double = Date().timeIntervalSince1970) {
        let descriptor = root.openFile("last-prune", O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK, mode: 0o600)
        guard descriptor >= 0 else { return }
        _ = "\(Int(now))\n".withCString { write(descriptor, $0, strlen($0)) }
        var times = [EntryIO.timespecOf(now), EntryIO.timespecOf(now)]
        futimens(descriptor, &times)
        close(descriptor)
    }

    /// When a prune last removed entries from the directory (the mtime of `DIR/last-prune`), seconds since 1970;
    /// nil if never.
    public static func lastPrune(root: CacheRoot) -> Double? {
        guard let info = root.status("last-prune"), info.st_mode & S_IFMT == S_IFREG else { return nil }
        return EntryIO.seconds(info.st_mtim)
    }

}

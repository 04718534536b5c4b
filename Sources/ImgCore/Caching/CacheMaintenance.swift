import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Keeps a cache directory in bounds while other processes use it: expired entries, old temporaries, stale locks,
/// pruning to 50% of the size limit, clearing, removing one URL. Decisions come from a `stat` of each file alone.
///
/// Running beside fetchers: an entry is unlinked only if the file at its path is still the one scanned (same inode)
/// and still qualifies (still expired; for prune, not accessed since the scan), checked just before the unlink.
/// Files being written live in `tmp/` until renamed into place, and temporaries younger than the temp age
/// (default 1 hour) are never touched, so nothing being written is deleted. A reader that has an entry open keeps
/// its whole file after an unlink.
public enum CacheMaintenance {
    /// How long a temporary (`tmp/*.tmp`, `tmp/*.removing`) or unheld lock file must be left alone; default 1 hour.
    public static let defaultTempAge: Double = 3600
    /// How often `fetch` and `batch` clean on their own; default once an hour.
    public static let autoCleanInterval: Double = 3600

    // MARK: clean-expired

    /// How many expired entries clean gathers before removing them (on a few threads): 4,096.
    public static let removalBatch = 4096

    /// Removes expired entries, temporaries and unheld lock files older than `tempAge` seconds, and empty entry folders.
    /// The cache is walked folder by folder (`CacheScan.visitFolders`) and the expired entries found are removed
    /// `removalBatch` at a time, so that memory stays flat whatever the number of entries.
    /// `listingPaths` (default true): the report lists the removed entries' paths (for `-v` and `--json`).
    public static func cleanExpired(directory: String, tempAge: Double = defaultTempAge, dryRun: Bool = false,
                                    listingPaths: Bool = true, now: Double = Date().timeIntervalSince1970,
                                    removalBatch: Int = CacheMaintenance.removalBatch) -> Report {
        var report = Report()
        var expired: [CacheEntryStat] = []
        func removeExpired() {
            report.absorb(removeEntries(expired, directory: directory, dryRun: dryRun, listingPaths: listingPaths) { _, current in
                current.isExpired(at: now)
            })
            expired.removeAll(keepingCapacity: true)
        }
        CacheScan.visitFolders(directory: directory) { folder, contents in
            if !contents.anything, dryRun || rmdir("\(directory)/entries/\(folder)") == 0 { report.folders += 1 }
            expired += contents.entries.filter { $0.isExpired(at: now) }
            if expired.count >= max(1, removalBatch) { removeExpired() }
        }
        removeExpired()
        removeTemporaries(directory: directory, olderThan: tempAge, dryRun: dryRun, now: now, into: &report)
        report.locks = KeyLock.removeStale(directory: directory, olderThan: tempAge, dryRun: dryRun)
        return report
    }

    /// Removes `tmp/PID-NONCE.tmp` files and `tmp/PID-NONCE.removing` folders (only the entries in them) whose last change (ctime: set by the final write
    /// or the rename that made them) is at least `age` seconds ago.
    static func removeTemporaries(directory: String, olderThan age: Double, dryRun: Bool, now: Double, into report: inout Report) {
        let folder = "\(directory)/tmp"
        for name in DirectoryListing.names(in: folder) where CacheNames.isTemporary(name) || CacheNames.isRemoval(name) {
            let path = "\(folder)/\(name)"
            var info = stat()
            guard lstat(path, &info) == 0, now - EntryIO.seconds(info.st_ctim) >= age else { continue }
            let isFolder = info.st_mode & S_IFMT == S_IFDIR
            // A temporary is a file, a removal a folder: anything else of those names isn't ours.
            guard isFolder ? CacheNames.isRemoval(name) : info.st_mode & S_IFMT == S_IFREG && CacheNames.isTemporary(name) else { continue }
            var bytes = Int64(info.st_size)
            if dryRun {
                if isFolder { bytes = treeBytes(path) }
            } else if isFolder {
                let removal = CacheNames.removeOwnTree(path, shownAs: path)
                report.failures += removal.failures
                bytes = removal.bytes
            } else if unlink(path) != 0 {
                report.failures.append(RemovalFailure(path: path, code: errno))
                continue
            }
            report.temporaries += 1
            report.temporaryBytes += bytes
            report.paths.append(path)
        }
    }

    private static func treeBytes(_ path: String) -> Int64 {
        var total: Int64 = 0
        for name in DirectoryListing.names(in: path) {
            var info = stat()
            let child = "\(path)/\(name)"
            guard lstat(child, &info) == 0 else { continue }
            total += info.st_mode & S_IFMT == S_IFDIR ? treeBytes(child) : Int64(info.st_size)
        }
        return total
    }

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
    /// oldest of those. It walks again (twice at most) when entries accessed meanwhile left the total over the target.
    /// Each walk shares the cache's `XX/` folders among `walkThreads` threads (default: the cores, at most 4), each
    /// with counts, removals and a bucket of its own, merged in folder order.
    /// `listingPaths` (default true): the report lists the removed paths (for `-v` and `--json`). When most entries
    /// share the cut's bucket (a cache filled within a minute or so), that bucket is held whole, as a scan was.
    public static func prune(directory: String, sizeLimit: Int64, target: Int64? = nil, keeping: Set<String> = [],
                             dryRun: Bool = false, listingPaths: Bool = true,
                             now: Double = Date().timeIntervalSince1970, removalBatch: Int = CacheMaintenance.removalBatch,
                             walkThreads: Int = CacheScan.defaultWalkThreads) -> Report {
        var report = Report()
        let target = target ?? sizeLimit / 2
        var total: Int64 = 0
        for walk in 0..<3 {
            let sums = CacheScan.visitFoldersConcurrently(directory: directory, threads: walkThreads,
                                                          start: { PruneSum(ages: AccessAges(now: now)) }) { sum, folder, contents in
                let counted = keeping.isEmpty || !keeping.contains(folder)
                for entry in contents.entries {
                    sum.total += entry.size
                    if counted { sum.ages.add(entry) }
                }
            }
            var merged = AccessAges(now: now)
            total = 0
            for sum in sums {
                total += sum.total
                merged.merge(sum.ages)
            }
            let ages = merged
            guard total > (walk == 0 ? sizeLimit : target) else { break }
            let cut = ages.cut(freeing: total - target)
            let removal = PruneRemoval(directory: directory, dryRun: dryRun, listingPaths: listingPaths)
            let passes = CacheScan.visitFoldersConcurrently(directory: directory, threads: walkThreads,
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
            // Of the cut's bucket, the least recently used until the total would be at the target; ties by path.
            boundary.sort { a, b in a.lastAccess != b.lastAccess ? a.lastAccess < b.lastAccess : (a.folder, a.name) < (b.folder, b.name) }
            var planned = total
            var taken: [CacheEntryStat] = []
            for entry in boundary where planned > target {
                taken.append(entry)
                planned -= entry.size
            }
            let last = removeEntries(taken, directory: directory, dryRun: dryRun, listingPaths: listingPaths, stillDoomed: sameAccess)
            report.absorb(last)
            total -= last.bytes
            removedInWalk += last.entries
            if dryRun || total <= target || removedInWalk == 0 { break }
        }
        report.remainingBytes = total
        if !dryRun, report.entries > 0 { recordPrune(directory: directory) }
        return report
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
        let directory: String
        let dryRun: Bool
        let listingPaths: Bool
        var doomed: [CacheEntryStat] = []
        var boundary: [CacheEntryStat] = []
        var report = Report()

        init(directory: String, dryRun: Bool, listingPaths: Bool) {
            (self.directory, self.dryRun, self.listingPaths) = (directory, dryRun, listingPaths)
        }

        /// Removes the doomed entries on this thread (the walk's threads are the removal's), in order.
        mutating func removeDoomed() {
            report.absorb(removeEntries(doomed, directory: directory, dryRun: dryRun, listingPaths: listingPaths, threads: 1,
                                        stillDoomed: sameAccess))
            doomed.removeAll(keepingCapacity: true)
        }
    }

    /// `DIR/last-prune`: its mtime is when a prune last removed entries.
    static func lastPruneMarker(_ directory: String) -> String { "\(directory)/last-prune" }

    private static func recordPrune(directory: String, now: Double = Date().timeIntervalSince1970) {
        let descriptor = open(lastPruneMarker(directory), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        _ = "\(Int(now))\n".withCString { write(descriptor, $0, strlen($0)) }
        var times = [EntryIO.timespecOf(now), EntryIO.timespecOf(now)]
        futimens(descriptor, &times)
        close(descriptor)
    }

    /// When a prune last removed entries from `directory`, seconds since 1970; nil if never.
    public static func lastPrune(directory: String) -> Double? {
        var info = stat()
        guard lstat(lastPruneMarker(directory), &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return EntryIO.seconds(info.st_mtim)
    }

    // MARK: clear and remove

    /// Removes every entry: `entries/` is renamed away in one step (so no reader sees half a cache), replaced by an
    /// empty folder, then its entries deleted; anything else found in it is put back.
    public static func clear(directory: String, dryRun: Bool = false) -> Report {
        var report = Report()
        let scan = CacheScan(directory: directory)
        if dryRun {
            for entry in scan.entries { record(entry, directory: directory, in: &report) }
            return report
        }
        let doomed = CacheNames.removal(in: directory)
        guard rename("\(directory)/entries", doomed) == 0 else {
            if errno != ENOENT { report.failures.append(RemovalFailure(path: "\(directory)/entries", code: errno)) }
            return report
        }
        mkdir("\(directory)/entries", 0o700)
        report.absorb(CacheNames.removeOwnTree(doomed, shownAs: "\(directory)/entries"))
        // Files that aren't entries, and entries that could not be removed, go back where they were.
        CacheNames.restore(doomed, into: "\(directory)/entries")
        return report
    }

    /// Removes the original of `originalKey` and all its variants together (`DiskCache.removeAll`).
    public static func remove(directory: String, originalKey: String, dryRun: Bool = false) throws(ImgError) -> Report {
        var report = Report()
        let folder = DiskCache.entryFolder(originalKey: originalKey)
        let scan = CacheScan(directory: directory, folder: folder)
        if dryRun { for entry in scan.entries { record(entry, directory: directory, in: &report) } }
        guard !dryRun, !scan.entries.isEmpty else { return report }
        var removal = Report()
        removal.absorb(try DiskCache(directory: directory).removeAll(originalKey: originalKey))
        return removal
    }

    // MARK: auto clean

    /// Cleans (expired entries, old temporaries and locks, and a prune when `settings` has a size limit) if the last
    /// clean of this directory, recorded as the mtime of `DIR/last-clean`, was at least `interval` seconds ago
    /// (default 1 hour). A non-blocking `flock` on that file makes sure only one process cleans at a time; the others
    /// return at once. Never fails: returns the report, or nil when nothing ran.
    @discardableResult
    public static func autoCleanIfDue(directory: String, settings: CacheSettings, interval: Double = autoCleanInterval,
                                      now: Double = Date().timeIntervalSince1970) -> Report? {
        let marker = "\(directory)/last-clean"
        var info = stat()
        // The fast path, one stat: a marker with a recorded run (not empty) that is recent enough.
        if stat(marker, &info) == 0, info.st_size > 0, now - EntryIO.seconds(info.st_mtim) < interval { return nil }
        guard (try? CacheDirectory.checkSafety(directory)) != nil else { return nil }
        let descriptor = open(marker, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return nil }
        // Someone may have finished a clean between our stat and our lock.
        if fstat(descriptor, &info) == 0, info.st_size > 0, now - EntryIO.seconds(info.st_mtim) < interval { return nil }
        // Record the run first, so that a clean cut short is not retried by every process.
        _ = "\(Int(now))\n".withCString { write(descriptor, $0, strlen($0)) }
        var times = [EntryIO.timespecOf(now), EntryIO.timespecOf(now)]
        futimens(descriptor, &times)
        var report = cleanExpired(directory: directory, listingPaths: false, now: now)
        if let limit = settings.sizeLimit {
            let pruned = prune(directory: directory, sizeLimit: limit, listingPaths: false, now: now)
            report.entries += pruned.entries
            report.bytes += pruned.bytes
            report.remainingBytes = pruned.remainingBytes
        }
        return report
    }

    // MARK: helpers

    /// `removeEntry` over many entries on up to `threads` threads (default 4; one for every 512 entries), none in a
    /// dry run; returns the report of those removed (or that would be), in order, their paths listed when
    /// `listingPaths`.
    static func removeEntries(_ entries: [CacheEntryStat], directory: String, dryRun: Bool, listingPaths: Bool, threads: Int = 4,
                              stillDoomed: @Sendable (_ scanned: CacheEntryStat, _ current: CacheEntryStat) -> Bool) -> Report {
        let workers = min(threads, max(1, entries.count / 512))
        let removed: [EntryRemoval]
        if dryRun {
            removed = entries.map { _ in .removed }
        } else if workers <= 1 {
            removed = entries.map { removeEntry($0, directory: directory, stillDoomed: stillDoomed) }
        } else {
            let chunk = (entries.count + workers - 1) / workers
            let results = Locked<[Int: [EntryRemoval]]>([:])
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let slice = entries[min(entries.count, worker * chunk)..<min(entries.count, (worker + 1) * chunk)]
                let removed = slice.map { removeEntry($0, directory: directory, stillDoomed: stillDoomed) }
                results.withLock { $0[worker] = removed }
            }
            removed = results.withLock { all in (0..<workers).flatMap { all[$0] ?? [] } }
        }
        var report = Report()
        for (entry, outcome) in zip(entries, removed) {
            switch outcome {
            case .removed: record(entry, directory: directory, listingPath: listingPaths, in: &report)
            case .kept: continue
            case .failed(let code): report.failures.append(RemovalFailure(path: entry.path(in: directory), code: code))
            }
        }
        return report
    }

    /// Unlinks an entry when the file at its path is still the scanned one and `stillDoomed` holds for it now;
    /// then removes its folder if that left it empty. `.kept` when it no longer qualifies (gone, replaced, used
    /// since), `.failed` with the error when the unlink was refused.
    static func removeEntry(_ entry: CacheEntryStat, directory: String,
                            stillDoomed: (_ scanned: CacheEntryStat, _ current: CacheEntryStat) -> Bool) -> EntryRemoval {
        let path = entry.path(in: directory)
        var info = stat()
        guard lstat(path, &info) == 0, UInt64(info.st_ino) == entry.inode, info.st_mode & S_IFMT == S_IFREG else { return .kept }
        var current = entry
        current.lastAccess = EntryIO.seconds(info.st_atim)
        current.expires = EntryIO.seconds(info.st_mtim)
        guard stillDoomed(entry, current) else { return .kept }
        guard unlink(path) == 0 else { return errno == ENOENT ? .kept : .failed(errno) }
        rmdir("\(directory)/entries/\(entry.folder)")
        return .removed
    }

    private static func record(_ entry: CacheEntryStat, directory: String, listingPath: Bool = true, in report: inout Report) {
        report.entries += 1
        report.bytes += entry.size
        if listingPath { report.paths.append(entry.path(in: directory)) }
    }
}

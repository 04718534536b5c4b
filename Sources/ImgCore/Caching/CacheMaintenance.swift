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
    /// The report lists the paths of the entries, then of the temporaries, then of the lock files.
    /// The cache is walked folder by folder (`CacheScan.visitFolders`) and the expired entries found are removed
    /// `removalBatch` at a time, so that memory stays flat whatever the number of entries.
    /// `listingPaths` (default true): the report lists the removed entries' paths (for `-v` and `--json`). Once
    /// `stop` (default none) is cancelled, the entries gathered are removed and nothing more is done (`interrupted`).
    public static func cleanExpired(root: CacheRoot, tempAge: Double = defaultTempAge, dryRun: Bool = false,
                                    listingPaths: Bool = true, now: Double = Date().timeIntervalSince1970,
                                    removalBatch: Int = CacheMaintenance.removalBatch, stop: Cancellation? = nil) -> Report {
        var report = Report()
        var expired: [CacheEntryStat] = []
        func removeExpired() {
            report.absorb(removeEntries(expired, root: root, dryRun: dryRun, listingPaths: listingPaths,
                                        stillDoomed: unlessStopped(stop) { _, current in current.isExpired(at: now) }))
            expired.removeAll(keepingCapacity: true)
        }
        CacheScan.visitFolders(root: root, stop: stop) { folder, contents in
            if !contents.anything, dryRun || root.removeFolder("entries/\(folder)") == 0 { report.folders += 1 }
            expired += contents.entries.filter { $0.isExpired(at: now) }
            if expired.count >= max(1, removalBatch) { removeExpired() }
        }
        removeExpired()
        if stop?.isCancelled == true {
            report.interrupted = true
            return report
        }
        removeTemporaries(root: root, olderThan: tempAge, dryRun: dryRun, now: now, into: &report)
        report.absorb(KeyLock.removeStale(root: root, olderThan: tempAge, dryRun: dryRun, listingPaths: listingPaths))
        return report
    }

    /// Removes `tmp/PID-NONCE.tmp` files and `tmp/PID-NONCE.removing` folders (only the entries in them) whose last
    /// change (ctime: set by the final write or the rename that made them) is at least `age` seconds ago and whose
    /// process (PID) no longer runs on this machine. A removal folder counts as a temporary only once it is gone (the
    /// bytes of the entries removed from one that stays count all the same).
    static func removeTemporaries(root: CacheRoot, olderThan age: Double, dryRun: Bool, now: Double, into report: inout Report) {
        for name in root.names(in: "tmp") where CacheNames.isTemporary(name) || CacheNames.isRemoval(name) {
            let relative = "tmp/\(name)", path = root.shown("tmp/\(name)")
            guard let info = root.status(relative), now - EntryIO.seconds(info.st_ctim) >= age,
                  !PidNonceName.writerIsRunning(name, suffix: CacheNames.isTemporary(name) ? ".tmp" : ".removing") else { continue }
            let isFolder = info.st_mode & S_IFMT == S_IFDIR
            // A temporary is a file, a removal a folder: anything else of those names isn't ours.
            guard isFolder ? CacheNames.isRemoval(name) : info.st_mode & S_IFMT == S_IFREG && CacheNames.isTemporary(name) else { continue }
            var bytes = Int64(info.st_size)
            if isFolder {
                // What is removed of it (a dry run: would be), and whether it is gone (nothing else was in it).
                let removal = dryRun ? CacheNames.forecastOwnTree(relative, in: root, shownAs: path)
                    : (report: CacheNames.removeOwnTree(relative, in: root, shownAs: path), emptied: !root.exists(relative))
                report.failures += removal.report.failures
                report.temporaryBytes += removal.report.bytes
                // Counted only when gone: what could not be emptied (a read-only folder in it) stays, and says so;
                // names that are none of imgfetch's (never removed) are named by the folder that holds them.
                guard removal.emptied else {
                    if removal.report.failures.isEmpty { report.failures.append(RemovalFailure(path: path, code: ENOTEMPTY)) }
                    continue
                }
                bytes = 0
            } else {
                // A dry run finds what the unlink would meet: a `tmp/` that can't be changed.
                let refusal = dryRun ? root.refusal(toChange: "tmp") : root.unlink(relative) == 0 ? 0 : errno
                guard refusal == 0 else {
                    report.failures.append(RemovalFailure(path: path, code: refusal))
                    continue
                }
            }
            report.temporaries += 1
            report.temporaryBytes += bytes
            report.paths.append(path)
        }
    }

    // MARK: clear and remove

    /// Removes every entry, one entry folder at a time (`CacheNames.removeEntryFolder`: an original and its
    /// variants go together), then the `XX/` folders that emptied. What can't be removed (a read-only folder) stays
    /// where it was, named in the failures, so that `inspect` still counts it and the next clear tries it again; a
    /// dry run counts what a run would remove and names what it would not (`CacheNames.forecastOwnTree`). Entry
    /// names that are not regular files count as entries (of no bytes) and go too (`IrregularEntry`). Once `stop`
    /// (default none) is cancelled, no further entry folder is removed (`interrupted`).
    public static func clear(root: CacheRoot, dryRun: Bool = false, stop: Cancellation? = nil) -> Report {
        var report = Report()
        let top = root.openFolder("entries")
        guard top >= 0 else {
            if errno != ENOENT { report.failures.append(RemovalFailure(path: root.shown("entries"), code: errno)) }
            return report
        }
        defer { close(top) }
        for prefix in DirectoryListing.children(of: top).map(\.name) where CacheNames.isPrefixFolder(prefix) {
            let folder = openat(top, prefix, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard folder >= 0 else {
                if errno != ENOENT, errno != ENOTDIR, errno != ELOOP {
                    report.failures.append(RemovalFailure(path: root.shown("entries/\(prefix)"), code: errno))
                }
                continue
            }
            let hashes = DirectoryListing.children(of: folder).map(\.name).filter(CacheNames.isKeyFolder)
            close(folder)
            for hash in hashes {
                if stop?.isCancelled == true {
                    report.interrupted = true
                    return report
                }
                let name = "entries/\(prefix)/\(hash)"
                if dryRun {
                    report.absorb(CacheNames.forecastOwnTree(name, in: root, shownAs: root.shown(name)).report)
                } else {
                    report.absorb(CacheNames.removeEntryFolder(name, in: root))
                }
            }
            if !dryRun { root.removeFolder("entries/\(prefix)") }
        }
        return report
    }

    /// Removes the original of `originalKey` and all its variants together (`DiskCache.removeAll`).
    public static func remove(root: CacheRoot, originalKey: String, dryRun: Bool = false) throws(ImgError) -> Report {
        let folder = DiskCache.entryFolder(originalKey: originalKey)
        guard dryRun else { return try DiskCache(root: root).removeAll(originalKey: originalKey) }
        let name = "entries/\(folder)"
        return CacheNames.forecastOwnTree(name, in: root, shownAs: root.shown(name)).report
    }

    // MARK: auto clean

    /// Cleans (expired entries, old temporaries and locks, and a prune when `settings` has a size limit) if the last
    /// clean of this directory, recorded as the mtime of `DIR/last-clean`, was at least `interval` seconds ago
    /// (default 1 hour). A non-blocking `flock` on that file makes sure only one process cleans at a time; the others
    /// return at once. Never fails: returns the report, or nil when nothing ran.
    @discardableResult
    public static func autoCleanIfDue(root: CacheRoot, settings: CacheSettings, interval: Double = autoCleanInterval,
                                      now: Double = Date().timeIntervalSince1970) -> Report? {
        // The fast path, one stat: a marker with a recorded run (not empty) that is recent enough.
        if let marker = root.status("last-clean"), marker.st_size > 0, now - EntryIO.seconds(marker.st_mtim) < interval {
            return nil
        }
        var info = stat()
        let descriptor = root.openFile("last-clean", O_RDWR | O_CREAT | O_NONBLOCK, mode: 0o600)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return nil }
        // Someone may have finished a clean between our stat and our lock.
        if fstat(descriptor, &info) == 0, info.st_size > 0, now - EntryIO.seconds(info.st_mtim) < interval { return nil }
        // Record the run first, so that a clean cut short is not retried by every process.
        _ = "\(Int(now))\n".withCString { write(descriptor, $0, strlen($0)) }
        var times = [EntryIO.timespecOf(now), EntryIO.timespecOf(now)]
        futimens(descriptor, &times)
        var report = cleanExpired(root: root, listingPaths: false, now: now)
        if let limit = settings.sizeLimit {
            let pruned = prune(root: root, sizeLimit: limit, listingPaths: false, now: now)
            report.entries += pruned.entries
            report.bytes += pruned.bytes
            report.remainingBytes = pruned.remainingBytes
        }
        return report
    }

    // MARK: by path

    /// `cleanExpired(root:…)` of the directory at `directory` (a missing or refused one: nothing done).
    public static func cleanExpired(directory: String, tempAge: Double = defaultTempAge, dryRun: Bool = false,
                                    listingPaths: Bool = true, now: Double = Date().timeIntervalSince1970,
                                    removalBatch: Int = CacheMaintenance.removalBatch) -> Report {
        guard let root = try? CacheRoot.open(directory, create: false) else { return Report() }
        return cleanExpired(root: root, tempAge: tempAge, dryRun: dryRun, listingPaths: listingPaths, now: now,
                            removalBatch: removalBatch)
    }

    /// `prune(root:…)` of the directory at `directory` (a missing or refused one: nothing done).
    public static func prune(directory: String, sizeLimit: Int64, target: Int64? = nil, keeping: Set<String> = [],
                             dryRun: Bool = false, listingPaths: Bool = true, now: Double = Date().timeIntervalSince1970,
                             removalBatch: Int = CacheMaintenance.removalBatch,
                             walkThreads: Int = CacheScan.defaultWalkThreads) -> Report {
        guard let root = try? CacheRoot.open(directory, create: false) else { return Report() }
        return prune(root: root, sizeLimit: sizeLimit, target: target, keeping: keeping, dryRun: dryRun,
                     listingPaths: listingPaths, now: now, removalBatch: removalBatch, walkThreads: walkThreads)
    }

    /// `autoCleanIfDue(root:…)` of the directory at `directory` (a missing or refused one: nil).
    @discardableResult
    public static func autoCleanIfDue(directory: String, settings: CacheSettings, interval: Double = autoCleanInterval,
                                      now: Double = Date().timeIntervalSince1970) -> Report? {
        guard let root = try? CacheRoot.open(directory, create: false) else { return nil }
        return autoCleanIfDue(root: root, settings: settings, interval: interval, now: now)
    }
}

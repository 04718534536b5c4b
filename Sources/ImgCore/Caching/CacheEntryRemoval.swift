import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension CacheMaintenance {
    // MARK: helpers

    /// `removeEntry` over many entries on up to `threads` threads (default 4; one for every 512 entries); returns the
    /// report of those removed (a dry run: that would be, and those the run could not remove), in order, their paths
    /// listed when `listingPaths`.
    /// `stillDoomed`, false for every entry once `stop` is cancelled: a removal stopped midway keeps the rest, and
    /// its report counts exactly what it removed.
    static func unlessStopped(_ stop: Cancellation?,
                              _ stillDoomed: @escaping @Sendable (_ scanned: CacheEntryStat, _ current: CacheEntryStat) -> Bool)
        -> @Sendable (_ scanned: CacheEntryStat, _ current: CacheEntryStat) -> Bool {
        guard let stop else { return stillDoomed }
        return { scanned, current in !stop.isCancelled && stillDoomed(scanned, current) }
    }

    static func removeEntries(_ entries: [CacheEntryStat], root: CacheRoot, dryRun: Bool, listingPaths: Bool, threads: Int = 4,
                              stillDoomed: @Sendable (_ scanned: CacheEntryStat, _ current: CacheEntryStat) -> Bool) -> Report {
        let workers = min(threads, max(1, entries.count / 512))
        let removed: [EntryRemoval]
        if workers <= 1 {
            removed = entries.map { removeEntry($0, root: root, dryRun: dryRun, stillDoomed: stillDoomed) }
        } else {
            let chunk = (entries.count + workers - 1) / workers
            let results = Locked<[Int: [EntryRemoval]]>([:])
            DispatchQueue.concurrentPerform(iterations: workers) { worker in
                let slice = entries[min(entries.count, worker * chunk)..<min(entries.count, (worker + 1) * chunk)]
                let removed = slice.map { removeEntry($0, root: root, dryRun: dryRun, stillDoomed: stillDoomed) }
                results.withLock { $0[worker] = removed }
            }
            removed = results.withLock { all in (0..<workers).flatMap { all[$0] ?? [] } }
        }
        var report = Report()
        for (entry, outcome) in zip(entries, removed) {
            switch outcome {
            case .removed: record(entry, root: root, listingPath: listingPaths, in: &report)
            case .kept: continue
            case .failed(let code): report.failures.append(RemovalFailure(path: root.shown(entry.relativeName), code: code))
            }
        }
        return report
    }

    /// Unlinks an entry when the file at its path is still the scanned one and `stillDoomed` holds for it now;
    /// then removes its folder if that left it empty. `.kept` when it no longer qualifies (gone, replaced, used
    /// since), `.failed` with the error when the unlink was refused. With `dryRun` (default false) nothing is
    /// changed: `.removed` when the unlink would be allowed, else `.failed` with what its folder refuses
    /// (`CacheRoot.refusal`: a folder not writable, a read-only file system), as the run would find.
    static func removeEntry(_ entry: CacheEntryStat, root: CacheRoot, dryRun: Bool = false,
                            stillDoomed: (_ scanned: CacheEntryStat, _ current: CacheEntryStat) -> Bool) -> EntryRemoval {
        let name = entry.relativeName
        guard let info = root.status(name), UInt64(info.st_ino) == entry.inode, info.st_mode & S_IFMT == S_IFREG else { return .kept }
        var current = entry
        current.lastAccess = EntryIO.seconds(info.st_atim)
        current.expires = EntryIO.seconds(info.st_mtim)
        guard stillDoomed(entry, current) else { return .kept }
        if dryRun {
            let refusal = root.refusal(toChange: "entries/\(entry.folder)")
            return refusal == 0 ? .removed : .failed(refusal)
        }
        guard root.unlink(name) == 0 else { return errno == ENOENT ? .kept : .failed(errno) }
        root.removeFolder("entries/\(entry.folder)")
        return .removed
    }

    static func record(_ entry: CacheEntryStat, root: CacheRoot, listingPath: Bool = true, in report: inout Report) {
        report.entries += 1
        report.bytes += entry.size
        if listingPath { report.paths.append(root.shown(entry.relativeName)) }
    }
}


import CVips
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A per-key "download in flight" lock shared by processes: an exclusive lock on one byte of `locks/downloads`, at
/// an offset taken from the key's SHA-256 (`imgf_try_lock_byte`: an open file description's own lock, so that two
/// threads of one process exclude each other as two processes do). The kernel drops it when its holder lets go or
/// dies, so a killed process never blocks others. No file is made or removed per key: `locks/` holds that one file,
/// where a file per download cost an inode made and removed for every original (and on ext4 without a journal, each
/// removal slows the file creations of the next seconds). Two keys whose offsets collide (a 2^-62 chance) only wait
/// for each other. Lock files of earlier versions (`<hash>.lock`) are left to `removeStale`.
final class KeyLock: @unchecked Sendable { // owns a file descriptor; released once
    private let descriptor: Int32

    /// The file in `locks/` whose bytes are the locks.
    static let fileName = "downloads"

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Waits up to `timeout` seconds for the lock on `key`, or until `cancellation` (default none) is cancelled; nil
    /// when it could not be had in time, was cancelled meanwhile, or the file can't be opened or locked (the caller
    /// then goes on without it, as a waiter that takes over).
    static func acquire(root: CacheRoot, key: String, timeout: Double, cancellation: Cancellation? = nil) -> KeyLock? {
        let descriptor = root.openFile("locks/\(fileName)", O_RDWR | O_CREAT, mode: 0o600)
        guard descriptor >= 0 else { return nil }
        let offset = Self.offset(of: key)
        let deadline = Date().addingTimeInterval(timeout)
        var pause: useconds_t = 5_000
        while true {
            if imgf_try_lock_byte(descriptor, offset) == 0 { return KeyLock(descriptor: descriptor) }
            guard errno == EAGAIN || errno == EACCES || errno == EINTR, Date() < deadline,
                  cancellation?.isCancelled != true else {
                close(descriptor)
                return nil
            }
            usleep(pause)
            pause = min(pause * 2, 100_000)
        }
    }

    /// The byte that stands for `key`: the first 62 bits of its SHA-256.
    static func offset(of key: String) -> Int64 {
        let hash = Digest.sha256(key)
        return Int64(UInt64(hash.prefix(16), radix: 16).map { $0 >> 2 } ?? 0)
    }

    /// Removes lock files of earlier versions (`<hash>.lock`, one per download) that nobody holds, older than `age`
    /// seconds (left by killed processes). Reports how many were removed (`locks`) and, when `listingPaths` (default
    /// true), their paths; each whose unlink was refused is a failure, not counted. A dry run removes none: it
    /// counts those the run would remove and names as failures those it could not (`locks/` can't be changed).
    static func removeStale(root: CacheRoot, olderThan age: Double, dryRun: Bool,
                            listingPaths: Bool = true) -> CacheMaintenance.Report {
        var report = CacheMaintenance.Report()
        let folder = root.openFolder("locks")
        guard folder >= 0 else { return report }
        defer { close(folder) }
        let now = Date().timeIntervalSince1970
        // What an unlink in `locks/` would meet, for a dry run (0: nothing).
        let refusal = dryRun ? root.refusal(toChange: "locks") : 0
        // Read as the folder is walked, never listed whole.
        DirectoryListing.forEachName(in: folder) { name in
            guard CacheNames.isLock(name) else { return }
            let descriptor = openat(folder, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            var info = stat()
            guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG, now - EntryIO.seconds(info.st_mtim) >= age,
                  flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return }
            let path = root.shown("locks/\(name)")
            let code = dryRun ? refusal : unlinkat(folder, name, 0) == 0 ? 0 : errno
            guard code == 0 else {
                if code != ENOENT { report.failures.append(RemovalFailure(path: path, code: code)) }
                return
            }
            report.locks += 1
            if listingPaths { report.paths.append(path) }
        }
        return report
    }
}

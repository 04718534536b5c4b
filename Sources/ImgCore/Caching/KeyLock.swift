import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A per-key "download in flight" lock shared by processes: an exclusive `flock` on `locks/<hash>.lock`.
/// The kernel drops it when its holder dies, so a killed process never blocks others. The holder removes the file
/// as it lets go, so `locks/` holds only downloads in flight (and those of killed processes, until a clean): a
/// waiter that had opened the removed file finds it no longer at the path once it gets the lock, and tries again.
final class KeyLock: @unchecked Sendable { // owns a file descriptor; released once
    private let descriptor: Int32
    private let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit {
        // Removed before the lock is let go, and only while it is the file at the path: no cleaner removes a held
        // lock, but a cache folder deleted by hand may since hold another holder's file there.
        if Self.isAtPath(descriptor, path) { unlink(path) }
        close(descriptor)
    }

    /// Waits up to `timeout` seconds for the lock on `key`; nil when it could not be had in time
    /// (the caller then goes on without it, as a waiter that takes over).
    static func acquire(directory: String, key: String, timeout: Double) -> KeyLock? {
        let path = "\(directory)/locks/\(Digest.sha256(key)).lock"
        let deadline = Date().addingTimeInterval(timeout)
        var pause: useconds_t = 5_000
        while true {
            let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { return nil }
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 {
                // A cleaner may have unlinked the file between our open and flock: only the file at the path counts.
                if isAtPath(descriptor, path) { return KeyLock(descriptor: descriptor, path: path) }
            }
            close(descriptor)
            if Date() >= deadline { return nil }
            usleep(pause)
            pause = min(pause * 2, 100_000)
        }
    }

    /// Whether the open file `descriptor` is the one at `path` (same inode).
    private static func isAtPath(_ descriptor: Int32, _ path: String) -> Bool {
        var opened = stat(), current = stat()
        return fstat(descriptor, &opened) == 0 && stat(path, &current) == 0 && opened.st_ino == current.st_ino
    }

    /// Removes lock files nobody holds, older than `age` seconds (left by killed processes); returns how many were
    /// removed.
    static func removeStale(directory: String, olderThan age: Double, dryRun: Bool) -> Int {
        let folder = "\(directory)/locks"
        var removed = 0
        let now = Date().timeIntervalSince1970
        // Read as the folder is walked, never listed whole.
        DirectoryListing.forEachName(in: folder) { name in
            guard CacheNames.isLock(name) else { return }
            let path = "\(folder)/\(name)"
            let descriptor = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC)
            guard descriptor >= 0 else { return }
            defer { close(descriptor) }
            var info = stat()
            guard fstat(descriptor, &info) == 0, now - EntryIO.seconds(info.st_mtim) >= age,
                  flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return }
            if !dryRun { unlink(path) }
            removed += 1
        }
        return removed
    }
}

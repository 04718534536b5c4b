import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A per-key "download in flight" lock shared by processes: an exclusive `flock` on `locks/<hash>.lock`.
/// The kernel drops it when its holder dies, so a killed process never blocks others.
final class KeyLock: @unchecked Sendable { // owns a file descriptor; released once
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

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
                var held = stat(), current = stat()
                if fstat(descriptor, &held) == 0, stat(path, &current) == 0, held.st_ino == current.st_ino {
                    return KeyLock(descriptor: descriptor)
                }
            }
            close(descriptor)
            if Date() >= deadline { return nil }
            usleep(pause)
            pause = min(pause * 2, 100_000)
        }
    }

    /// Removes lock files nobody holds, older than `age` seconds; returns how many were removed.
    static func removeStale(directory: String, olderThan age: Double, dryRun: Bool) -> Int {
        let folder = "\(directory)/locks"
        var removed = 0
        let now = Date().timeIntervalSince1970
        // One lock file per original downloaded in the last hour: read as the folder is walked, never listed whole.
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

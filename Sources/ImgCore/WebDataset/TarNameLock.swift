import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Keeps two runs from writing tars of the same names into one folder at once: an exclusive `flock` on the lock file
/// `.imgfetch-PREFIXtars.lock` in the folder (`.imgfetch-tars.lock`, `.imgfetch-s0003-tars.lock` for shard 3's
/// `s0003-` tars), taken without waiting before the run fetches anything and held until it ends. Each shard has its
/// own lock: the tasks of a job array, one shard each, share one folder at once.
///
/// The run removes the file as it ends (`release`, or deinit). A run killed leaves it behind, unlocked (the kernel
/// drops the lock with the process), and the next run takes it. A lock taken on a file that was removed or replaced
/// meanwhile is dropped and taken again on the file now at the name, so that two runs never each hold a lock.
public final class TarNameLock: Sendable {
    /// Why the lock could not be taken.
    public enum Refusal: Error, Sendable {
        /// Another process holds it: a run writing tars of these names into the folder now.
        case held(lockFile: String)
        /// The lock file could not be opened or locked (the system's words).
        case unavailable(lockFile: String, reason: String)
    }

    /// The lock file as shown: `DIR/.imgfetch-tars.lock`.
    public let path: String
    /// The lock file's name in the folder.
    private let name: String
    private let folder: OutputFolder
    /// The locked file's descriptor; -1 once released.
    private let descriptor: Locked<Int32>

    /// The lock file's name for `layout`'s tars: `.imgfetch-tars.lock`, `.imgfetch-s0003-tars.lock`.
    public static func fileName(for layout: WebDatasetLayout) -> String { ".imgfetch-\(layout.prefix)tars.lock" }

    /// Takes the lock of `layout`'s tar names in `folder`, creating its file (mode 0644, empty) when there is none.
    public init(layout: WebDatasetLayout, folder: OutputFolder) throws(Refusal) {
        let name = Self.fileName(for: layout)
        let path = "\(folder.path)/\(name)"
        (self.folder, self.name, self.path) = (folder, name, path)
        for _ in 0..<8 {
            let opened = OutputFolder.outsideUmaskChanges {
                openat(folder.descriptor, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
            }
            guard opened >= 0 else { throw .unavailable(lockFile: path, reason: String(cString: strerror(errno))) }
            guard flock(opened, LOCK_EX | LOCK_NB) == 0 else {
                let reason = errno
                close(opened)
                if reason == EWOULDBLOCK { throw .held(lockFile: path) }
                throw .unavailable(lockFile: path, reason: String(cString: strerror(reason)))
            }
            var locked = stat(), named = stat()
            if fstat(opened, &locked) == 0, fstatat(folder.descriptor, name, &named, AT_SYMLINK_NOFOLLOW) == 0,
               locked.st_dev == named.st_dev, locked.st_ino == named.st_ino {
                descriptor = Locked(opened)
                return
            }
            // The run that held it removed it as it ended: lock the file at the name now.
            close(opened)
        }
        throw .unavailable(lockFile: path, reason: "it was replaced again and again while it was being locked")
    }

    deinit { release() }

    /// Removes the lock file and drops the lock (in that order: a run that locks the removed file sees it is no longer
    /// at the name and locks the new one). Nothing happens the second time.
    public func release() {
        let held = descriptor.withLock { held in
            defer { held = -1 }
            return held
        }
        guard held >= 0 else { return }
        unlinkat(folder.descriptor, name, 0)
        close(held)
    }
}

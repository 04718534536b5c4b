import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The names imgfetch's own code gives files in a cache directory. Cleaning, pruning, clearing and removing act on
/// these names only: a file or folder of any other name found in `entries/`, `tmp/` or `locks/` is never deleted.
enum CacheNames {
    /// `PID-NONCE.tmp`: an entry or the config being written (`EntryIO.writeTemporary`, `imgf_open_anonymous`).
    static func isTemporary(_ name: String) -> Bool { isPidNonce(name, suffix: ".tmp") }

    /// `PID-NONCE.removing`: an entry folder, or the whole of `entries/`, renamed away to be deleted.
    static func isRemoval(_ name: String) -> Bool { isPidNonce(name, suffix: ".removing") }

    /// The first level below `entries/`: two lower-case hex digits.
    static func isPrefixFolder(_ name: String) -> Bool { name.utf8.count == 2 && isLowerHex(name) }

    /// The second level: the 64 lower-case hex digits of an original key's hash.
    static func isKeyFolder(_ name: String) -> Bool { name.utf8.count == 64 && isLowerHex(name) }

    /// An entry file: `original` or `<64 hex>.variant`.
    static func isEntryFile(_ name: String) -> Bool {
        name == "original" || (name.utf8.count == 72 && name.hasSuffix(".variant") && isLowerHex(String(name.prefix(64))))
    }

    /// A download lock in `locks/`: `<64 hex>.lock`.
    static func isLock(_ name: String) -> Bool {
        name.utf8.count == 69 && name.hasSuffix(".lock") && isLowerHex(String(name.prefix(64)))
    }

    private static func isLowerHex(_ text: String) -> Bool {
        text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    private static func isPidNonce(_ name: String, suffix: String) -> Bool {
        PidNonceName.parts(of: name, suffix: suffix) != nil
    }

    // MARK: removing what is ours

    /// Deletes, below the folder `name` of the cache directory (a renamed-away `entries/` or entry folder), the
    /// entry files and the entry folders that held only those (symlinks and other names are left, never followed),
    /// then the folder itself if that left it empty. Reports the entry files removed and their bytes, and each one
    /// whose unlink was refused, with paths shown below `shownAs` (where the folder was, and where `restore` puts it
    /// back).
    @discardableResult
    static func removeOwnTree(_ name: String, in root: CacheRoot, shownAs shown: String) -> CacheMaintenance.Report {
        let descriptor = root.openFolder(name)
        guard descriptor >= 0 else {
            var report = CacheMaintenance.Report()
            if errno != ENOENT { report.failures.append(RemovalFailure(path: shown, code: errno)) }
            return report
        }
        let report = removeOwnTree(opened: descriptor, shownAs: shown)
        close(descriptor)
        root.removeFolder(name)
        return report
    }

    /// `removeOwnTree` of an open folder (left open, and in place).
    private static func removeOwnTree(opened descriptor: Int32, shownAs shown: String) -> CacheMaintenance.Report {
        var report = CacheMaintenance.Report()
        for (name, _) in DirectoryListing.children(of: descriptor) {
            var info = stat()
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFREG where isEntryFile(name):
                if unlinkat(descriptor, name, 0) == 0 {
                    report.entries += 1
                    report.bytes += Int64(info.st_size)
                    report.paths.append("\(shown)/\(name)")
                } else if errno != ENOENT {
                    report.failures.append(RemovalFailure(path: "\(shown)/\(name)", code: errno))
                }
            case S_IFDIR where isPrefixFolder(name) || isKeyFolder(name):
                let child = openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard child >= 0 else {
                    if errno != ENOENT { report.failures.append(RemovalFailure(path: "\(shown)/\(name)", code: errno)) }
                    continue
                }
                report.absorb(removeOwnTree(opened: child, shownAs: "\(shown)/\(name)"))
                close(child)
                unlinkat(descriptor, name, AT_REMOVEDIR)
            default:
                continue
            }
        }
        return report
    }

    /// Puts back into the folder `destination` what `removeOwnTree` left in `leftover` (files of other names; both
    /// names in the cache directory), merging folders that exist again, then removes `leftover` if that emptied it.
    static func restore(_ leftover: String, into destination: String, in root: CacheRoot) {
        for name in root.names(in: leftover) {
            let from = "\(leftover)/\(name)", to = "\(destination)/\(name)"
            if root.rename(from, to) == 0 { continue }
            if let source = root.status(from), let target = root.status(to), source.st_mode & S_IFMT == S_IFDIR,
               target.st_mode & S_IFMT == S_IFDIR {
                restore(from, into: to, in: root)
            }
        }
        root.removeFolder(leftover)
    }
}

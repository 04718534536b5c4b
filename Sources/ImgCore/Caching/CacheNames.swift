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

    /// Deletes, below the folder `name` of the cache directory (an entry folder, in place or renamed away), the
    /// entries and the entry folders that held only those (other names are left, never followed), then the folder
    /// itself if that left it empty. What stands at an entry's name but is not a regular file goes too
    /// (`IrregularEntry.remove`: a link itself, a directory only when empty) and counts as an entry of no bytes.
    /// Reports the entries removed and their bytes, and each one whose removal was refused, with paths shown below
    /// `shownAs`.
    @discardableResult
    static func removeOwnTree(_ name: String, in root: CacheRoot, shownAs shown: String) -> CacheMaintenance.Report {
        ownTree(name, in: root, shownAs: shown, dryRun: false).report
    }

    /// What `removeOwnTree` would remove below the folder `name`, found without removing anything (what a dry run
    /// reports), and whether the folder would be gone after it (nothing else left in it).
    static func forecastOwnTree(_ name: String, in root: CacheRoot,
                                shownAs shown: String) -> (report: CacheMaintenance.Report, emptied: Bool) {
        ownTree(name, in: root, shownAs: shown, dryRun: true)
    }

    /// `removeOwnTree` (then the folder itself, if that emptied it) or, with `dryRun`, its forecast.
    private static func ownTree(_ name: String, in root: CacheRoot, shownAs shown: String,
                                dryRun: Bool) -> (report: CacheMaintenance.Report, emptied: Bool) {
        let descriptor = root.openFolder(name)
        guard descriptor >= 0 else {
            let code = errno
            var report = CacheMaintenance.Report()
            if code != ENOENT { report.failures.append(RemovalFailure(path: shown, code: code)) }
            return (report, code == ENOENT)
        }
        let result = removeOwnTree(opened: descriptor, shownAs: shown, dryRun: dryRun)
        close(descriptor)
        if !dryRun { root.removeFolder(name) }
        return result
    }

    /// `removeOwnTree` of an open folder (left open, and in place); with `dryRun`, what it would remove and whether
    /// the folder would be emptied: a folder that can't be written keeps what is in it (`faccessat`, as the removal
    /// would find), a directory at an entry's name goes only when empty.
    private static func removeOwnTree(opened descriptor: Int32, shownAs shown: String,
                                      dryRun: Bool = false) -> (report: CacheMaintenance.Report, emptied: Bool) {
        var report = CacheMaintenance.Report()
        var emptied = true
        let refusal: Int32 = !dryRun || faccessat(descriptor, ".", W_OK, AT_EACCESS) == 0 ? 0 : errno
        for (name, _) in DirectoryListing.children(of: descriptor) {
            var info = stat()
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            let type = info.st_mode & S_IFMT
            if type == S_IFDIR, isPrefixFolder(name) || isKeyFolder(name) {
                let child = openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard child >= 0 else {
                    if errno != ENOENT { report.failures.append(RemovalFailure(path: "\(shown)/\(name)", code: errno)) }
                    emptied = false
                    continue
                }
                let inner = removeOwnTree(opened: child, shownAs: "\(shown)/\(name)", dryRun: dryRun)
                report.absorb(inner.report)
                close(child)
                if !dryRun { unlinkat(descriptor, name, AT_REMOVEDIR) }
                emptied = emptied && inner.emptied && refusal == 0
                continue
            }
            guard isEntryFile(name) else {
                emptied = false
                continue
            }
            let code = dryRun ? (refusal != 0 ? refusal : IrregularEntry.forecastRemoval(name, in: descriptor, type: type))
                : type == S_IFREG ? (unlinkat(descriptor, name, 0) == 0 ? 0 : errno)
                : IrregularEntry.remove(name, in: descriptor, inode: UInt64(info.st_ino))
            if code == 0 {
                report.entries += 1
                report.bytes += type == S_IFREG ? Int64(info.st_size) : 0
                report.paths.append("\(shown)/\(name)")
            } else if code != ENOENT, code != ESTALE {
                report.failures.append(RemovalFailure(path: "\(shown)/\(name)", code: code))
                emptied = false
            }
        }
        return (report, emptied)
    }

    /// Removes the entry folder `folder` (`entries/XX/HASH`) of the cache directory with all it holds of imgfetch's
    /// (`removeOwnTree`): renamed away into `tmp/` first, so that no reader finds an original without its variants,
    /// then emptied there and what is left (other names, what could not be removed) put back. When it can't be
    /// renamed away (a read-only folder, `tmp/` missing or not writable), it is emptied in place. Failures name where
    /// each file that could not be removed is now.
    static func removeEntryFolder(_ folder: String, in root: CacheRoot) -> CacheMaintenance.Report {
        let doomed = root.removalName()
        guard root.rename(folder, doomed) == 0 else {
            return errno == ENOENT ? CacheMaintenance.Report() : removeOwnTree(folder, in: root, shownAs: root.shown(folder))
        }
        var report = removeOwnTree(doomed, in: root, shownAs: root.shown(doomed))
        restore(doomed, into: folder, in: root)
        let (away, back) = (root.shown(doomed), root.shown(folder))
        report.paths = report.paths.map { $0.hasPrefix(away) ? back + $0.dropFirst(away.count) : $0 }
        report.failures = report.failures.map { failure in
            // Put back where it was, or still in tmp/ (a read-only folder can't be moved back into another).
            guard failure.path.hasPrefix(away) else { return failure }
            let suffix = failure.path.dropFirst(away.count)
            return root.exists(folder + suffix) ? RemovalFailure(path: back + suffix, code: failure.code) : failure
        }
        return report
    }

    /// Puts back into the folder `destination` (made again when missing) what `removeOwnTree` left in `leftover`
    /// (both names in the cache directory), merging folders that exist again, then removes `leftover` if that
    /// emptied it.
    static func restore(_ leftover: String, into destination: String, in root: CacheRoot) {
        let names = root.names(in: leftover)
        if !names.isEmpty { _ = try? root.makeFolders(destination) }
        for name in names {
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

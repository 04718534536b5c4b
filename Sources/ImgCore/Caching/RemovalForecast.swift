import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a removal of imgfetch's own files would do, found without doing it: what a dry run reports. It follows the
/// removals' rules (`CacheNames.removeOwnTree`, `IrregularEntry.remove`): entries and the entry folders that held only
/// those go, other names stay, and a directory at an entry's name goes only when empty, so a dry run counts what the
/// run removes and names what it would not.
enum RemovalForecast {
    /// The removal of an irregular entry (`IrregularEntry.remove`): `ENOTEMPTY` for a directory that holds anything,
    /// else 0.
    static func irregularRemoval(_ relativeName: String, in root: CacheRoot) -> Int32 {
        guard let info = root.status(relativeName), info.st_mode & S_IFMT == S_IFDIR else { return 0 }
        return root.names(in: relativeName).isEmpty ? 0 : ENOTEMPTY
    }

    /// What removing the own tree of the folder `name` (`CacheNames.removeOwnTree`) would remove, with paths shown
    /// below `shown`, and whether the folder would be gone after it (nothing else left in it).
    static func ownTree(_ name: String, in root: CacheRoot,
                        shownAs shown: String) -> (report: CacheMaintenance.Report, emptied: Bool) {
        var report = CacheMaintenance.Report()
        var emptied = true
        for child in root.names(in: name) {
            let relative = "\(name)/\(child)"
            guard let info = root.status(relative) else { continue }
            let type = info.st_mode & S_IFMT
            if type == S_IFDIR, CacheNames.isPrefixFolder(child) || CacheNames.isKeyFolder(child) {
                let inner = ownTree(relative, in: root, shownAs: "\(shown)/\(child)")
                report.absorb(inner.report)
                emptied = emptied && inner.emptied
                continue
            }
            guard CacheNames.isEntryFile(child) else {
                emptied = false
                continue
            }
            let code = type == S_IFREG ? 0 : irregularRemoval(relative, in: root)
            if code == 0 {
                report.entries += 1
                report.bytes += type == S_IFREG ? Int64(info.st_size) : 0
                report.paths.append("\(shown)/\(child)")
            } else {
                report.failures.append(RemovalFailure(path: "\(shown)/\(child)", code: code))
                emptied = false
            }
        }
        return (report, emptied)
    }
}

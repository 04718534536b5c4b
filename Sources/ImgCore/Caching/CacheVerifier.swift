import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `cache verify`: reads every entry whole (one at a time, without changing its atime) and checks it against its
/// recorded size and XXH3-128 (`CacheEntryFile.decode`).
public enum CacheVerifier {
    /// One entry that failed its check.
    public struct Damage: Sendable, Equatable {
        public var path: String
        /// `unreadable`, `old format`, `bad header`, `size mismatch`, `digest mismatch`, `misplaced` (a whole
        /// entry at the path of another key: never served, `DiskCache.lookup`), or `not a regular file (a
        /// directory)` (or a symbolic link, a FIFO, a socket, a device: `IrregularEntry`).
        public var reason: String
        /// Whether `repair` removed it.
        public var removed: Bool
    }

    /// What a verification found.
    public struct Result: Sendable {
        public var checked = 0
        public var damaged: [Damage] = []
        /// Damaged entries that `repair` could not remove (a read-only folder or file system).
        public var failures: [RemovalFailure] = []
        public init() {}
    }

    /// `verify(root:)` of the directory at `directory` (a missing or refused one: nothing checked).
    public static func verify(directory: String, repair: Bool = false) -> Result {
        guard let root = try? CacheRoot.open(directory, create: false) else { return Result() }
        return verify(root: root, repair: repair)
    }

    /// Checks every entry; with `repair`, removes each damaged one (if the file at its path is still the one read).
    /// What stands at an entry's name but is not a regular file is damaged too (`not a regular file (a symbolic
    /// link)`): repairing removes it as `IrregularEntry.remove` does (a link itself, a directory only when empty).
    public static func verify(root: CacheRoot, repair: Bool = false) -> Result {
        var result = Result()
        let scan = CacheScan(root: root)
        for odd in scan.irregular {
            result.checked += 1
            var removed = false
            if repair {
                let folder = root.openFolder("entries/\(odd.folder)")
                let code = folder >= 0 ? IrregularEntry.remove(odd.name, in: folder, inode: odd.inode) : errno
                if folder >= 0 { close(folder) }
                removed = code == 0
                if code != 0, code != ENOENT, code != ESTALE {
                    result.failures.append(RemovalFailure(path: root.shown(odd.relativeName), code: code))
                }
            }
            result.damaged.append(Damage(path: root.shown(odd.relativeName), reason: "not a regular file (\(odd.kind))",
                                         removed: removed))
        }
        for entry in scan.entries {
            let path = root.shown(entry.relativeName)
            result.checked += 1
            guard let reason = problem(of: entry, in: root) else { continue }
            var removed = false
            if repair {
                switch CacheMaintenance.removeEntry(entry, root: root, stillDoomed: { _, _ in true }) {
                case .removed: removed = true
                case .kept: break
                case .failed(let code): result.failures.append(RemovalFailure(path: path, code: code))
                }
            }
            result.damaged.append(Damage(path: path, reason: reason, removed: removed))
        }
        return result
    }

    /// Why the entry scanned as `entry` is damaged, or nil when it is whole (or was replaced or removed meanwhile).
    static func problem(of entry: CacheEntryStat, in root: CacheRoot) -> String? {
        guard let (data, size, readInode) = EntryIO.readUntouched(entry.relativeName, in: root) else {
            return root.exists(entry.relativeName) ? "unreadable" : nil
        }
        guard readInode == entry.inode else { return nil }
        if data.count != size { return "unreadable" }
        guard let (metadata, offset) = CacheEntryFile.parseHeader(data) else {
            return CacheEntryFile.oldMagics.contains(where: { data.starts(with: $0) }) ? "old format" : "bad header"
        }
        guard CacheEntryFile.decode(data) != nil else {
            return data.count - offset != metadata.size ? "size mismatch" : "digest mismatch"
        }
        return isInPlace(metadata, entry) ? nil : "misplaced"
    }

    /// Whether an entry's metadata names the path it was found at: an original under its key's folder, a variant
    /// under its original key's folder and with its own key's name.
    static func isInPlace(_ metadata: CacheEntryMetadata, _ entry: CacheEntryStat) -> Bool {
        switch metadata.kind {
        case .original:
            return entry.isOriginal && entry.folder == DiskCache.entryFolder(originalKey: metadata.key)
        case .variant:
            guard let original = CacheKey.original(ofVariant: metadata.key) else { return false }
            return entry.name == "\(Digest.sha256(metadata.key)).variant" && entry.folder == DiskCache.entryFolder(originalKey: original)
        }
    }
}

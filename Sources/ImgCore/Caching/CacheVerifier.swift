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
        /// `unreadable`, `old format`, `bad header`, `size mismatch`, `digest mismatch`, or `misplaced` (a whole
        /// entry at the path of another key: never served, `DiskCache.lookup`).
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

    /// Checks every entry; with `repair`, removes each damaged one (if the file at its path is still the one read).
    public static func verify(directory: String, repair: Bool = false) -> Result {
        var result = Result()
        for entry in CacheScan(directory: directory).entries {
            let path = entry.path(in: directory)
            result.checked += 1
            guard let reason = problem(at: path, inode: entry.inode, expected: entry) else { continue }
            var removed = false
            if repair {
                switch CacheMaintenance.removeEntry(entry, directory: directory, stillDoomed: { _, _ in true }) {
                case .removed: removed = true
                case .kept: break
                case .failed(let code): result.failures.append(RemovalFailure(path: path, code: code))
                }
            }
            result.damaged.append(Damage(path: path, reason: reason, removed: removed))
        }
        return result
    }

    /// Why the entry at `path` is damaged, or nil when it is whole (or was replaced or removed meanwhile).
    static func problem(at path: String, inode: UInt64, expected entry: CacheEntryStat) -> String? {
        guard let (data, size, readInode) = EntryIO.readUntouched(path) else {
            return access(path, F_OK) == 0 ? "unreadable" : nil
        }
        guard readInode == inode else { return nil }
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

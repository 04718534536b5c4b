import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `cache verify`: reads every entry whole (one at a time, without changing its atime) and checks it against its
/// recorded size and SHA-256 (`CacheEntryFile.decode`).
public enum CacheVerifier {
    /// One entry that failed its check.
    public struct Damage: Sendable, Equatable {
        public var path: String
        /// `unreadable`, `bad header`, `size mismatch` or `digest mismatch`.
        public var reason: String
        /// Whether `repair` removed it.
        public var removed: Bool
    }

    /// What a verification found.
    public struct Result: Sendable {
        public var checked = 0
        public var damaged: [Damage] = []
        public init() {}
    }

    /// Checks every entry; with `repair`, removes each damaged one (if the file at its path is still the one read).
    public static func verify(directory: String, repair: Bool = false) -> Result {
        var result = Result()
        for entry in CacheScan(directory: directory).entries {
            let path = entry.path(in: directory)
            result.checked += 1
            guard let reason = problem(at: path, inode: entry.inode) else { continue }
            var removed = false
            if repair {
                removed = CacheMaintenance.removeEntry(entry, directory: directory) { _, _ in true }
            }
            result.damaged.append(Damage(path: path, reason: reason, removed: removed))
        }
        return result
    }

    /// Why the entry at `path` is damaged, or nil when it is whole (or was replaced or removed meanwhile).
    static func problem(at path: String, inode: UInt64) -> String? {
        guard let (data, size, readInode) = EntryIO.readUntouched(path) else {
            return access(path, F_OK) == 0 ? "unreadable" : nil
        }
        guard readInode == inode else { return nil }
        if data.count != size { return "unreadable" }
        guard let (metadata, offset) = CacheEntryFile.parseHeader(data) else { return "bad header" }
        if CacheEntryFile.decode(data) != nil { return nil }
        return data.count - offset != metadata.size ? "size mismatch" : "digest mismatch"
    }
}

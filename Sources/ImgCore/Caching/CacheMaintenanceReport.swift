#if canImport(Glibc)
import Glibc
#endif

extension CacheMaintenance {
    /// What a maintenance command removed (or, in a dry run, would remove), and what it could not remove.
    public struct Report: Sendable, Equatable {
        public var entries = 0
        public var bytes: Int64 = 0
        public var temporaries = 0
        public var temporaryBytes: Int64 = 0
        public var locks = 0
        public var folders = 0
        /// The entries' total size after the command (prune only).
        public var remainingBytes: Int64?
        /// Paths removed (or that would be), entries first; for `-v` and `--json`. A prune lists them only when asked
        /// (`listingPaths`), in the order it removed them.
        public var paths: [String] = []
        /// What was to be removed and could not be (a read-only folder or file system): none counts as removed.
        public var failures: [RemovalFailure] = []
        /// Whether the command was stopped (`stop` cancelled: SIGINT or SIGTERM) before it was done: what the report
        /// counts was removed, the rest was not looked at. Default false.
        public var interrupted = false
        public init() {}

        /// Adds another report's entries, bytes, lock files, paths (after this one's) and failures.
        mutating func absorb(_ other: Report) {
            entries += other.entries
            bytes += other.bytes
            locks += other.locks
            paths += other.paths
            failures += other.failures
        }
    }

    /// What became of one entry a removal meant to remove.
    enum EntryRemoval: Sendable, Equatable {
        /// Unlinked.
        case removed
        /// Left alone: gone, replaced or used since it was scanned.
        case kept
        /// The unlink was refused, with its `errno`.
        case failed(Int32)
    }
}

/// A file or folder that cache upkeep meant to remove and could not: its path and the system's error.
public struct RemovalFailure: Sendable, Equatable {
    /// Where the file is (for a file in a folder renamed away to be removed, where it was and is again).
    public var path: String
    /// The `errno` of the refused call.
    public var code: Int32

    public init(path: String, code: Int32) {
        (self.path, self.code) = (path, code)
    }

    /// The system's words for `code`, e.g. `Permission denied`.
    public var reason: String { String(cString: strerror(code)) }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One entry file as a `stat` shows it: enough for clean, prune and the summary without reading a byte of it.
public struct CacheEntryStat: Sendable {
    /// The entry's folder below `entries/`: `XX/<sha256(original key)>`.
    public var folder: String
    /// `original` or `<sha256(variant key)>.variant`.
    public var name: String
    /// File size in bytes (header, metadata and body).
    public var size: Int64
    /// Last access (the file's atime), seconds since 1970.
    public var lastAccess: Double
    /// Expiry (the file's mtime), seconds since 1970; far in the future (year 2400 or later) for never.
    public var expires: Double
    public var inode: UInt64

    public var isOriginal: Bool { name == "original" }

    /// The entry's full path in `directory`, as shown.
    public func path(in directory: String) -> String { "\(directory)/entries/\(folder)/\(name)" }

    /// The entry's name in the cache directory: `entries/XX/<hash>/NAME`.
    var relativeName: String { "entries/\(folder)/\(name)" }

    public func isExpired(at now: Double) -> Bool { expires < now }
}

/// Walks `entries/` with `openat`/`fdopendir`/`readdir`/`fstatat`, never following a symlink and never reading
/// a file. Files of other names are ignored; what has an entry's name but is not a regular file (a directory, a
/// symbolic link, a FIFO) is kept apart (`irregular`).
public struct CacheScan: Sendable {
    /// Every entry file found.
    public var entries: [CacheEntryStat] = []
    /// What was found at entries' names that is not a regular file.
    public var irregular: [IrregularEntry] = []
    /// Entry folders (`XX/<hash>`) that held no file at all.
    public var emptyFolders: [String] = []

    /// Scans the directory at `directory` (opened as `CacheRoot.open` does; a missing or refused one is empty).
    public init(directory: String) {
        guard let root = try? CacheRoot.open(directory, create: false) else {
            self.init(entries: [], emptyFolders: [])
            return
        }
        self.init(root: root)
    }

    private init(entries: [CacheEntryStat], emptyFolders: [String]) {
        (self.entries, self.emptyFolders) = (entries, emptyFolders)
    }

    /// Scans the open directory; a missing or unreadable `entries/` gives an empty scan.
    public init(root: CacheRoot) {
        entries.reserveCapacity(1024)
        Self.visitFolders(root: root) { folder, found in
            if !found.anything { emptyFolders.append(folder) }
            entries.append(contentsOf: found.entries)
            irregular.append(contentsOf: found.irregular)
        }
    }

    /// What one entry folder holds: its entry files, what has an entry's name but is no regular file, and whether
    /// it held any file at all.
    public struct FolderContents: Sendable {
        public var entries: [CacheEntryStat] = []
        public var irregular: [IrregularEntry] = []
        public var anything = false
    }

    /// Walks `entries/` one entry folder at a time, in the order `init(directory:)` lists them, holding only that
    /// folder's entries: what clean and the size check of prune take, so that their memory does not grow with the
    /// number of entries in the cache (a whole scan holds ~250 bytes an entry: 10 MB for 40,000). Once `stop`
    /// (default none) is cancelled, no further folder is visited.
    public static func visitFolders(root: CacheRoot, stop: Cancellation? = nil,
                                    _ body: (_ folder: String, _ contents: FolderContents) -> Void) {
        let top = root.openFolder("entries")
        guard top >= 0 else { return }
        defer { close(top) }
        for prefix in prefixFolders(of: top) { visitPrefix(prefix, in: top, stop: stop, body) }
    }

    /// How many threads a walk of the whole cache shares its folders among: the cores, at most 4.
    public static var defaultWalkThreads: Int { min(4, max(1, ProcessInfo.processInfo.activeProcessorCount)) }

    /// Walks `entries/` as `visitFolders` does, its `XX/` folders shared among `threads` threads (default
    /// `defaultWalkThreads`), each taking a run of them in order and adding what it finds to a partial result of its
    /// own, made by `start`. Returns the partial results in folder order (at least one), so that taking them in turn
    /// follows `visitFolders`' order. What one folder holds reaches one thread, once. Once `stop` (default none) is
    /// cancelled, no further folder is visited.
    static func visitFoldersConcurrently<Partial: Sendable>(
        root: CacheRoot, threads: Int = defaultWalkThreads, stop: Cancellation? = nil, start: @Sendable () -> Partial,
        _ body: @Sendable (_ partial: inout Partial, _ folder: String, _ contents: FolderContents) -> Void
    ) -> [Partial] {
        let top = root.openFolder("entries")
        guard top >= 0 else { return [start()] }
        defer { close(top) }
        let prefixes = prefixFolders(of: top)
        let shares = max(1, min(threads, prefixes.count))
        let run = (prefixes.count + shares - 1) / shares
        let partials = Locked<[Int: Partial]>([:])
        DispatchQueue.concurrentPerform(iterations: shares) { share in
            var partial = start()
            for prefix in prefixes[min(prefixes.count, share * run)..<min(prefixes.count, (share + 1) * run)] {
                visitPrefix(prefix, in: top, stop: stop) { folder, contents in body(&partial, folder, contents) }
            }
            partials.withLock { $0[share] = partial }
        }
        return partials.withLock { found in (0..<shares).map { found[$0] ?? start() } }
    }

    /// The `XX/` folders of an open `entries/`, in the order `readdir` lists them.
    private static func prefixFolders(of top: Int32) -> [String] {
        DirectoryListing.children(of: top).map(\.name).filter(CacheNames.isPrefixFolder)
    }

    /// Visits the entry folders of one `XX/` folder of an open `entries/`; none once `stop` is cancelled.
    private static func visitPrefix(_ prefix: String, in top: Int32, stop: Cancellation?,
                                    _ body: (_ folder: String, _ contents: FolderContents) -> Void) {
        guard stop?.isCancelled != true else { return }
        let prefixDescriptor = openat(top, prefix, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard prefixDescriptor >= 0 else { return }
        defer { close(prefixDescriptor) }
        for (hash, _) in DirectoryListing.children(of: prefixDescriptor) where CacheNames.isKeyFolder(hash) {
            if stop?.isCancelled == true { return }
            let folderDescriptor = openat(prefixDescriptor, hash, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard folderDescriptor >= 0 else { continue }
            defer { close(folderDescriptor) }
            let folder = prefix + "/" + hash
            body(folder, scanFolder(folderDescriptor, named: folder))
        }
    }

    /// Scans one original key's folder only (`folder` below `entries/`).
    public init(root: CacheRoot, folder: String) {
        let descriptor = root.openFolder("entries/\(folder)")
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        let contents = Self.scanFolder(descriptor, named: folder)
        (entries, irregular) = (contents.entries, contents.irregular)
    }

    /// The entry files of one open entry folder, what has an entry's name but is no regular file, and whether it
    /// held any file at all.
    private static func scanFolder(_ descriptor: Int32, named folder: String) -> FolderContents {
        var contents = FolderContents()
        for (name, _) in DirectoryListing.children(of: descriptor) {
            contents.anything = true
            guard Self.isEntryName(name) else { continue }
            var info = stat()
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            guard info.st_mode & S_IFMT == S_IFREG else {
                contents.irregular.append(IrregularEntry(folder: folder, name: name, type: info.st_mode & S_IFMT,
                                                         inode: UInt64(info.st_ino),
                                                         lastAccess: EntryIO.seconds(info.st_atim)))
                continue
            }
            contents.entries.append(CacheEntryStat(folder: folder, name: name, size: Int64(info.st_size),
                                                   lastAccess: EntryIO.seconds(info.st_atim),
                                                   expires: EntryIO.seconds(info.st_mtim), inode: UInt64(info.st_ino)))
        }
        return contents
    }

    /// `original` or 64 hex digits plus `.variant`.
    static func isEntryName(_ name: String) -> Bool { CacheNames.isEntryFile(name) }

    // MARK: totals

    /// Entries, originals, variants, bytes, expired entries, oldest and newest access.
    public struct Summary: Sendable, Equatable {
        public var entries = 0
        public var originals = 0
        public var variants = 0
        public var totalBytes: Int64 = 0
        public var expired = 0
        public var oldestAccess: Double?
        public var newestAccess: Double?
        /// What stands at entries' names but is not a regular file (`IrregularEntry`): in none of the counts above.
        public var irregular = 0
    }

    /// Totals of the scanned entries at time `now`.
    public func summary(now: Double = Date().timeIntervalSince1970) -> Summary {
        var summary = Self.summarise(entries, now: now)
        summary.irregular = irregular.count
        return summary
    }

    public static func summarise(_ entries: [CacheEntryStat], now: Double) -> Summary {
        var summary = Summary()
        for entry in entries {
            summary.entries += 1
            if entry.isOriginal { summary.originals += 1 } else { summary.variants += 1 }
            summary.totalBytes += entry.size
            if entry.isExpired(at: now) { summary.expired += 1 }
            summary.oldestAccess = min(summary.oldestAccess ?? entry.lastAccess, entry.lastAccess)
            summary.newestAccess = max(summary.newestAccess ?? entry.lastAccess, entry.lastAccess)
        }
        return summary
    }
}

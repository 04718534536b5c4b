import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What `cache inspect` shows about one entry: its stat, plus its metadata line (read without changing its atime).
public struct CacheItem: Sendable, Encodable {
    /// `original` or `variant`.
    public var kind: String
    public var url: String?
    public var key: String?
    /// The variant identifier (chain and encoding); nil for an original.
    public var variant: String?
    public var path: String
    /// File size in bytes (what the totals and prune count).
    public var size: Int64
    /// The image's own bytes, as recorded.
    public var imageBytes: Int?
    public var format: String?
    public var width: Int?
    public var height: Int?
    /// Times in seconds since 1970 (UTC); `expires` is nil for an entry that never expires.
    public var created: Double?
    public var lastAccess: Double
    public var expires: Double?
    public var expired: Bool
    public var etag: String?
    public var lastModified: String?
    /// The header or metadata line could not be read (`cache verify` says more).
    public var damaged: Bool
    /// What stands at the entry's name when it is not a regular file (`a directory`, `a symbolic link`, …), else nil.
    public var notRegular: String?
}

/// `cache inspect`: a summary from stats alone, and the shown entries' metadata lines. Changes nothing (no atime
/// either) and never starts libvips.
public enum CacheInspector {
    /// How many entries are listed unless told otherwise.
    public static let defaultLimit = 20

    /// The summary and the entries shown.
    public struct Inspection: Sendable {
        public var directory: String
        public var summary: CacheScan.Summary
        public var sizeLimit: Int64?
        /// When a prune last removed entries, seconds since 1970; nil if never.
        public var lastPruned: Double?
        /// Most recently used first.
        public var items: [CacheItem]
    }

    /// An inspection of a directory that does not exist (yet): no entries.
    public static func empty(directory: String, sizeLimit: Int64?) -> Inspection {
        Inspection(directory: directory, summary: CacheScan.Summary(), sizeLimit: sizeLimit, lastPruned: nil, items: [])
    }

    /// Inspects the whole cache (`originalKey` nil) or one original key's original and variants.
    /// `limit` nil lists every entry.
    public static func inspect(root: CacheRoot, originalKey: String? = nil, limit: Int? = defaultLimit,
                               sizeLimit: Int64? = nil, now: Double = Date().timeIntervalSince1970) -> Inspection {
        let scan = originalKey.map { CacheScan(root: root, folder: DiskCache.entryFolder(originalKey: $0)) }
            ?? CacheScan(root: root)
        return inspect(scan, root: root, limit: limit, sizeLimit: sizeLimit, now: now)
    }

    /// The inspection of what `scan` found, as the entries are now: one removed since is neither listed nor counted.
    static func inspect(_ scan: CacheScan, root: CacheRoot, limit: Int?, sizeLimit: Int64?, now: Double) -> Inspection {
        var entries = scan.entries
        let count = limit.map { min($0, entries.count) } ?? entries.count
        if count < entries.count {
            // Partial selection of the newest: cheaper than sorting everything.
            entries = Array(entries.sorted { $0.lastAccess > $1.lastAccess }.prefix(count))
        } else {
            entries.sort { $0.lastAccess > $1.lastAccess }
        }
        // Another process's prune or clear may have removed an entry since the scan found it.
        var items: [CacheItem] = [], gone = Set<String>()
        for entry in entries {
            if let item = item(for: entry, root: root, now: now) { items.append(item) } else { gone.insert(entry.relativeName) }
        }
        let irregular = scan.irregular.filter { root.exists($0.relativeName) }
        var summary = CacheScan.summarise(gone.isEmpty ? scan.entries : scan.entries.filter { !gone.contains($0.relativeName) },
                                          now: now)
        summary.irregular = irregular.count
        // What stands at an entry's name but is no regular file is listed after them, damaged.
        items += irregular.prefix(limit.map { max(0, $0 - items.count) } ?? irregular.count).map { odd in
            CacheItem(kind: odd.isOriginal ? "original" : "variant", path: root.shown(odd.relativeName), size: 0,
                      lastAccess: odd.lastAccess, expired: false, damaged: true, notRegular: odd.kind)
        }
        return Inspection(directory: root.path, summary: summary, sizeLimit: sizeLimit,
                          lastPruned: CacheMaintenance.lastPrune(root: root), items: items)
    }

    /// `inspect(root:…)` of the directory at `directory` (a missing or refused one: empty).
    public static func inspect(directory: String, originalKey: String? = nil, limit: Int? = defaultLimit,
                               sizeLimit: Int64? = nil, now: Double = Date().timeIntervalSince1970) -> Inspection {
        guard let root = try? CacheRoot.open(directory, create: false) else { return empty(directory: directory, sizeLimit: sizeLimit) }
        return inspect(root: root, originalKey: originalKey, limit: limit, sizeLimit: sizeLimit, now: now)
    }

    /// Reads one entry's header and metadata line (the first 64 KiB at most, never the body); nil when the entry is
    /// gone (removed since it was found).
    public static func item(for entry: CacheEntryStat, root: CacheRoot, now: Double) -> CacheItem? {
        let path = root.shown(entry.relativeName)
        let prefix = EntryIO.readUntouched(entry.relativeName, in: root, limit: CacheEntryFile.magic.count + CacheEntryFile.maxMetadataBytes)
        if prefix == nil, !root.exists(entry.relativeName) { return nil }
        let metadata = prefix.flatMap { CacheEntryFile.parseHeader($0.data)?.0 }
        // A host's robots.txt (`--robots-txt`) is kept as an original under its own key namespace.
        let kind = !entry.isOriginal ? "variant" : metadata?.key.hasPrefix(RobotsTxtGate.key("")) == true ? "robots" : "original"
        return CacheItem(kind: kind, url: metadata?.url, key: metadata?.key,
                         variant: metadata?.variant, path: path, size: entry.size, imageBytes: metadata?.size,
                         format: metadata?.format, width: metadata?.width, height: metadata?.height,
                         created: metadata?.created, lastAccess: entry.lastAccess,
                         expires: entry.expires >= EntryIO.neverThreshold ? nil : entry.expires, expired: entry.isExpired(at: now),
                         etag: metadata?.etag, lastModified: metadata?.lastModified,
                         // Unreadable, or another key's entry copied into this place (`cache verify`: misplaced).
                         damaged: metadata.map { !CacheVerifier.isInPlace($0, entry) } ?? true)
    }

    /// The original key of a command-line input, as fetch computes it (`CacheKey.original(for:)`): `--cache-key`
    /// wins; a URL keeps the query parameters `query` names, and a hash of its user info if it has any; a local file
    /// is keyed by the file it resolves to, with its size and modification time.
    public static func originalKey(forInput input: String, query: QueryInKey, cacheKey: String?) throws(ImgError) -> String {
        if let cacheKey { return cacheKey }
        let source = try ImageSource(parsing: input)
        let key: String?
        do {
            key = try CacheKey.original(for: source, query: query)
        } catch {
            if case .file(let path) = source { throw .usage("no such file '\(path)'") }
            throw error
        }
        guard let key else { throw .usage("standard input is never cached; give a URL") }
        return key
    }
}

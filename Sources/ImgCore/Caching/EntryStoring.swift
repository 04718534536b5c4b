#if canImport(Glibc)
import Glibc
#endif

/// An entry of the disk cache, named by its keys.
public enum EntryName: Hashable, Sendable {
    case original(key: String)
    case variant(originalKey: String, variantKey: String)

    /// The original key the entry belongs to.
    public var originalKey: String {
        switch self {
        case .original(let key), .variant(let key, _): key
        }
    }
}

/// What reading an entry found.
public typealias EntryLookup = DiskCache.Lookup

/// A cross-process lock held until `release()` (or until its holder dies).
public protocol EntryLock: AnyObject, Sendable {
    /// Lets the next waiter in; calling it again does nothing.
    func release()
}

/// Where a pipeline keeps entries across runs and processes: `DiskCache` is the default
/// (`PipelineConfiguration.entryStore`). Thread-safe, and safe against other processes using the same store.
public protocol EntryStoring: Sendable {
    /// Reads and checks an entry; a damaged one is removed and `.missing`. With `inPlace`, a large body may stay
    /// in its file (`EncodedBytes.file`).
    func lookup(_ entry: EntryName, inPlace: Bool) -> EntryLookup
    /// Records an access: last access now, expiry extended by `ttl` seconds (nil: never expires). False only when
    /// the entry is not there (removed meanwhile, by another process).
    @discardableResult
    func touch(_ entry: EntryName, ttl: Int64?) -> Bool
    /// An entry's metadata alone (its body neither read nor checked, its access time kept); nil when there is none.
    func recordedMetadata(of entry: EntryName) -> CacheEntryMetadata?
    /// Writes an entry whole, replacing an older one: a reader sees the old entry or the new one.
    func store(_ body: EncodedBytes, metadata: CacheEntryMetadata, as entry: EntryName) throws(ImgError)
    /// Removes one entry, if present.
    func remove(_ entry: EntryName)
    /// Removes every variant of an original (after the original changed).
    func removeVariants(ofOriginal key: String)
    /// Removes an original and all its variants.
    func removeEverything(ofOriginal key: String)
    /// Waits up to `timeout` seconds for the download lock of the original under `key`, shared with other
    /// processes, or until `cancellation` is cancelled; nil when it couldn't be had (the caller then goes on without it).
    func downloadLock(ofOriginal key: String, timeout: Double, cancellation: Cancellation?) -> (any EntryLock)?
    /// A directory on the store's file system for large downloads in progress; nil for none.
    var spoolDirectory: String? { get }
    /// From now on (a batch or prefetch that writes as it runs), keeps the store within `limit` bytes, never
    /// removing the entries of the originals whose keys `needed` gives (what the batch will still use).
    func keepWithin(limit: Int64, sparingOriginals needed: @escaping @Sendable () -> [String])
    /// From now on (a batch), large entries are not left in the page cache once written; a store that keeps no
    /// files does nothing.
    func releasePagesOfLargeEntries()
    /// At the end of a batch: the store at or under the limit `keepWithin` set, its pending upkeep done.
    func settle()
}

extension DiskCache: EntryStoring {
    /// The entry's name in the cache directory.
    func name(of entry: EntryName) -> String {
        switch entry {
        case .original(let key): originalName(originalKey: key)
        case .variant(let originalKey, let variantKey): variantName(originalKey: originalKey, variantKey: variantKey)
        }
    }

    public func lookup(_ entry: EntryName, inPlace: Bool) -> EntryLookup {
        let key = switch entry {
        case .original(let key): key
        case .variant(_, let variantKey): variantKey
        }
        return lookup(named: name(of: entry), key: key, inPlace: inPlace)
    }

    public func recordedMetadata(of entry: EntryName) -> CacheEntryMetadata? {
        EntryIO.readUntouched(name(of: entry), in: root, limit: CacheEntryFile.magic.count + CacheEntryFile.maxMetadataBytes)
            .flatMap { CacheEntryFile.parseHeader($0.data)?.0 }
    }

    @discardableResult
    public func touch(_ entry: EntryName, ttl: Int64?) -> Bool {
        touch(named: name(of: entry), ttl: ttl)
    }

    public func store(_ body: EncodedBytes, metadata: CacheEntryMetadata, as entry: EntryName) throws(ImgError) {
        try store(body, metadata: metadata, named: name(of: entry))
    }

    /// Removes the entry's file, and its folder when that is left empty (a writer racing with this makes it again).
    public func remove(_ entry: EntryName) {
        root.unlink(name(of: entry))
        root.removeFolder(entryFolderName(originalKey: entry.originalKey))
    }

    public func removeVariants(ofOriginal key: String) {
        removeVariants(originalKey: key)
    }

    public func removeEverything(ofOriginal key: String) {
        removeAll(originalKey: key)
    }

    public func downloadLock(ofOriginal key: String, timeout: Double, cancellation: Cancellation?) -> (any EntryLock)? {
        KeyLock.acquire(root: root, key: key, timeout: timeout, cancellation: cancellation).map(DiskDownloadLock.init)
    }

    /// `tmp/` in the cache directory, reached through its open descriptor (`CacheRoot.anchoredPath`): a spooled body
    /// becomes an entry by a link there, and never lands in a folder swapped in at the directory's path.
    public var spoolDirectory: String? { root.anchoredPath("tmp") }
}

/// A `KeyLock` released on demand.
final class DiskDownloadLock: EntryLock {
    private let held: Locked<KeyLock?>

    init(_ lock: KeyLock) { held = Locked(lock) }

    func release() { held.withLock { $0 = nil } }
}

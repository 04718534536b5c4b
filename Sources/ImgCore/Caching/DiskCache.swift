import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The on-disk cache: self-describing entry files published by rename, so a reader sees an old entry or a new one,
/// never part of one. Last access is the file's atime and expiry its mtime, both written by us with `futimens`.
///
/// Layout: `entries/XX/<sha256(original key)>/original` and `…/<sha256(variant key)>.variant`,
/// temporaries in `tmp/`, download locks in `locks/`, settings in `config`.
public final class DiskCache: Sendable {
    /// The cache directory, open (`CacheRoot`): every entry is read and written through its descriptor.
    public let root: CacheRoot
    /// The cache directory's path, as given.
    public var directory: String { root.path }

    /// What reading an entry found. The body is in memory unless the lookup asked for large bodies in place.
    public enum Lookup: Sendable {
        case fresh(CacheEntryMetadata, EncodedBytes)
        /// Present and whole but past its expiry: never served as it is, but its validators may renew it.
        case expired(CacheEntryMetadata, EncodedBytes)
        case missing
    }

    /// The size limit kept during a long run (`keepWithin`); nil (the default) leaves it to cleans and prunes.
    private let bound = Locked<CacheBound?>(nil)
    /// The largest entry stored (`refuseEntries`); default no bound.
    private let largestEntry = Atomic<Int64>(Int64.max)

    /// Whether entries of at least `pageReleaseSize` bytes leave the page cache once written (`releasePagesOfLargeEntries`);
    /// false (the default) leaves them to the kernel.
    private let releasesPages = Atomic<Bool>(false)
    /// What writes those entries out and drops their pages, off the writers' threads.
    private let pageReleaser = PageReleaser()

    /// The smallest entry whose pages `releasePagesOfLargeEntries` drops: 256 KiB.
    static let pageReleaseSize = 256 << 10

    /// Opens (creating if needed, mode 0700, with `CACHEDIR.TAG`) the directory, refusing one that another user
    /// could swap, or a folder on the way to it (`CacheRoot.open`).
    public convenience init(directory: String) throws(ImgError) {
        guard let root = try CacheRoot.open(directory, create: true) else { throw .io("cannot open \(directory)") }
        try self.init(root: root)
    }

    /// Uses a directory opened already, making the cache's own folders in it where missing.
    public init(root: CacheRoot) throws(ImgError) {
        self.root = root
        try root.prepareFolders()
    }

    // MARK: names (relative to the directory) and paths (as shown)

    /// `entries/XX/<sha256(key)>`: the folder of an original key's entries, in the directory.
    func entryFolderName(originalKey: String) -> String { "entries/" + Self.entryFolder(originalKey: originalKey) }

    func originalName(originalKey: String) -> String { entryFolderName(originalKey: originalKey) + "/original" }

    func variantName(originalKey: String, variantKey: String) -> String {
        entryFolderName(originalKey: originalKey) + "/\(Digest.sha256(variantKey)).variant"
    }

    /// The name in the directory of a path shown below it (`originalPath`, `variantPath`).
    func name(ofPath path: String) -> String {
        let prefix = root.shown("")
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    /// The folder of an original key's entries below `entries/`: `XX/<sha256(key)>`.
    public static func entryFolder(originalKey: String) -> String {
        let hash = Digest.sha256(originalKey)
        return "\(hash.prefix(2))/\(hash)"
    }

    /// The file of the original with this key, as shown (every operation goes through `root`).
    public func originalPath(originalKey: String) -> String { root.shown(originalName(originalKey: originalKey)) }

    /// The file of a variant, as shown; it lives beside its original so that both go together.
    public func variantPath(originalKey: String, variantKey: String) -> String {
        root.shown(variantName(originalKey: originalKey, variantKey: variantKey))
    }

    // MARK: reading

    /// Reads and checks the entry of `key` at `path`. A damaged one (bad header, size or digest), one of the old
    /// format, and one that records another key or kind (a file copied over another's path) are removed and
    /// reported missing: an entry is served only for the key it was written for.
    /// With `inPlace`, a body over `EncodedBytes.memoryLimit` is not read into memory: it comes back as a region
    /// of the entry file (kept open, so a prune that unlinks the entry meanwhile takes nothing away), its digest
    /// checked by streaming it.
    public func lookup(at path: String, key: String, now: Date = Date(), inPlace: Bool = false) -> Lookup {
        lookup(named: name(ofPath: path), key: key, now: now, inPlace: inPlace)
    }

    /// `lookup(at:)` of an entry by its name in the directory.
    func lookup(named name: String, key: String, now: Date = Date(), inPlace: Bool = false) -> Lookup {
        guard let entry = EntryIO.openEntry(name, in: root) else { return .missing }
        var owned: Int32? = entry.descriptor
        defer { if let owned { close(owned) } }
        let found: (CacheEntryMetadata, EncodedBytes)?
        if inPlace, entry.size > EncodedBytes.memoryLimit {
            found = EntryIO.readPrefix(entry.descriptor, count: min(entry.size, CacheEntryFile.maxHeaderBytes))
                .flatMap(CacheEntryFile.parseHeader)
                .flatMap { metadata, offset -> (CacheEntryMetadata, EncodedBytes)? in
                    let region = FileRegion(taking: entry.descriptor, offset: Int64(offset), count: entry.size - offset)
                    owned = nil
                    return CacheEntryFile.verify(metadata, body: region) ? (metadata, .file(region)) : nil
                }
        } else {
            found = EntryIO.readPrefix(entry.descriptor, count: entry.size)
                .flatMap { $0.count == entry.size ? CacheEntryFile.decode($0) : nil }
                .map { ($0.0, .memory($0.1)) }
        }
        let kind: CacheEntryMetadata.Kind = name.hasSuffix("/original") ? .original : .variant
        guard let (metadata, body) = found, metadata.key == key, metadata.kind == kind else {
            root.unlink(name)
            return .missing
        }
        return entry.times.modified < now.timeIntervalSince1970 ? .expired(metadata, body) : .fresh(metadata, body)
    }

    /// Records an access: last access now, expiry extended by the entry's own TTL.
    @discardableResult
    public func touch(_ path: String, ttl: Int64?, now: Date = Date()) -> Bool {
        touch(named: name(ofPath: path), ttl: ttl, now: now)
    }

    @discardableResult
    func touch(named name: String, ttl: Int64?, now: Date = Date()) -> Bool {
        root.setTimes(name, accessed: now.timeIntervalSince1970, expires: EntryIO.expiry(now: now, ttl: ttl))
    }

    // MARK: writing

    /// Writes an entry whole (temporary file, then rename) with last access now and expiry now + TTL.
    /// The header and the body are written each from where it lies: a body in memory is not copied beside its
    /// header first. A download spooled for the cache becomes the entry itself (its header written into the room
    /// the spool left, then the file linked in: its body is not written twice); another body in a file region is
    /// copied into the entry from its file, never through memory.
    public func store(_ body: EncodedBytes, metadata: CacheEntryMetadata, at path: String, now: Date = Date()) throws(ImgError) {
        try store(body, metadata: metadata, named: name(ofPath: path), now: now)
    }

    /// `store(_:metadata:at:)` of an entry by its name in the directory.
    func store(_ body: EncodedBytes, metadata: CacheEntryMetadata, named name: String, now: Date = Date()) throws(ImgError) {
        let header = CacheEntryFile.encodeHeader(metadata)
        let (accessed, expires) = (now.timeIntervalSince1970, EntryIO.expiry(now: now, ttl: metadata.ttl))
        var headerBytes = header.count
        let release = body.count >= Self.pageReleaseSize && releasesPages.load(ordering: .relaxed) ? pageReleaser : nil
        let temporary: String
        switch body {
        case .memory(let data):
            temporary = try EntryIO.writeTemporary(header, data, in: root, accessed: accessed, expires: expires,
                                                   releasingPages: release)
        case .file(let region):
            if let linked = EntryIO.linkSpooled(region, metadata: metadata, in: root, accessed: accessed,
                                                expires: expires, releasingPages: release) {
                (temporary, headerBytes) = (linked, Int(region.offset))
            } else {
                temporary = try EntryIO.writeTemporary(header, then: region, in: root, accessed: accessed,
                                                       expires: expires, releasingPages: release)
            }
        }
        try publish(temporary, as: name, size: Int64(headerBytes + body.count))
    }

    /// Renames a written temporary to its entry's name, within a run's size limit (`keepWithin`: an entry is
    /// admitted before it takes its name). The folder is made only when the rename finds it missing (a variant goes
    /// beside its original, whose folder exists): no mkdir per entry. A concurrent prune may remove the empty folder
    /// between mkdir and rename: make it again.
    private func publish(_ temporary: String, as name: String, size: Int64) throws(ImgError) {
        let bound = self.bound.withLock { $0 }
        do throws(ImgError) {
            if size > largestEntry.load(ordering: .relaxed) { throw CacheBound.tooLarge(size) }
            try bound?.admit(size)
        } catch {
            root.unlink(temporary)
            throw error
        }
        for attempt in 0..<3 {
            if root.rename(temporary, name) == 0 {
                bound?.landed(size)
                return
            }
            if errno != ENOENT || attempt == 2 { break }
            _ = try? root.makeFolders((name as NSString).deletingLastPathComponent)
        }
        let reason = String(cString: strerror(errno))
        bound?.withdrawn(size)
        root.unlink(temporary)
        throw .io("cannot write cache entry \(root.shown(name)): \(reason)")
    }

    /// From now on (a batch: originals written once, at scale, and not read again soon), an entry of at least
    /// `pageReleaseSize` is written out and dropped from the page cache once stored (by the `PageReleaser`, so that
    /// the writer does not wait for the disk), rather than left to fill the memory with pages nobody reads (and, on
    /// a virtual machine that returns freed memory to its host, to fault in fresh memory for every write).
    public func releasePagesOfLargeEntries() {
        releasesPages.store(true, ordering: .relaxed)
    }

    /// From now on keeps the directory within `limit` while this process writes to it (see `CacheBound`), never
    /// removing the entries of the originals whose keys `needed` gives (their folders: the original and its
    /// variants). Once per cache; later calls change nothing.
    public func keepWithin(limit: Int64, sparingOriginals needed: @escaping @Sendable () -> [String]) {
        bound.withLock { bound in
            if bound == nil {
                bound = CacheBound(root: root, limit: limit) { Set(needed().map(Self.entryFolder(originalKey:))) }
            }
        }
    }

    /// From now on stores no entry larger than `size` (what a size limit allows one entry, `CacheBound.largestEntry`):
    /// writing one fails with `.cacheUnavailable`, whether or not the run keeps the limit (`keepWithin`).
    public func refuseEntries(largerThan size: Int64) {
        largestEntry.store(size, ordering: .relaxed)
    }

    /// Waits for a prune under way and prunes once more if the directory is still over its limit (`keepWithin`);
    /// then waits until the pages of the large entries stored so far are released (`releasePagesOfLargeEntries`), for a
    /// second at most (`PageReleaser.drain`).
    public func settle() {
        bound.withLock { $0 }?.settle()
        pageReleaser.drain()
    }

    /// Removes every variant beside an original (after the original changed).
    public func removeVariants(originalKey: String) {
        let folder = entryFolderName(originalKey: originalKey)
        for name in root.names(in: folder) where name.hasSuffix(".variant") && CacheNames.isEntryFile(name) {
            root.unlink("\(folder)/\(name)")
        }
    }

    /// Removes an original and all its variants together (`CacheNames.removeEntryFolder`: the folder is renamed
    /// away first, then deleted; in place when it can't be renamed).
    @discardableResult
    public func removeAll(originalKey: String) -> CacheMaintenance.Report {
        CacheNames.removeEntryFolder(entryFolderName(originalKey: originalKey), in: root)
    }
}

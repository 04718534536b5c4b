import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The on-disk cache: self-describing entry files published by rename, so a reader sees an old entry or a new one,
/// never part of one. Last access is the file's atime and expiry its mtime, both written by us with `futimens`.
///
/// Layout: `entries/XX/<sha256(original key)>/original` and `…/<sha256(variant key)>.variant`,
/// temporaries in `tmp/`, download locks in `locks/`, settings in `config`.
public final class DiskCache: Sendable {
    /// The cache directory.
    public let directory: String

    /// What reading an entry found.
    public enum Lookup: Sendable {
        case fresh(CacheEntryMetadata, Data)
        /// Present and whole but past its expiry: never served as it is, but its validators may renew it.
        case expired(CacheEntryMetadata, Data)
        case missing
    }

    /// Opens (creating if needed, mode 0700, with `CACHEDIR.TAG`) the directory, refusing one that others may write to.
    public init(directory: String) throws(ImgError) {
        self.directory = directory
        try CacheDirectory.prepare(directory)
    }

    // MARK: paths

    func entryFolder(originalKey: String) -> String {
        "\(directory)/entries/\(Self.entryFolder(originalKey: originalKey))"
    }

    /// The folder of an original key's entries below `entries/`: `XX/<sha256(key)>`.
    public static func entryFolder(originalKey: String) -> String {
        let hash = Digest.sha256(originalKey)
        return "\(hash.prefix(2))/\(hash)"
    }

    /// The file of the original with this key.
    public func originalPath(originalKey: String) -> String { entryFolder(originalKey: originalKey) + "/original" }

    /// The file of a variant; it lives beside its original so that both go together.
    public func variantPath(originalKey: String, variantKey: String) -> String {
        entryFolder(originalKey: originalKey) + "/\(Digest.sha256(variantKey)).variant"
    }

    // MARK: reading

    /// Reads and checks an entry. A damaged one (bad header, size or digest) is removed and reported missing.
    public func lookup(at path: String, now: Date = Date()) -> Lookup {
        guard let (file, times) = EntryIO.readWhole(path) else { return .missing }
        guard let (metadata, body) = CacheEntryFile.decode(file) else {
            unlink(path)
            return .missing
        }
        return times.modified < now.timeIntervalSince1970 ? .expired(metadata, body) : .fresh(metadata, body)
    }

    /// Records an access: last access now, expiry extended by the entry's own TTL.
    public func touch(_ path: String, ttl: Int64?, now: Date = Date()) {
        EntryIO.setTimes(path, accessed: now.timeIntervalSince1970, expires: EntryIO.expiry(now: now, ttl: ttl))
    }

    // MARK: writing

    /// Writes an entry whole (temporary file, then rename) with last access now and expiry now + TTL.
    public func store(_ body: Data, metadata: CacheEntryMetadata, at path: String, now: Date = Date()) throws(ImgError) {
        let file = CacheEntryFile.encode(metadata, body: body)
        let temporary = try EntryIO.writeTemporary(file, in: "\(directory)/tmp",
                                                   accessed: now.timeIntervalSince1970,
                                                   expires: EntryIO.expiry(now: now, ttl: metadata.ttl))
        let folder = (path as NSString).deletingLastPathComponent
        for attempt in 0..<3 {
            _ = try? CacheDirectory.makePath(folder)
            if rename(temporary, path) == 0 { return }
            // A concurrent prune may remove the empty folder between mkdir and rename: make it again.
            if errno != ENOENT || attempt == 2 { break }
        }
        let reason = String(cString: strerror(errno))
        unlink(temporary)
        throw .io("cannot write cache entry \(path): \(reason)")
    }

    /// Removes every variant beside an original (after the original changed).
    public func removeVariants(originalKey: String) {
        let folder = entryFolder(originalKey: originalKey)
        for name in DirectoryListing.names(in: folder) where name.hasSuffix(".variant") {
            unlink("\(folder)/\(name)")
        }
    }

    /// Removes an original and all its variants together: the folder is renamed away first, then deleted.
    @discardableResult
    public func removeAll(originalKey: String) -> (entries: Int, bytes: Int64) {
        let folder = entryFolder(originalKey: originalKey)
        let doomed = "\(directory)/tmp/\(getpid())-\(UInt64.random(in: 0...UInt64.max)).removing"
        guard rename(folder, doomed) == 0 else { return (0, 0) }
        return DirectoryListing.removeTree(doomed)
    }
}

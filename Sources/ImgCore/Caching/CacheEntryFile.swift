import Foundation

/// What an entry says about itself, stored as one JSON line after the header line.
/// Last access and expiry are not here: they are the file's atime and mtime, written with `futimens`.
public struct CacheEntryMetadata: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable { case original, variant }

    public var url: String
    public var key: String
    /// The variant identifier (chain and encoding); nil for an original.
    public var variant: String?
    public var kind: Kind
    public var size: Int
    /// The XXH3-128 of the body (32 hex digits): an integrity check, not a defence against tampering.
    public var xxh3: String
    public var format: String?
    public var width: Int?
    public var height: Int?
    /// A variant's original's width and height (what a WebDataset sample's `original_width` says on a cache hit);
    /// nil (absent) for an original, and in an entry written before they were recorded.
    public var sourceWidth: Int?
    public var sourceHeight: Int?
    /// Seconds since 1970.
    public var created: Double
    /// Seconds an access extends the entry by; nil for never.
    public var ttl: Int64?
    public var etag: String?
    public var lastModified: String?
    public var contentType: String?
    /// A variant made under `--fail-on none` from a damaged input: what was wrong with it; absent otherwise.
    public var damage: String?
    /// A variant's facts (`--facts`), when it was rendered with them; nil (absent) otherwise.
    public var facts: ImageFacts?
    /// The `--fail-on` level a variant was checked at; nil (absent) for an original, and for a variant written
    /// before the level was recorded (checked at `truncated`, the only level then).
    public var checkedAt: FailOn?
    /// The `X-Robots-Tag` headers the original was sent with (a variant's entry copies its original's), one value
    /// per header: empty for none, nil (absent) in an entry written before they were recorded.
    public var robotsTags: [String]?
    /// The quality and distance `--quality auto` or `--format auto` chose for a variant; nil (absent) otherwise.
    public var chosen: EncodingChoice?
    /// A robots.txt entry's HTTP status (a 4xx is kept with no body: everything allowed); absent for other entries.
    public var httpStatus: Int?
    /// What a variant's rendering noted (`-v`: the first of several frames or pages written, an option its format
    /// lacks), said again on a hit; nil (absent) when it noted nothing, and in an entry written before notes were kept.
    public var notes: [String]?
}

/// The entry format: `IMGFETCH-ENTRY 3\n`, one line of JSON metadata, then the bytes. Formats 1 (keys that could
/// collide, no credentials in keys) and 2 (SHA-256 digests) are never read: their entries are misses.
public enum CacheEntryFile {
    static let magic = Data("IMGFETCH-ENTRY 3\n".utf8)
    /// The first lines of entries of earlier formats.
    static let oldMagics = [Data("IMGFETCH-ENTRY 1\n".utf8), Data("IMGFETCH-ENTRY 2\n".utf8)]
    /// The most a metadata line may take; larger is a damaged entry.
    static let maxMetadataBytes = 64 * 1024

    /// Serialises metadata and body into one file's bytes.
    public static func encode(_ metadata: CacheEntryMetadata, body: Data) -> Data {
        var file = encodeHeader(metadata)
        file.append(body)
        return file
    }

    /// The bytes before the body: the magic line and the metadata line. A large body is streamed after them.
    public static func encodeHeader(_ metadata: CacheEntryMetadata) -> Data {
        var header = magic
        header.append(metadataLine(metadata))
        header.append(0x0A)
        return header
    }

    /// The metadata as one line of JSON. A line over `maxMetadataBytes` would read as a damaged entry (and fail
    /// `cache verify` for everyone): the server's text of any length that the entry can do without, its validators
    /// (ETag, Last-Modified) and content type, is then left out, so the entry is kept but not revalidated.
    static func metadataLine(_ metadata: CacheEntryMetadata) -> Data {
        let line = jsonLine(metadata)
        guard line.count > maxMetadataBytes else { return line }
        var fitting = metadata
        (fitting.etag, fitting.lastModified, fitting.contentType) = (nil, nil, nil)
        return jsonLine(fitting)
    }

    /// `JSONEncoder`'s text of the metadata (sorted keys, slashes unescaped), written directly when no member needs
    /// its general machinery (facts and a search's choice are nested objects, notes an array: those entries go
    /// through it).
    static func jsonLine(_ metadata: CacheEntryMetadata) -> Data {
        if metadata.facts == nil, metadata.chosen == nil, metadata.notes == nil, let line = directLine(metadata) { return line }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(metadata)) ?? Data("{}".utf8)
    }

    /// The metadata's members in `JSONEncoder`'s sorted order (facts and chosen left out); nil when one cannot be
    /// written as it would write it.
    static func directLine(_ metadata: CacheEntryMetadata) -> Data? {
        var text = JSONObjectText()
        text.add("checkedAt", metadata.checkedAt?.rawValue)
        text.add("contentType", metadata.contentType)
        text.add("created", metadata.created)
        text.add("damage", metadata.damage)
        text.add("etag", metadata.etag)
        text.add("format", metadata.format)
        text.add("height", metadata.height)
        text.add("httpStatus", metadata.httpStatus)
        text.add("key", metadata.key)
        text.add("kind", metadata.kind.rawValue)
        text.add("lastModified", metadata.lastModified)
        text.add("robotsTags", metadata.robotsTags)
        text.add("size", metadata.size)
        text.add("sourceHeight", metadata.sourceHeight)
        text.add("sourceWidth", metadata.sourceWidth)
        text.add("ttl", metadata.ttl)
        text.add("url", metadata.url)
        text.add("variant", metadata.variant)
        text.add("width", metadata.width)
        text.add("xxh3", metadata.xxh3)
        return text.isExact ? text.finished() : nil
    }

    /// The room a download spooled for the cache leaves before its body (`BodySpool`), so that the spooled file can
    /// become the entry: 4 KiB, a header with a URL of up to about 3,000 characters. A longer one is copied.
    static let headerRoom = 4096

    /// The header made exactly `size` bytes long: the metadata line padded with spaces before its newline (JSON
    /// allows them there, so every reader parses it as it is); nil when it is longer than that.
    static func encodeHeader(_ metadata: CacheEntryMetadata, filling size: Int) -> Data? {
        var header = encodeHeader(metadata)
        guard header.count <= size else { return nil }
        header.removeLast()
        header.append(contentsOf: repeatElement(0x20, count: size - header.count - 1))
        header.append(0x0A)
        return header
    }

    /// The most bytes `parseHeader` needs to see: the magic line and the longest metadata line.
    static var maxHeaderBytes: Int { magic.count + maxMetadataBytes + 1 }

    /// Parses the header and metadata; returns the metadata and the offset where the body starts.
    /// Never trusts the input: any malformation returns nil.
    public static func parseHeader(_ file: Data) -> (CacheEntryMetadata, bodyOffset: Int)? {
        guard file.count >= magic.count, file.prefix(magic.count) == magic else { return nil }
        let start = file.startIndex + magic.count
        let limit = min(file.endIndex, start + maxMetadataBytes)
        guard let newline = file[start..<limit].firstIndex(of: 0x0A),
              let metadata = try? JSONDecoder().decode(CacheEntryMetadata.self, from: file[start..<newline]) else {
            return nil
        }
        return (metadata, newline + 1 - file.startIndex)
    }

    /// Checks an entry whose body is in a file region (read in windows, never whole) against its metadata.
    static func verify(_ metadata: CacheEntryMetadata, body: FileRegion) -> Bool {
        body.count == metadata.size && body.integrityDigest() == metadata.xxh3
    }

    /// Parses a whole entry and checks its body against the recorded size and XXH3-128.
    public static func decode(_ file: Data) -> (CacheEntryMetadata, body: Data)? {
        guard let (metadata, offset) = parseHeader(file) else { return nil }
        let body = file.subdata(in: (file.startIndex + offset)..<file.endIndex)
        guard body.count == metadata.size, Digest.integrity(body) == metadata.xxh3 else { return nil }
        return (metadata, body)
    }
}

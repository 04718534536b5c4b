import Foundation

/// A least-recently-used cache of encoded bytes for the life of the process, bounded by total size.
public final class MemoryCache: Sendable {
    private struct State {
        var items: [String: (value: ImagePayload, tick: UInt64)] = [:]
        var totalBytes = 0
        var tick: UInt64 = 0
    }

    /// The most bytes held at once; default 256 MiB. An item larger than this is not kept.
    public let limit: Int
    private let state = Locked(State())

    public init(limit: Int = 256 << 20) {
        self.limit = limit
    }

    /// The cached value, marking it most recently used.
    public func value(forKey key: String) -> ImagePayload? {
        state.withLock { state in
            guard let item = state.items[key] else { return nil }
            state.tick += 1
            state.items[key] = (item.value, state.tick)
            return item.value
        }
    }

    /// Stores a value, evicting the least recently used until the total fits. Bytes in a file (a large original)
    /// are not kept: holding them would keep their file open and its disk space taken for the whole run.
    public func store(_ value: ImagePayload, forKey key: String) {
        guard value.bytes.isInMemory, value.bytes.count <= limit else { return }
        state.withLock { state in
            if let old = state.items[key] { state.totalBytes -= old.value.bytes.count }
            state.tick += 1
            state.items[key] = (value, state.tick)
            state.totalBytes += value.bytes.count
            while state.totalBytes > limit, let oldest = state.items.min(by: { $0.value.tick < $1.value.tick }) {
                state.items[oldest.key] = nil
                state.totalBytes -= oldest.value.value.bytes.count
            }
        }
    }

    /// Drops the value under `key`, if any.
    public func remove(forKey key: String) {
        state.withLock { state in
            guard let old = state.items.removeValue(forKey: key) else { return }
            state.totalBytes -= old.value.bytes.count
        }
    }

    /// The bytes held now.
    public var totalBytes: Int { state.withLock { $0.totalBytes } }

    /// The keys held now, least recently used first.
    public var keys: [String] {
        state.withLock { $0.items.sorted { $0.value.tick < $1.value.tick }.map(\.key) }
    }
}

/// Encoded bytes with the little the pipeline must know about them without decoding.
public struct ImagePayload: Sendable {
    /// The bytes: in memory, or for a large original in a file region.
    public var bytes: EncodedBytes
    /// The bytes in memory (a file region is read whole: use `bytes` where they may be large).
    public var data: Data {
        get { bytes.data }
        set { bytes = .memory(newValue) }
    }
    public var format: ImageFormat?
    public var width: Int?
    public var height: Int?
    /// HTTP validators of an original, for revalidation.
    public var validators: Validators?
    public var contentType: String?
    /// The server sent `Cache-Control: no-store`: neither this original nor a variant made from it is written to
    /// the disk cache (the memory cache of this process may hold them); default false.
    public var noStore = false
    /// Notes from rendering, for `-v`; a variant's are kept in its disk entry too (`CacheEntryMetadata.notes`).
    public var notes: [String] = []
    /// The width and height of the image this was rendered from, when known.
    public var sourceSize: (width: Int, height: Int)?
    /// For a variant made under `--fail-on none` from a damaged input: the damage (`truncated: pixel data ends
    /// at row 208 of 442`); nil otherwise. Such a variant is cached under its own key (`ImageRequest.damagedVariantIdentifier`).
    public var damage: String?
    /// The facts of a variant rendered with `ImageRequest.facts` (stored in its disk entry too); nil for none.
    public var facts: ImageFacts?
    /// The `--fail-on` level a variant was checked at (stored in its disk entry too); nil for an original.
    public var checkedAt: FailOn?
    /// The URL it was fetched (or made) for, as its cache entries record it; nil for a local or standard input.
    public var recordedURL: String?
    /// The `X-Robots-Tag` headers its original was sent with, one value per header (a variant carries its
    /// original's); empty for none, nil when not known (an entry written before they were recorded, a local file).
    public var robotsTags: [String]?
    /// What `--quality auto` or `--format auto` chose for a variant (stored in its disk entry too); nil otherwise.
    public var chosen: EncodingChoice?

    public init(data: Data, format: ImageFormat?, width: Int? = nil, height: Int? = nil,
                validators: Validators? = nil, contentType: String? = nil) {
        self.init(bytes: .memory(data), format: format, width: width, height: height, validators: validators,
                  contentType: contentType)
    }

    public init(bytes: EncodedBytes, format: ImageFormat?, width: Int? = nil, height: Int? = nil,
                validators: Validators? = nil, contentType: String? = nil) {
        (self.bytes, self.format, self.width, self.height) = (bytes, format, width, height)
        (self.validators, self.contentType) = (validators, contentType)
    }
}

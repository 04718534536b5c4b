import Foundation

/// What a transfer returned: the body, or that the cached copy is still valid.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// The body: in memory, or in a spooled file when it was larger than `EncodedBytes.memoryLimit`.
    public var content: EncodedBytes
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
    /// The `Cache-Control` header (repeats joined with ", "); nil when there was none.
    public var cacheControl: String? = nil
    /// A 206's `Content-Range` (`bytes 0-65535/1048576`); nil otherwise.
    public var contentRange: String? = nil
    /// Each `X-Robots-Tag` header's value, in the order sent; empty when there was none.
    public var robotsTags: [String] = []
    /// The `Content-Encoding` header as sent (`gzip`); nil when there was none. A body asked for whole is decoded
    /// already; a range's is not (a range is asked for without `Accept-Encoding`, its offsets the file's).
    public var contentEncoding: String? = nil
    /// A 200 to a request of a range (the server ignored it) for a file over `--max-bytes`: the body is its first
    /// bytes, not the whole file (`Transfer.prefixEnd`).
    public var isPrefix = false
    /// Whether `Cache-Control` says `no-store`: nothing of it may be written to the disk cache. Its other
    /// directives (`max-age`, `no-cache`, …) and `Expires` are not used: `--ttl` decides, as in Kingfisher.
    public var noStore: Bool {
        guard let cacheControl else { return false }
        return cacheControl.split(separator: ",").contains { directive in
            directive.split(separator: "=", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces).lowercased() == "no-store"
        }
    }
    /// The body in memory (a spooled one is read whole: for small bodies only).
    public var body: Data { content.data }
    /// True for a 304 answer to a conditional request.
    public var notModified: Bool { status == 304 }
}

/// The validators of a cached entry, sent as `If-None-Match` and `If-Modified-Since`.
public struct Validators: Sendable, Equatable {
    public var etag: String?
    public var lastModified: String?

    public init(etag: String?, lastModified: String?) {
        (self.etag, self.lastModified) = (etag, lastModified)
    }

    public var isEmpty: Bool { etag == nil && lastModified == nil }
}

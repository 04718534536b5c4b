import Foundation

/// What a transfer returned: the body, or that the cached copy is still valid.
public struct HTTPResponse: Sendable {
    public var status: Int
    /// The body: in memory, or in a spooled file when it was larger than `EncodedBytes.memoryLimit`.
    public var content: EncodedBytes
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
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

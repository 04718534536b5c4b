import Foundation

/// A remote image's bytes from its start, read a range at a time (`Range: bytes=…`): as many as its header needs,
/// not the whole file, when the server supports ranges; the whole body when it ignores them (200 instead of 206).
struct RangedDownload {
    /// The bytes so far, from offset 0.
    private(set) var bytes = Data()
    /// Whether `bytes` is the whole file.
    private(set) var isWhole = false
    /// The whole file's size: from `Content-Range`, or the body's length once whole; nil while unknown.
    private(set) var fileSize: Int64?
    /// The last response (its status, type and validators).
    private(set) var last: HTTPResponse?
    /// Requests made and body bytes received.
    private(set) var requests = 0
    private(set) var bytesRead: Int64 = 0
    /// What `-v` says about each request.
    private(set) var notes: [String] = []

    /// The first range asked for: 64 KiB, enough for most headers.
    static let firstLength: Int64 = 65_536

    private let url: URL
    private let loader: HTTPLoader
    private let maxBytes: Int64

    init(url: URL, loader: HTTPLoader, maxBytes: Int64) {
        self.url = url
        self.loader = loader
        self.maxBytes = maxBytes
    }

    /// Asks for the first `firstLength` bytes (with `validators`, conditionally: a 304 leaves `bytes` empty), or
    /// for the whole file when `whole`.
    mutating func start(validators: Validators?, whole: Bool = false) throws(ImgError) {
        let length = min(Self.firstLength, maxBytes)
        let response: HTTPResponse
        do {
            response = try request(whole ? nil : 0...(length - 1), validators: validators)
        } catch {
            // 416: nothing at offset 0 (an empty file), or a server that refuses the range: ask for the body as it is.
            guard case .http(416, _) = error, !whole else { throw error }
            response = try request(nil, validators: validators)
        }
        if response.notModified { return }
        try take(response, at: 0, asked: whole ? nil : length)
    }

    /// Reads on, doubling what has been read (or, `toEnd`, all the rest in one request), up to the file's size and
    /// `maxBytes`; a network error (exit 3) when `maxBytes` is reached first.
    mutating func widen(toEnd: Bool = false) throws(ImgError) {
        precondition(!isWhole)
        let have = Int64(bytes.count)
        var end = toEnd ? maxBytes : min(have * 2, maxBytes)
        if let fileSize { end = min(end, fileSize) }
        guard end > have else {
            throw .network("no image header in the first \(ByteSize.exact(maxBytes))", cause: .noHeaderWithinLimit)
        }
        let response = try request(have...(end - 1), validators: nil)
        if response.status == 206, let first = last?.etag, let etag = response.etag, first != etag {
            throw .network("the image changed while being read (ETag \(first), then \(etag))", cause: .changedWhileRead)
        }
        try take(response, at: have, asked: end - have)
    }

    /// The response to a request of `range` (nil: the whole file). A server that encodes a range anyway (gzip
    /// although no encoding was accepted) sent bytes that are not the file's: the whole file is asked for instead,
    /// which libcurl decodes.
    private mutating func request(_ range: ClosedRange<Int64>?, validators: Validators?) throws(ImgError) -> HTTPResponse {
        let response = try requestOnce(range, validators: validators)
        guard range != nil, let encoding = response.contentEncoding?.trimmingCharacters(in: .whitespaces),
              !encoding.isEmpty, encoding.lowercased() != "identity" else { return response }
        notes.append("the server sent the range with Content-Encoding \(encoding): asking for the whole file")
        return try requestOnce(nil, validators: validators)
    }

    private mutating func requestOnce(_ range: ClosedRange<Int64>?, validators: Validators?) throws(ImgError) -> HTTPResponse {
        requests += 1
        let response = try loader.fetch(url, validators: validators, range: range)
        let body = response.notModified ? 0 : Int64(response.content.count)
        bytesRead += body
        notes.append("GET \(range.map { "bytes=\($0.lowerBound)-\($0.upperBound)" } ?? "(whole)"): \(response.status), \(body) bytes")
        return response
    }

    /// Adds a response's body: a 206 for the `asked` bytes from `offset`, or (200) the whole file.
    private mutating func take(_ response: HTTPResponse, at offset: Int64, asked: Int64?) throws(ImgError) {
        let body = response.content.data
        last = response
        guard response.status == 206 else {
            // A server that ignores ranges: the whole file, or of one over --max-bytes its first bytes.
            (bytes, isWhole) = (body, !response.isPrefix)
            if isWhole { fileSize = Int64(body.count) }
            return
        }
        let range = Self.contentRange(response.contentRange)
        guard let range, Self.range(range, covers: body.count, from: offset) else {
            throw .network("malformed HTTP response (a 206 whose Content-Range \(response.contentRange ?? "(none)") "
                           + "does not match the \(body.count) bytes from offset \(offset))", cause: .malformedReply)
        }
        if offset > 0, range.total != fileSize {
            throw .network("the image changed while being read (its size went from \(fileSize.map(String.init) ?? "*") "
                           + "to \(range.total.map(String.init) ?? "*") bytes)", cause: .changedWhileRead)
        }
        bytes.append(body)
        fileSize = range.total
        if let total = range.total, Int64(bytes.count) >= total { isWhole = true }
        if range.total == nil, let asked, Int64(body.count) < asked {
            // No total given: a range cut short is the end of the file.
            (isWhole, fileSize) = (true, Int64(bytes.count))
        }
    }

    /// Whether a Content-Range's offsets are exactly `count` bytes from `offset`. The offsets are the server's
    /// numbers (up to Int64.max), so they are compared without computing `last - first + 1`, which can overflow.
    static func range(_ range: (first: Int64, last: Int64, total: Int64?), covers count: Int, from offset: Int64) -> Bool {
        guard range.first == offset, count > 0 else { return false }
        let (last, overflow) = offset.addingReportingOverflow(Int64(count) - 1)
        return !overflow && range.last == last
    }

    /// Whether a 206's `Content-Range` is the whole file in `count` bytes (`bytes 0-(N-1)/N`).
    static func isWholeFile(_ contentRange: String?, count: Int) -> Bool {
        guard let range = Self.contentRange(contentRange), let total = range.total else { return false }
        return total == Int64(count) && Self.range(range, covers: count, from: 0)
    }

    /// `bytes A-B/TOTAL` (TOTAL may be `*`; B below TOTAL): the first and last offsets and the total, or nil.
    static func contentRange(_ value: String?) -> (first: Int64, last: Int64, total: Int64?)? {
        guard let value, value.lowercased().hasPrefix("bytes ") else { return nil }
        let parts = value.dropFirst(6).split(separator: "/", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let offsets = parts[0].split(separator: "-", maxSplits: 1)
        guard offsets.count == 2, let first = Int64(offsets[0].trimmingCharacters(in: .whitespaces)),
              let last = Int64(offsets[1].trimmingCharacters(in: .whitespaces)), last >= first else { return nil }
        let total = parts[1] == "*" ? nil : Int64(parts[1].trimmingCharacters(in: .whitespaces))
        if parts[1] != "*", total == nil { return nil }
        // A range that ends at or past the total it gives is not a range of that file.
        if let total, last >= total { return nil }
        return (first, last, total)
    }
}

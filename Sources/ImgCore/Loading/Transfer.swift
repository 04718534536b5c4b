import CCurl
import Foundation

/// The state of one attempt, reached from libcurl's C callbacks through their user-data pointer.
final class Transfer {
    let maxBytes: Int64
    let denyPrivateNetworks: Bool
    let progress: (@Sendable (Int64, Int64?) -> Void)?
    let cancellation: Cancellation?
    /// The body as it arrives: in memory, or spooled to a file once it is large.
    let body: BodySpool
    var exceededLimit = false
    /// For a request of a range, `maxBytes`: a server that ignores the range answers 200 with the whole file, and
    /// of a file larger than that its first bytes are kept to here and the transfer stopped (`keptPrefix`), where a
    /// body asked for whole would be refused (the header a range looks for is in them).
    var prefixEnd: Int64?
    private(set) var keptPrefix = false
    var blockedAddress: String?
    var headers: [String: String] = [:]
    /// Each `X-Robots-Tag` header's value, in order (not joined: a header's agent prefix covers that header only).
    var robotsTags: [String] = []
    var lastProgress: Int64 = 0
    /// The status of the response whose headers came last (0 before any): the body of a redirect is not kept.
    var status = 0
    /// The bytes of the header lines of that response received so far (its status line included).
    var headerBytes = 0
    /// Whether that response's headers have ended (the blank line after them came).
    var headersEnded = false

    init(options: NetworkOptions) {
        maxBytes = options.maxBytes
        denyPrivateNetworks = options.denyPrivateNetworks
        progress = options.progress
        cancellation = options.cancellation
        body = BodySpool(directory: options.spoolDirectory, hashing: options.digestSpooledBodies)
    }

    /// Appends body bytes; false (stop the transfer) once they pass `maxBytes` or can't be spooled.
    func receive(_ pointer: UnsafeRawPointer, count: Int) -> Bool {
        if RedirectPolicy.follows(status: status), headers["location"] != nil { return true }
        if let prefixEnd, status == 200, Int64(body.count) + Int64(count) > prefixEnd {
            let room = Int(max(0, prefixEnd - Int64(body.count)))
            keptPrefix = room == 0 || body.append(UnsafeRawBufferPointer(start: pointer, count: room))
            return false
        }
        if Int64(body.count) + Int64(count) > maxBytes {
            exceededLimit = true
            return false
        }
        if body.count == 0, let length = headers["content-length"].flatMap({ Int64($0) }) {
            body.expect(contentLength: length)
        }
        return body.append(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Records one header line; a status line starts a new response (after a redirect). A repeated header is joined
    /// to the earlier one with ", " (`Cache-Control: private` then `Cache-Control: no-store`).
    func receiveHeader(_ line: String) {
        if line.hasPrefix("HTTP/") {
            headers = [:]
            robotsTags = []
            let fields = line.split(separator: " ", maxSplits: 2)
            status = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
            headerBytes = line.utf8.count
            headersEnded = false
            return
        }
        headerBytes += line.utf8.count
        if line == "\r\n" || line == "\n" { headersEnded = true }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = ASCIIBytes.trimmed(line[line.index(after: colon)...])
        if name == "x-robots-tag", !value.isEmpty { robotsTags.append(value) }
        if let earlier = headers[name], !earlier.isEmpty {
            headers[name] = value.isEmpty ? earlier : earlier + ", " + value
        } else {
            headers[name] = value
        }
    }

    /// Whether libcurl ended the transfer with `code` because the response's headers were too large for it: it
    /// fails with "out of memory" on one header over 100 KB (CURLE_OUT_OF_MEMORY; CURLE_TOO_LARGE, 100, since 8.6),
    /// and with a receive error once all of them pass 300 KB, so a receive error after 256 KiB of headers is that.
    /// Only while the headers have not ended: the body is bounded by `maxBytes`, not here.
    func headersTooLarge(_ code: CURLcode) -> Bool {
        guard !headersEnded else { return false }
        return code == CURLE_OUT_OF_MEMORY || code.rawValue == 100 || (code == CURLE_RECV_ERROR && headerBytes >= 256 << 10)
    }
}

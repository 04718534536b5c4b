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
    var blockedAddress: String?
    var headers: [String: String] = [:]
    /// Each `X-Robots-Tag` header's value, in order (not joined: a header's agent prefix covers that header only).
    var robotsTags: [String] = []
    var lastProgress: Int64 = 0
    /// The status of the response whose headers came last (0 before any): the body of a redirect is not kept.
    var status = 0

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
            return
        }
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

}

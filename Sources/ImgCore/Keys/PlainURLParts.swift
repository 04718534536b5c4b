/// The parts of a URL written plainly, read from its text: `scheme://host[:port][/path]` in printable ASCII, without
/// user info, an IPv6 address, a query or a fragment, as nearly every URL of a list is. What `URLComponents` gives
/// for such a URL (its percent-encoded host and path, its port), without parsing it again: the original key and
/// the checks made on every line of a batch (the lines of other shards included) take them. Nil for any other URL:
/// the caller asks `URLComponents`.
struct PlainURLParts {
    /// Lower-cased.
    let scheme: String
    /// As written (percent-encoded), not lower-cased.
    let host: String
    /// Nil when the URL gives none (or an empty one).
    let port: Int?
    /// As written (percent-encoded); empty when the URL has none.
    let path: String

    init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !Self.excluded[Int($0)] }),
              let schemeEnd = ASCIIBytes.firstOccurrence(of: Array("://".utf8), in: bytes), schemeEnd > 0
        else { return nil }
        let authorityStart = schemeEnd + 3
        let pathStart = bytes[authorityStart...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
        let authority = bytes[authorityStart..<pathStart]
        let colon = authority.lastIndex(of: UInt8(ascii: ":"))
        let hostBytes = authority[..<(colon ?? pathStart)]
        // A scheme is a letter, then letters, digits, `+`, `-` and `.` (RFC 3986).
        guard !hostBytes.isEmpty, ASCIIBytes.isLetter(bytes[0]), bytes[0..<schemeEnd].allSatisfy(Self.isSchemeByte)
        else { return nil }
        var port: Int?
        if let colon, colon + 1 < pathStart {
            let digits = bytes[(colon + 1)..<pathStart]
            guard digits.count <= 9, digits.allSatisfy(ASCIIBytes.isDigit) else { return nil }
            port = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
        scheme = String(decoding: bytes[0..<schemeEnd].map(ASCIIBytes.lowercased), as: UTF8.self)
        host = String(decoding: hostBytes, as: UTF8.self)
        self.port = port
        path = String(decoding: bytes[pathStart...], as: UTF8.self)
    }

    /// Bytes that make a URL not plain: user info, an IPv6 address, a query, a fragment, a backslash.
    private static let excluded = (0..<128).map { "@[]?#\\".utf8.contains(UInt8($0)) }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        ASCIIBytes.isLetter(byte) || ASCIIBytes.isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: ".")
    }
}

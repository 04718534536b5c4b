/// `URLSpelling.spell` for an input of printable ASCII (bytes 0x20–0x7E), byte by byte: the same scheme, user info,
/// host, port, path, query and fragment, escaped by the same sets, without making a `Character` of each byte (a list
/// row's URL is parsed on every line of a batch, the lines of other shards included). Nil for any other input, and
/// for one `URLSpelling` would refuse (no `://`, no host, a bad port or IPv6 address, a character or an escape no host
/// may hold):
/// the caller then spells it character by character, which words the refusal.
enum ASCIIURLSpelling {
    static func spell(_ input: String) -> String? {
        var bytes = Array(input.utf8)
        guard bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }),
              let schemeEnd = ASCIIBytes.firstOccurrence(of: Array("://".utf8), in: bytes) else { return nil }
        var output = bytes[0..<schemeEnd].map(ASCIIBytes.lowercased) + Array("://".utf8)
        let authorityStart = schemeEnd + 3
        var end = authorityStart
        while end < bytes.count, !Self.endsAuthority(bytes[end]) { end += 1 }
        var hostStart = authorityStart
        if let at = bytes[authorityStart..<end].lastIndex(of: UInt8(ascii: "@")) {
            let colon = bytes[authorityStart..<at].firstIndex(of: UInt8(ascii: ":"))
            encode(bytes[authorityStart..<(colon ?? at)], keeping: Self.userInfoSafe, into: &output)
            if let colon {
                output.append(UInt8(ascii: ":"))
                encode(bytes[(colon + 1)..<at], keeping: Self.userInfoSafe, into: &output)
            }
            output.append(UInt8(ascii: "@"))
            hostStart = at + 1
        }
        guard let hostAndPort = hostAndPort(bytes[hostStart..<end]) else { return nil }
        output += hostAndPort
        // A backslash in the path is a `/`, as browsers read it.
        let pathEnd = bytes[end...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? bytes.count
        for index in end..<pathEnd where bytes[index] == UInt8(ascii: "\\") { bytes[index] = UInt8(ascii: "/") }
        pathQueryAndFragment(bytes[end...], into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    private static func endsAuthority(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#")
            || byte == UInt8(ascii: "\\")
    }

    /// The host and port as they are; nil where `URLSpelling` refuses them.
    private static func hostAndPort(_ authority: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let (start, end) = (authority.startIndex, authority.endIndex)
        var hostEnd = end
        let bracketed = start < end && authority[start] == UInt8(ascii: "[")
        if bracketed {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            let address = authority[(start + 1)..<close]
            let allowed = { (byte: UInt8) in
                ASCIIBytes.isHexDigit(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
            }
            guard address.allSatisfy(allowed) else { return nil }
            hostEnd = close + 1
            if hostEnd < end, authority[hostEnd] != UInt8(ascii: ":") { return nil }
        } else if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
            hostEnd = colon
        }
        guard start != hostEnd else { return nil }
        if !bracketed, authority[start..<hostEnd].contains(where: { Self.hostUnsafe[Int($0)] }) { return nil }
        if !bracketed {
            for index in start..<hostEnd where authority[index] == UInt8(ascii: "%") {
                let escape = Array(authority[(index + 1)..<min(index + 3, hostEnd)])
                if URLSpelling.hostEscapeProblem(escape) != nil { return nil }
            }
        }
        if hostEnd < end {
            let port = authority[(hostEnd + 1)..<end]
            guard port.allSatisfy(ASCIIBytes.isDigit), URLSpelling.isPort(port.count, { Int(port[port.startIndex + $0] - 48) })
            else { return nil }
        }
        return authority
    }

    /// The path, the query and the fragment, each escaped by its own set (backslashes in the path already `/`).
    private static func pathQueryAndFragment(_ rest: ArraySlice<UInt8>, into output: inout [UInt8]) {
        let queryStart = rest.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? rest.endIndex
        encode(rest[..<queryStart], keeping: Self.pathSafe, into: &output)
        var index = queryStart
        if index < rest.endIndex, rest[index] == UInt8(ascii: "?") {
            let fragmentStart = rest[(index + 1)...].firstIndex(of: UInt8(ascii: "#")) ?? rest.endIndex
            output.append(UInt8(ascii: "?"))
            encode(rest[(index + 1)..<fragmentStart], keeping: Self.querySafe, into: &output)
            index = fragmentStart
        }
        if index < rest.endIndex {
            output.append(UInt8(ascii: "#"))
            encode(rest[(index + 1)...], keeping: Self.fragmentSafe, into: &output)
        }
    }

    /// Percent-encodes every byte not in `safe`; a `%` followed by two hex digits is kept, another becomes `%25`.
    private static func encode(_ text: ArraySlice<UInt8>, keeping safe: [Bool], into output: inout [UInt8]) {
        for index in text.indices {
            let byte = text[index]
            if byte == UInt8(ascii: "%") {
                let isEscape = index + 2 < text.endIndex && ASCIIBytes.isHexDigit(text[index + 1])
                    && ASCIIBytes.isHexDigit(text[index + 2])
                output += isEscape ? [byte] : Array("%25".utf8)
            } else if safe[Int(byte)] {
                output.append(byte)
            } else {
                ASCIIBytes.appendEscape(byte, to: &output)
            }
        }
    }

    /// By byte value: whether the byte is kept as it is (printable ASCII outside the set's `unsafe` characters).
    private static func table(_ unsafe: String) -> [Bool] {
        (0..<128).map { $0 > 0x20 && $0 < 0x7F && !unsafe.utf8.contains(UInt8($0)) }
    }

    private static let pathSafe = table(URLSpelling.pathUnsafe)
    private static let querySafe = table(URLSpelling.queryUnsafe)
    private static let fragmentSafe = table(URLSpelling.fragmentUnsafe)
    private static let userInfoSafe = table(URLSpelling.userInfoUnsafe)
    private static let hostUnsafe = (0..<128).map { URLSpelling.hostUnsafe.utf8.contains(UInt8($0)) }
}

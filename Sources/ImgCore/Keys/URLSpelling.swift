import Foundation

/// Spells an http(s) URL as browsers and curl send it (the WHATWG URL standard's percent-encode sets): characters that
/// must be escaped are, as UTF-8 bytes (`/café photo.jpg` -> `/caf%C3%A9%20photo.jpg`), and existing escapes are kept,
/// never escaped again (`%20` stays `%20`; only a `%` that starts no escape becomes `%25`). A backslash before the
/// query is a `/`, as browsers read it. What no URL may hold (a control character, a space or a non-ASCII character
/// in the host, a character libcurl refuses in a host, an escape in the host of a byte no host name may hold, a
/// port that is not a number) is refused naming the character and its position.
public enum URLSpelling {
    /// The spelled URL; `ImgError.usage` saying which character at which position (1-based, in characters) is wrong.
    /// `shown` gives how messages show the input (its password hidden), asked only for a message. An input of
    /// printable ASCII is spelled byte by byte (`ASCIIURLSpelling`, what a list's URLs nearly always are); any other,
    /// and any the byte path would refuse, character by character, where the refusals are worded.
    public static func spell(_ input: String, shown: () -> String) throws(ImgError) -> String {
        if let spelled = ASCIIURLSpelling.spell(input) { return spelled }
        return try spellCharacters(input, shown: shown())
    }

    /// `spell` character by character: any input.
    static func spellCharacters(_ input: String, shown: String) throws(ImgError) -> String {
        let characters = Array(input)
        let refuse = { (index: Int, why: String) -> ImgError in refusal(of: characters, at: index, why, shown: shown) }
        for (index, character) in characters.enumerated()
        where character.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw refuse(index, "is a control character")
        }
        guard let separator = input.range(of: "://") else { throw .usage("malformed URL '\(shown)'") }
        let schemeEnd = input.distance(from: input.startIndex, to: separator.lowerBound)
        var index = schemeEnd + 3
        let authorityStart = index
        while index < characters.count, !"/?#\\".contains(characters[index]) { index += 1 }
        let authority = characters[authorityStart..<index]
        var output = String(characters[0..<schemeEnd]).lowercased() + "://"

        // User info: everything before the authority's last '@'.
        var hostStart = authorityStart
        if let at = authority.lastIndex(of: "@") {
            let userInfo = characters[authorityStart..<at]
            let colon = userInfo.firstIndex(of: ":")
            output += encode(userInfo[..<(colon ?? at)], keeping: userInfoSafe)
            if let colon { output += ":" + encode(userInfo[(colon + 1)...], keeping: userInfoSafe) }
            output += "@"
            hostStart = at + 1
        }
        output += try hostAndPort(characters, hostStart..<index, shown: shown, refuse: refuse)
        output += pathQueryAndFragment(characters, from: index)
        return output
    }

    /// The message of a refused character: which one (by its code points, and itself when visible), where (1-based).
    private static func refusal(of characters: [Character], at index: Int, _ why: String, shown: String) -> ImgError {
        let character = characters[index]
        let name = character.unicodeScalars.map { String(format: "U+%04X", $0.value) }.joined(separator: " ")
        let visible = character.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F } ? "'\(character)' (\(name))" : name
        return .usage("malformed URL '\(shown.escapingControlCharacters)': \(visible) at position \(index + 1) \(why)")
    }

    /// The host (a name or a bracketed IPv6 address) and the port of the authority's `range` after its user info, as
    /// they are; a character no host or port may hold is refused.
    private static func hostAndPort(_ characters: [Character], _ range: Range<Int>, shown: String,
                                    refuse: (Int, String) -> ImgError) throws(ImgError) -> String {
        let (start, end) = (range.lowerBound, range.upperBound)
        var hostEnd = end
        if start < end, characters[start] == "[" {
            guard let close = characters[start..<end].firstIndex(of: "]") else {
                throw refuse(start, "opens an IPv6 address that is not closed")
            }
            for position in (start + 1)..<close where !(characters[position].isHexDigit || ":.".contains(characters[position])) {
                throw refuse(position, "can't be in an IPv6 address")
            }
            hostEnd = close + 1
            if hostEnd < end, characters[hostEnd] != ":" { throw refuse(hostEnd, "can't follow an IPv6 address") }
        } else if let colon = characters[start..<end].lastIndex(of: ":") {
            hostEnd = colon
        }
        if start == hostEnd { throw .usage("malformed URL '\(shown)': no host") }
        for position in start..<hostEnd where characters[start] != "[" {
            let character = characters[position]
            if !character.isASCII {
                throw refuse(position, "can't be in a host name (give an international name in its xn-- form)")
            }
            if hostUnsafe.contains(character) { throw refuse(position, "can't be in a host name") }
            if character == "%" {
                let digits = characters[(position + 1)..<min(position + 3, hostEnd)].compactMap(\.asciiValue)
                if let why = hostEscapeProblem(digits) { throw refuse(position, why) }
            }
        }
        var output = String(characters[start..<hostEnd])
        if hostEnd < end {
            for position in (hostEnd + 1)..<end where !characters[position].isASCIIDigit {
                throw refuse(position, "can't be in a port number")
            }
            let digits = Array(characters[(hostEnd + 1)..<end])
            guard isPort(digits.count, { Int(digits[$0].asciiValue! - 48) }) else {
                throw .usage("malformed URL '\(shown)': port \(String(digits)) is not a port number (1 to 65535)")
            }
            output += String(characters[hostEnd..<end])
        }
        return output
    }

    /// Whether the `count` decimal digits `digit(0)`, `digit(1)`, ... spell a port from 1 to 65535, or are none (the
    /// scheme's default port).
    static func isPort(_ count: Int, _ digit: (Int) -> Int) -> Bool {
        guard count > 0 else { return true }
        var value = 0
        for index in 0..<count {
            value = value * 10 + digit(index)
            if value > 65_535 { return false }
        }
        return value > 0
    }

    /// The path (a backslash read as `/`), the query and the fragment from `start` on, each escaped by its own set.
    private static func pathQueryAndFragment(_ characters: [Character], from start: Int) -> String {
        var index = start
        var path: [Character] = []
        while index < characters.count, characters[index] != "?", characters[index] != "#" {
            path.append(characters[index] == "\\" ? "/" : characters[index])
            index += 1
        }
        var output = encode(path[...], keeping: pathSafe)
        if index < characters.count, characters[index] == "?" {
            let start = index + 1
            index = start
            while index < characters.count, characters[index] != "#" { index += 1 }
            output += "?" + encode(characters[start..<index], keeping: querySafe)
        }
        if index < characters.count, characters[index] == "#" {
            output += "#" + encode(characters[(index + 1)...], keeping: fragmentSafe)
        }
        return output
    }

    /// ASCII characters kept as they are: those outside the WHATWG percent-encode sets, with `%` (kept where it starts an
    /// escape) and the characters that Foundation's URL parser would otherwise refuse (`[`, `]`, `\`, `^`, `|`) escaped.
    static let pathUnsafe = " \"#<>?`{}[]\\^|"
    static let queryUnsafe = " \"#<>'`{}[]\\^|"
    static let fragmentUnsafe = " \"<>`#{}[]\\^|"
    static let userInfoUnsafe = " \"#<>?`{}/:;=@[\\]^|"
    /// What no host name may hold: what libcurl refuses in one (`!$&'()*+,;=` among them) and what ends it.
    static let hostUnsafe = " \"<>^`{|}[]@!$&'()*+,;="

    /// Why the escape of a host starting with `%` and followed by `digits` (the next two bytes, fewer at the host's
    /// end) can't be sent, or nil when it can: libcurl decodes a host's escapes, so one must spell a byte a host
    /// name may hold (an ASCII letter, digit, `-`, `.`, `_` or `~`): not a byte of UTF-8 (an international name goes
    /// in its xn-- form), nor a control, a space or a character no host may hold.
    static func hostEscapeProblem(_ digits: [UInt8]) -> String? {
        guard digits.count == 2, digits.allSatisfy(ASCIIBytes.isHexDigit),
              let byte = UInt8(String(decoding: digits, as: UTF8.self), radix: 16) else {
            return "starts no escape (%XX) and can't be in a host name"
        }
        if byte >= 0x80 {
            return "escapes a byte of a non-ASCII character (give an international name in its xn-- form)"
        }
        guard ASCIIBytes.isLetter(byte) || ASCIIBytes.isDigit(byte) || "-._~".utf8.contains(byte) else {
            return "escapes a character that can't be in a host name"
        }
        return nil
    }
    private static let pathSafe = asciiSet(except: pathUnsafe)
    private static let querySafe = asciiSet(except: queryUnsafe)
    private static let fragmentSafe = asciiSet(except: fragmentUnsafe)
    private static let userInfoSafe = asciiSet(except: userInfoUnsafe)

    private static func asciiSet(except excluded: String) -> Set<Character> {
        Set((0x21..<0x7F).map { Character(Unicode.Scalar(UInt8($0))) }).subtracting(excluded)
    }

    /// Percent-encodes every character not in `safe` as UTF-8 bytes; a `%` followed by two hex digits is kept.
    private static func encode(_ text: ArraySlice<Character>, keeping safe: Set<Character>) -> String {
        var output = ""
        var position = text.startIndex
        while position < text.endIndex {
            let character = text[position]
            if character == "%" {
                let next = text.index(after: position)
                let isEscape = next + 1 < text.endIndex && text[next].isHexDigit && text[next + 1].isHexDigit
                    && text[next].isASCII && text[next + 1].isASCII
                output += isEscape ? "%" : "%25"
            } else if safe.contains(character) {
                output.append(character)
            } else {
                var escaped: [UInt8] = []
                for byte in String(character).utf8 { ASCIIBytes.appendEscape(byte, to: &escaped) }
                output += String(decoding: escaped, as: UTF8.self)
            }
            position += 1
        }
        return output
    }
}

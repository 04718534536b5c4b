import Foundation

extension Unicode.Scalar {
    /// Whether a terminal could act on this scalar rather than show it, or show nothing of it: the C0 controls, DEL,
    /// the C1 controls (U+0080–U+009F, among them CSI U+009B and OSC U+009D), the bidirectional marks, overrides and
    /// isolates (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), which reorder the text shown after them, and the
    /// invisible zero-width space, word joiner and byte-order mark (U+200B, U+2060, U+FEFF), which a message
    /// quoting a URL would otherwise hide (the joiners of emoji, U+200C and U+200D, are shown as they are).
    public var isUnsafeForTerminal: Bool {
        switch value {
        case 0..<0x20, 0x7F...0x9F, 0x200B, 0x200E, 0x200F, 0x202A...0x202E, 0x2060, 0x2066...0x2069, 0xFEFF: true
        default: false
        }
    }
}

extension String {
    /// The text with line breaks and other characters a terminal would act on written `\n`, `\r`, `\t`, `\xNN` (the
    /// other C0 controls and DEL) or `\u{NNNN}` (C1 controls, bidirectional marks, invisible characters), so that a
    /// message quoting it (a file name, a header) stays on one line and shows what it holds.
    public var escapingControlCharacters: String {
        guard unicodeScalars.contains(where: \.isUnsafeForTerminal) else { return self }
        var result = ""
        for scalar in unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\x" + hexadecimal(scalar.value, digits: 2)
            case _ where scalar.isUnsafeForTerminal:
                result += "\\u{" + hexadecimal(scalar.value, digits: 4) + "}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

extension String {
    /// JSON text with the characters a terminal would act on that JSON leaves as they are (DEL, the C1 controls,
    /// the bidirectional and invisible ones: `isUnsafeForTerminal`) written as `\uXXXX` escapes: the same JSON
    /// value, safe to show. JSON outside its strings is ASCII, so only what strings hold changes.
    public var escapingTerminalControlsInJSON: String {
        let unsafe = { (scalar: Unicode.Scalar) in scalar.value >= 0x7F && scalar.isUnsafeForTerminal }
        guard unicodeScalars.contains(where: unsafe) else { return self }
        var result = ""
        for scalar in unicodeScalars {
            if unsafe(scalar) {
                result += "\\u" + hexadecimal(scalar.value, digits: 4)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

extension Data {
    /// UTF-8 JSON text escaped as `String.escapingTerminalControlsInJSON` does (itself when all ASCII).
    public var escapingTerminalControlsInJSON: Data {
        guard contains(where: { $0 >= 0x7F }) else { return self }
        return Data(String(decoding: self, as: UTF8.self).escapingTerminalControlsInJSON.utf8)
    }
}

/// `value` in upper-case hexadecimal, padded with zeros to at least `digits`.
private func hexadecimal(_ value: UInt32, digits: Int) -> String {
    let hex = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, digits - hex.count)) + hex
}

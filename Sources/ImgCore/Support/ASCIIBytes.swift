import Foundation

/// Small byte-level text helpers for the per-line paths, where Foundation's general string routines cost more than
/// the work (docs/BENCHMARKS.md, "A line's string work").
enum ASCIIBytes {
    /// The lower-case hexadecimal digits, by value.
    static let hexDigits = Array("0123456789abcdef".utf8)

    /// The upper-case hexadecimal digits, by value: a percent escape's (`%C3`).
    static let upperHexDigits = Array("0123456789ABCDEF".utf8)

    /// `byte` with an ASCII capital made small.
    static func lowercased(_ byte: UInt8) -> UInt8 { isUpperLetter(byte) ? byte | 0x20 : byte }

    static func isUpperLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) }

    static func isLetter(_ byte: UInt8) -> Bool { isUpperLetter(byte) || (0x61...0x7A).contains(byte) }

    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// `byte` percent-escaped: `%` and two upper-case hexadecimal digits.
    static func appendEscape(_ byte: UInt8, to text: inout [UInt8]) {
        text += [UInt8(ascii: "%"), upperHexDigits[Int(byte >> 4)], upperHexDigits[Int(byte & 0x0F)]]
    }

    /// `byte` as two lower-case hexadecimal digits.
    static func appendHex(_ byte: UInt8, to text: inout [UInt8]) {
        text.append(hexDigits[Int(byte >> 4)])
        text.append(hexDigits[Int(byte & 0x0F)])
    }

    /// Where `needle` first occurs in `haystack` at or after `start`; `start` itself for an empty needle.
    static func firstOccurrence(of needle: [UInt8], in haystack: [UInt8], from start: Int = 0) -> Int? {
        guard !needle.isEmpty else { return start }
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        for index in start...(haystack.count - needle.count)
        where haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }

    /// `value` without the whitespace and newlines (`CharacterSet.whitespacesAndNewlines`) at its ends. ASCII ends are
    /// trimmed here; a value with a non-ASCII end, which that set may hold (U+00A0, U+2028), goes through Foundation.
    static func trimmed(_ value: Substring) -> String {
        let utf8 = value.utf8
        let isSpace = { (byte: UInt8) in byte == 0x20 || (0x09...0x0D).contains(byte) }
        guard let first = utf8.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = utf8.lastIndex(where: { !isSpace($0) })!
        guard utf8[first] < 0x80, utf8[last] < 0x80 else {
            return value.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return String(value[first...last])
    }

    /// Whether `text` holds only `CharacterSet.whitespaces` (or nothing): decided on its bytes when one of them is
    /// ASCII other than a space or a tab (then not), or all are ASCII (then so); through Foundation otherwise.
    static func isBlank(_ text: String) -> Bool {
        var allASCII = true
        for byte in text.utf8 {
            if byte >= 0x80 { allASCII = false } else if byte != 0x20 && byte != 0x09 { return false }
        }
        return allASCII || text.trimmingCharacters(in: .whitespaces).isEmpty
    }
}

/// Small byte-level text helpers for the per-line paths, where Foundation's general string routines cost more than
/// the work (docs/BENCHMARKS.md, "A line's string work").
enum ASCIIBytes {
    /// The lower-case hexadecimal digits, by value.
    static let hexDigits = Array("0123456789abcdef".utf8)

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
}

import Foundation

/// The members of a JSON object's text, in order, each key with the text of its value: so that a key given twice
/// takes its last value, as Python's `json`, pandas and jq read it (Foundation's `JSONDecoder` keeps the first).
/// The text is one object that `JSONDecoder` has already read, so it is valid JSON; nested objects' keys are not
/// members.
enum JSONObjectMembers {
    /// The object's keys that appear more than once, each with the text of its last value; empty when no key repeats
    /// (or the text is not an object). `distinctKeys`: how many keys the decoded object has; when the text has as many
    /// members, none repeats and no key is read.
    static func lastValuesOfRepeatedKeys(in text: String, distinctKeys: Int) -> [String: Substring.UTF8View] {
        let bytes = text[...].utf8
        var count = 0
        walk(bytes) { _, _ in count += 1 }
        guard count > distinctKeys else { return [:] }
        var seen = Set<String>()
        var repeated: [String: Substring.UTF8View] = [:]
        walk(bytes) { key, value in
            guard let key = unescaped(key) else { return }
            if !seen.insert(key).inserted { repeated[key] = value }
        }
        return repeated
    }

    /// Calls `visit` with each top-level member's key (with its quotes) and value, in order.
    private static func walk(_ bytes: Substring.UTF8View,
                             _ visit: (Substring.UTF8View, Substring.UTF8View) -> Void) {
        var index = bytes.startIndex
        skipSpace(bytes, &index)
        guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "{") else { return }
        bytes.formIndex(after: &index)
        while true {
            skipSpace(bytes, &index)
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: "\"") else { return }
            let keyStart = index
            skipString(bytes, &index)
            let key = bytes[keyStart..<index]
            skipSpace(bytes, &index)
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: ":") else { return }
            bytes.formIndex(after: &index)
            skipSpace(bytes, &index)
            let valueStart = index
            skipValue(bytes, &index)
            visit(key, bytes[valueStart..<index])
            skipSpace(bytes, &index)
            guard index < bytes.endIndex, bytes[index] == UInt8(ascii: ",") else { return }
            bytes.formIndex(after: &index)
        }
    }

    /// A key's text (with its quotes) as the string it spells.
    private static func unescaped(_ quoted: Substring.UTF8View) -> String? {
        guard quoted.contains(UInt8(ascii: "\\")) else { return String(Substring(quoted.dropFirst().dropLast())) }
        return try? JSONDecoder().decode(String.self, from: Data(quoted))
    }

    private static func skipSpace(_ bytes: Substring.UTF8View, _ index: inout Substring.UTF8View.Index) {
        while index < bytes.endIndex, isSpace(bytes[index]) { bytes.formIndex(after: &index) }
    }

    /// JSON's white space: space, tab, line feed, carriage return.
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Past the string that starts at `index` (its opening quote), escapes included.
    private static func skipString(_ bytes: Substring.UTF8View, _ index: inout Substring.UTF8View.Index) {
        bytes.formIndex(after: &index)
        while index < bytes.endIndex {
            let byte = bytes[index]
            bytes.formIndex(after: &index)
            if byte == UInt8(ascii: "\\"), index < bytes.endIndex { bytes.formIndex(after: &index) }
            if byte == UInt8(ascii: "\"") { return }
        }
    }

    /// Past the value that starts at `index`: to the `,` or `}` that ends it at this depth.
    private static func skipValue(_ bytes: Substring.UTF8View, _ index: inout Substring.UTF8View.Index) {
        var depth = 0
        while index < bytes.endIndex {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                skipString(bytes, &index)
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return }
                depth -= 1
            case UInt8(ascii: ",") where depth == 0:
                return
            default:
                break
            }
            bytes.formIndex(after: &index)
        }
    }
}

import Foundation

/// The header of a renderer frame: `key=value` lines in UTF-8, a key repeated for a list, with `\` and newlines in
/// values escaped as `\\` and `\n`. Hand-written rather than JSON: the client reads and writes one in each
/// one-off command, where Foundation's JSON coders cost milliseconds of first-use type lookups.
struct RendererFields {
    private(set) var pairs: [(key: String, value: String)] = []

    init() {}

    /// Parses a header; nil when a line has no `=` or an escape is unknown.
    init?(_ data: Data) {
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true) {
            guard let equals = line.firstIndex(of: "="), let value = Self.unescape(line[line.index(after: equals)...]) else {
                return nil
            }
            pairs.append((String(line[..<equals]), value))
        }
    }

    var data: Data {
        Data(pairs.map { "\($0.key)=\(Self.escape($0.value))\n" }.joined().utf8)
    }

    mutating func set(_ key: String, _ value: String?) {
        if let value { pairs.append((key, value)) }
    }

    mutating func set<T: LosslessStringConvertible>(_ key: String, _ value: T?) {
        set(key, value.map { String($0) })
    }

    subscript(_ key: String) -> String? { pairs.last { $0.key == key }?.value }

    func all(_ key: String) -> [String] { pairs.filter { $0.key == key }.map(\.value) }

    func value<T: LosslessStringConvertible>(_ key: String, as type: T.Type = T.self) -> T? { self[key].flatMap(T.init) }

    private static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
    }

    private static func unescape(_ text: Substring) -> String? {
        guard text.contains("\\") else { return String(text) }
        var result = ""
        var escaping = false
        for character in text {
            if escaping {
                switch character {
                case "\\": result.append("\\")
                case "n": result.append("\n")
                default: return nil
                }
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else {
                result.append(character)
            }
        }
        return escaping ? nil : result
    }
}

/// A message that travels as a frame header.
protocol RendererMessage {
    var fields: RendererFields { get }
    init?(fields: RendererFields)
}

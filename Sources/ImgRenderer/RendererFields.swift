import Foundation

/// The header of a renderer frame: `key=value` lines in UTF-8 ending in a newline byte, a key repeated for a list,
/// with `\`, newlines and carriage returns in values escaped as `\\`, `\n` and `\r`. Hand-written rather than
/// JSON: the client reads and writes one in each one-off command, where Foundation's JSON coders cost milliseconds
/// of first-use type lookups.
struct RendererFields {
    private(set) var pairs: [(key: String, value: String)] = []

    init() {}

    /// Parses a header; nil when a line has no `=` or an escape is unknown. Empty lines are skipped.
    init?(_ data: Data) {
        // Split on bytes, not on Characters: "\r\n" is one Character and would hide a line end, and "=" followed
        // by a combining mark would hide the separator.
        for line in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            guard let equals = line.firstIndex(of: UInt8(ascii: "=")),
                  let value = Self.unescape(String(decoding: line[line.index(after: equals)...], as: UTF8.self)) else {
                return nil
            }
            pairs.append((String(decoding: line[..<equals], as: UTF8.self), value))
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

    /// Escapes scalar by scalar: Foundation's `replacingOccurrences` misses a newline that a combining mark follows.
    private static func escape(_ value: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": result.append(contentsOf: "\\\\".unicodeScalars)
            case "\n": result.append(contentsOf: "\\n".unicodeScalars)
            case "\r": result.append(contentsOf: "\\r".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    private static func unescape(_ text: String) -> String? {
        guard text.unicodeScalars.contains("\\") else { return text }
        var result = String.UnicodeScalarView()
        var escaping = false
        for scalar in text.unicodeScalars {
            if escaping {
                switch scalar {
                case "\\": result.append("\\")
                case "n": result.append("\n")
                case "r": result.append("\r")
                default: return nil
                }
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else {
                result.append(scalar)
            }
        }
        return escaping ? nil : String(result)
    }
}

/// A message that travels as a frame header.
protocol RendererMessage {
    var fields: RendererFields { get }
    init?(fields: RendererFields)
}

import Foundation

/// The value of one kept column (`--keep-columns`) of a list row: a string for CSV and TSV, the JSON value as given
/// for JSON Lines (an object keeps its keys; a number its value: an integral one of up to 64 bits is an integer,
/// any other a double, so `1.0` is written `1`). Encodes as that JSON value; a double -0.0 (a Parquet list holds it)
/// as `0`, as JSON Lines' `-0` (an integer) is written and as `text` gives it.
public indirect enum ColumnValue: Codable, Sendable, Equatable {
    case string(String)
    /// A CSV or TSV field or a Parquet byte array whose bytes are not all UTF-8, as given: a URL column's are sent as
    /// they are (`ListURLBytes`); anywhere else (a name, a caption, a kept column, its JSON) it is the string it reads
    /// as, U+FFFD for each invalid sequence, as `text` gives it.
    case notUTF8([UInt8])
    case integer(Int64)
    /// An integer above `Int64.max` (JSON Lines, or a Parquet column of unsigned 64-bit integers), kept exact.
    case unsigned(UInt64)
    case number(Double)
    case bool(Bool)
    case null
    case array([ColumnValue])
    case object([String: ColumnValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(UInt64.self) {
            self = .unsigned(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ColumnValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ColumnValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .notUTF8(let bytes): try container.encode(String(decoding: bytes, as: UTF8.self))
        case .integer(let value): try container.encode(value)
        case .unsigned(let value): try container.encode(value)
        // `-0` would be one value spelled two ways: a table's cell and a caption said `0`, a sample's JSON `-0`.
        case .number(let value): try container.encode(value == 0 ? 0 : value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The value as a caption's text: `text`, empty for null, an array or object as compact JSON.
    public var captionText: String {
        if let text { return text }
        if self == .null { return "" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// The text of a string value (of `notUTF8`, with U+FFFD for each invalid sequence), or a number's or boolean's
    /// as JSON writes it (what a URL or name column may hold); nil for null, arrays and objects.
    public var text: String? {
        switch self {
        case .string(let value): value
        case .notUTF8(let bytes): String(decoding: bytes, as: UTF8.self)
        case .integer(let value): String(value)
        case .unsigned(let value): String(value)
        case .number(let value): value.rounded() == value && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .bool(let value): value ? "true" : "false"
        case .null, .array, .object: nil
        }
    }
}

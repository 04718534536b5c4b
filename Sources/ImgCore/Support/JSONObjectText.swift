import Foundation

/// One JSON object written member by member, byte for byte as `JSONEncoder` with `.sortedKeys` and
/// `.withoutEscapingSlashes` writes it: strings escaped as it escapes them (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`,
/// other control characters as `\u00xx`, everything else as UTF-8), whole doubles without `.0`. The caller adds the
/// members in the encoder's key order and skips nil ones, as synthesised `Codable` does. For lines written once per
/// cache entry, where `JSONEncoder`'s general machinery cost 3 % of a small-image batch's CPU (`perf record`, 600 lines
/// to 64 px).
struct JSONObjectText {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]
    /// False once a value could not be written as `JSONEncoder` would (a double that is not finite, which it refuses).
    private(set) var isExact = true

    init() { bytes.reserveCapacity(512) }

    mutating func add(_ key: String, _ value: String?) {
        guard let value else { return }
        start(key)
        appendString(value)
    }

    mutating func add(_ key: String, _ value: Int?) {
        guard let value else { return }
        start(key)
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func add(_ key: String, _ value: Int64?) {
        guard let value else { return }
        add(key, Int(value))
    }

    mutating func add(_ key: String, _ value: Double?) {
        guard let value else { return }
        guard value.isFinite else { isExact = false; return }
        start(key)
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        bytes.append(contentsOf: text.utf8)
    }

    mutating func add(_ key: String, _ values: [String]?) {
        guard let values else { return }
        start(key)
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            appendString(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    /// The object's text, closed.
    func finished() -> Data {
        var text = Data(bytes)
        text.append(UInt8(ascii: "}"))
        return text
    }

    private mutating func start(_ key: String) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        appendString(key)
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func appendString(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, byte])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x08: bytes.append(contentsOf: [0x5C, UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [0x5C, UInt8(ascii: "f")])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case ..<0x20:
                bytes.append(contentsOf: Array("\\u00".utf8))
                ASCIIBytes.appendHex(byte, to: &bytes)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

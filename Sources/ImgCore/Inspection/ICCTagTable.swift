import Foundation

/// The header fields and tag table of an ICC profile (ICC.1, sections 7.2 and 7.3), read without trusting them:
/// every offset is checked against the profile's length.
struct ICCTagTable {
    let bytes: [UInt8]
    /// Each tag's signature (`desc`, `rXYZ`, ...) and where its data lies in `bytes`.
    private(set) var tags: [String: Range<Int>] = [:]

    /// Nil when `profile` is too short for a header and a tag table, or the table is implausible.
    init?(_ profile: Data) {
        bytes = [UInt8](profile)
        guard let count = uint32(at: 128), count < 1000 else { return nil }
        for index in 0..<count {
            let entry = 132 + index * 12
            guard let offset = uint32(at: entry + 4), let size = uint32(at: entry + 8) else { return nil }
            guard offset + size <= bytes.count else { continue }
            tags[signature(at: entry)] = offset..<(offset + size)
        }
    }

    /// The device's colour space (`RGB `, `CMYK`, `GRAY`) and the connection space (`XYZ `, `Lab `).
    var colourSpace: String { signature(at: 16) }
    var connectionSpace: String { signature(at: 20) }

    /// The big-endian unsigned 32-bit number at `offset`, or nil past the end.
    func uint32(at offset: Int) -> Int? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
    }

    /// The big-endian unsigned 16-bit number at `offset`, or nil past the end.
    func uint16(at offset: Int) -> Int? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        return Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
    }

    /// The `s15Fixed16Number` at `offset`, or nil past the end.
    func fixed(at offset: Int) -> Double? {
        uint32(at: offset).map { Double(Int32(bitPattern: UInt32($0))) / 65536 }
    }

    /// Four bytes as text: a signature or a type (`curv`, `para`, `XYZ `).
    func signature(at offset: Int) -> String {
        guard offset >= 0, offset + 4 <= bytes.count else { return "" }
        return String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
    }
}

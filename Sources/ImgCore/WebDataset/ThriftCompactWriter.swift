import Foundation

/// Writes Apache Thrift's compact protocol, the encoding of Parquet's page headers and file metadata: structs of
/// numbered fields (each a header byte holding the delta from the field before and the field's type), zigzag varint
/// integers, length-prefixed binaries and lists. Only what `ParquetWriter` writes: i32, i64, binary, list and struct.
struct ThriftCompactWriter {
    /// The compact protocol's type codes.
    enum Kind: UInt8 {
        case i32 = 5
        case i64 = 6
        case binary = 8
        case list = 9
        case structure = 12
    }

    private(set) var bytes = Data()
    /// The last field id written in each open struct, innermost last.
    private var lastFields: [Int16] = [0]

    /// An i32 field (Parquet's enums are i32 too).
    mutating func field(_ id: Int16, i32 value: Int32) {
        header(id, .i32)
        varint(zigzag(Int64(value)))
    }

    /// An i64 field.
    mutating func field(_ id: Int16, i64 value: Int64) {
        header(id, .i64)
        varint(zigzag(value))
    }

    /// A string field (UTF-8 binary).
    mutating func field(_ id: Int16, string value: String) {
        header(id, .binary)
        binary(Data(value.utf8))
    }

    /// A struct field whose fields `body` writes.
    mutating func field(_ id: Int16, structure body: (inout ThriftCompactWriter) -> Void) {
        header(id, .structure)
        structure(body)
    }

    /// A list field of `count` elements of `kind`, which `body` writes (with `element`'s functions).
    mutating func field(_ id: Int16, listOf kind: Kind, count: Int, _ body: (inout ThriftCompactWriter) -> Void) {
        header(id, .list)
        if count < 15 {
            bytes.append(UInt8(count) << 4 | kind.rawValue)
        } else {
            bytes.append(0xF0 | kind.rawValue)
            varint(UInt64(count))
        }
        body(&self)
    }

    /// A struct as a list element: its fields, then the stop byte.
    mutating func structure(_ body: (inout ThriftCompactWriter) -> Void) {
        lastFields.append(0)
        body(&self)
        bytes.append(0)
        lastFields.removeLast()
    }

    /// An i32 as a list element.
    mutating func element(i32 value: Int32) { varint(zigzag(Int64(value))) }

    /// A string as a list element.
    mutating func element(string value: String) { binary(Data(value.utf8)) }

    /// Ends the outermost struct: the stop byte.
    mutating func end() { bytes.append(0) }

    private mutating func header(_ id: Int16, _ kind: Kind) {
        let delta = Int(id) - Int(lastFields[lastFields.count - 1])
        if delta > 0, delta <= 15 {
            bytes.append(UInt8(delta) << 4 | kind.rawValue)
        } else {
            bytes.append(kind.rawValue)
            varint(zigzag(Int64(id)))
        }
        lastFields[lastFields.count - 1] = id
    }

    private mutating func binary(_ data: Data) {
        varint(UInt64(data.count))
        bytes.append(data)
    }

    private mutating func varint(_ value: UInt64) { Self.appendVarint(value, to: &bytes) }

    /// Appends `value` as an unsigned LEB128 varint (seven bits a byte, lowest first), as Thrift's compact protocol
    /// and Parquet's run-length encoding write lengths.
    static func appendVarint(_ value: UInt64, to data: inout Data) {
        var rest = value
        while rest >= 0x80 {
            data.append(UInt8(rest & 0x7F) | 0x80)
            rest >>= 7
        }
        data.append(UInt8(rest))
    }

    private func zigzag(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }
}

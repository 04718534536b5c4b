import Foundation

/// Values of one Parquet column decoded from a page's bytes into the `ColumnValue`s a list row holds: PLAIN
/// (`Encoding` 0), the encoding of dictionary pages and of pages without a dictionary; RLE (3) for booleans;
/// dictionary indices (2 and 8) into a dictionary already decoded.
struct ParquetPlainValues {
    let type: ParquetColumn.PhysicalType
    /// Integers read as unsigned (`ParquetColumn.unsigned`).
    let unsigned: Bool

    /// `count` PLAIN values from `bytes[range]`.
    func plain(_ count: Int, from bytes: [UInt8], _ range: Range<Int>) throws(ParquetFormatError) -> [ColumnValue] {
        var position = range.lowerBound
        let end = range.upperBound
        var values: [ColumnValue] = []
        values.reserveCapacity(count)
        func take(_ width: Int) throws(ParquetFormatError) -> UInt64 {
            guard width <= end - position else { throw ParquetFormatError("values beyond their page") }
            var value: UInt64 = 0
            for index in 0..<width { value |= UInt64(bytes[position + index]) << UInt64(8 * index) }
            position += width
            return value
        }
        switch type {
        case .boolean:
            guard (count + 7) / 8 <= end - position else { throw ParquetFormatError("values beyond their page") }
            for index in 0..<count { values.append(.bool(bytes[position + index / 8] >> UInt8(index % 8) & 1 == 1)) }
        case .int32:
            for _ in 0..<count { values.append(integer(UInt64(UInt32(truncatingIfNeeded: try take(4))), bits: 32)) }
        case .int64:
            for _ in 0..<count { values.append(integer(try take(8), bits: 64)) }
        case .float:
            for _ in 0..<count { values.append(.number(Double(Float(bitPattern: UInt32(truncatingIfNeeded: try take(4)))))) }
        case .double:
            for _ in 0..<count { values.append(.number(Double(bitPattern: try take(8)))) }
        case .byteArray:
            for _ in 0..<count {
                let length = Int(try take(4))
                guard length <= end - position else { throw ParquetFormatError("a string beyond its page") }
                values.append(.string(String(decoding: bytes[position..<position + length], as: UTF8.self)))
                position += length
            }
        case .int96, .fixedLengthByteArray:
            throw ParquetFormatError("a type imgfetch does not read")
        }
        return values
    }

    /// `count` booleans RLE-encoded (a 4-byte length, then the hybrid at 1 bit a value) from `bytes[range]`.
    func runLengthBooleans(_ count: Int, from bytes: [UInt8], _ range: Range<Int>) throws(ParquetFormatError) -> [ColumnValue] {
        let length = try Self.lengthPrefix(bytes, at: range.lowerBound, within: range)
        var decoder = try RLEHybridDecoder(bytes, range.lowerBound + 4..<range.lowerBound + 4 + length, bitWidth: 1)
        return try decoder.decode(count).map { .bool($0 == 1) }
    }

    /// `count` values looked up in `dictionary` by indices from `bytes[range]` (a bit width byte, then the hybrid).
    static func dictionaryIndexed(_ count: Int, from bytes: [UInt8], _ range: Range<Int>,
                                  dictionary: [ColumnValue]) throws(ParquetFormatError) -> [ColumnValue] {
        guard count > 0 else { return [] }
        guard range.lowerBound < range.upperBound else { throw ParquetFormatError("dictionary indices missing") }
        var decoder = try RLEHybridDecoder(bytes, range.lowerBound + 1..<range.upperBound, bitWidth: Int(bytes[range.lowerBound]))
        var values: [ColumnValue] = []
        values.reserveCapacity(count)
        for index in try decoder.decode(count) {
            guard Int(index) < dictionary.count else { throw ParquetFormatError("a dictionary index beyond its dictionary") }
            values.append(dictionary[Int(index)])
        }
        return values
    }

    /// The 4-byte little-endian length at `position`, checked to fit in `range` after it.
    static func lengthPrefix(_ bytes: [UInt8], at position: Int, within range: Range<Int>) throws(ParquetFormatError) -> Int {
        guard position + 4 <= range.upperBound else { throw ParquetFormatError("a length beyond its page") }
        let length = (0..<4).reduce(0) { $0 | Int(bytes[position + $1]) << (8 * $1) }
        guard length <= range.upperBound - position - 4 else { throw ParquetFormatError("a length beyond its page") }
        return length
    }

    /// An integer of `bits` bits as signed or, for an unsigned column, unsigned (`.unsigned` over Int64's range).
    private func integer(_ raw: UInt64, bits: Int) -> ColumnValue {
        if unsigned { return raw <= UInt64(Int64.max) ? .integer(Int64(raw)) : .unsigned(raw) }
        return bits == 32 ? .integer(Int64(Int32(truncatingIfNeeded: raw))) : .integer(Int64(bitPattern: raw))
    }
}

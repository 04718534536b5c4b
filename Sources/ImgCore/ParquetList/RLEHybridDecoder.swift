/// Parquet's RLE/bit-packing hybrid, the encoding of definition levels and dictionary indices: runs of one repeated
/// value (a varint header with its low bit 0, then the value in whole bytes) and groups of 8 values bit-packed
/// lowest bit first (a header with its low bit 1), each value `bitWidth` bits.
struct RLEHybridDecoder {
    private let bytes: [UInt8]
    private var position: Int
    private let end: Int
    private let bitWidth: Int

    /// Decodes `bytes[range]` at `bitWidth` bits a value (0 to 32).
    init(_ bytes: [UInt8], _ range: Range<Int>, bitWidth: Int) throws(ParquetFormatError) {
        guard (0...32).contains(bitWidth) else { throw ParquetFormatError("a bit width of \(bitWidth)") }
        guard range.lowerBound >= 0, range.upperBound <= bytes.count else { throw ParquetFormatError("levels beyond their page") }
        (self.bytes, position, end, self.bitWidth) = (bytes, range.lowerBound, range.upperBound, bitWidth)
    }

    /// The next `count` values.
    mutating func decode(_ count: Int) throws(ParquetFormatError) -> [UInt32] {
        var values: [UInt32] = []
        values.reserveCapacity(count)
        while values.count < count {
            let header = try varint()
            if header & 1 == 0 {
                let run = Int(min(header >> 1, UInt64(count - values.count)))
                var value: UInt32 = 0
                for index in 0..<(bitWidth + 7) / 8 { value |= UInt32(try byte()) << UInt32(8 * index) }
                values.append(contentsOf: repeatElement(value, count: run))
            } else {
                // groups of 8 values, `bitWidth` bytes each; a last group cut short by the page's end is read as far
                // as it goes.
                let groups = Int(min(header >> 1, 1 << 28))
                let byteCount = min(groups * bitWidth, end - position)
                let valueCount = bitWidth == 0 ? groups * 8 : min(groups * 8, byteCount * 8 / bitWidth)
                guard valueCount > 0 else { throw ParquetFormatError("bit-packed values beyond their page") }
                unpack(valueCount, into: &values, limit: count)
                position += byteCount
            }
        }
        return values
    }

    /// Appends up to `limit - values.count` of the `total` bit-packed values from the position.
    private func unpack(_ total: Int, into values: inout [UInt32], limit: Int) {
        let mask: UInt64 = bitWidth == 32 ? 0xFFFF_FFFF : (1 << UInt64(bitWidth)) - 1
        for index in 0..<min(total, limit - values.count) {
            let bit = index * bitWidth
            var word: UInt64 = 0
            for offset in 0..<min(5, end - (position + bit / 8)) { word |= UInt64(bytes[position + bit / 8 + offset]) << UInt64(8 * offset) }
            values.append(UInt32((word >> UInt64(bit % 8)) & mask))
        }
    }

    private mutating func byte() throws(ParquetFormatError) -> UInt8 {
        guard position < end else { throw ParquetFormatError("levels or indices end early") }
        defer { position += 1 }
        return bytes[position]
    }

    private mutating func varint() throws(ParquetFormatError) -> UInt64 {
        var value: UInt64 = 0
        for shift in stride(from: 0, to: 70, by: 7) {
            let next = try byte()
            value |= UInt64(next & 0x7F) << UInt64(shift)
            if next & 0x80 == 0 { return value }
        }
        throw ParquetFormatError("a varint over 10 bytes")
    }
}

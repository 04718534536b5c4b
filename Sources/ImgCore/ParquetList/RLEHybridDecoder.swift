/// Parquet's RLE/bit-packing hybrid, the encoding of definition levels and dictionary indices: runs of one repeated
/// value (a varint header with its low bit 0, then the value in whole bytes) and groups of 8 values bit-packed
/// lowest bit first (a header with its low bit 1), each value `bitWidth` bits. Decoded a batch at a time: a run or
/// a bit-packed group left part-way is taken up by the next batch.
struct RLEHybridDecoder {
    private let bytes: [UInt8]
    private var position: Int
    private let end: Int
    private let bitWidth: Int
    /// What is left of the run being read: its value and how many times more.
    private var runValue: UInt32 = 0
    private var runLeft = 0
    /// The bit-packed values being read: where they start, how many there are, how many are taken.
    private var packedStart = 0
    private var packedCount = 0
    private var packedTaken = 0

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
            if runLeft > 0 {
                let taken = min(runLeft, count - values.count)
                values.append(contentsOf: repeatElement(runValue, count: taken))
                runLeft -= taken
            } else if packedTaken < packedCount {
                let taken = min(packedCount - packedTaken, count - values.count)
                unpack(taken, into: &values)
                packedTaken += taken
            } else {
                try readHeader()
            }
        }
        return values
    }

    /// Reads the next run's header (and value) or bit-packed group's header, the groups' bytes stepped over.
    private mutating func readHeader() throws(ParquetFormatError) {
        let header = try varint()
        if header & 1 == 0 {
            runLeft = Int(min(header >> 1, 1 << 40))
            runValue = 0
            for index in 0..<(bitWidth + 7) / 8 { runValue |= UInt32(try byte()) << UInt32(8 * index) }
        } else {
            // Groups of 8 values, `bitWidth` bytes each; a last group cut short by the page's end is read as far as
            // it goes.
            let groups = Int(min(header >> 1, 1 << 28))
            let byteCount = min(groups * bitWidth, end - position)
            packedCount = bitWidth == 0 ? groups * 8 : min(groups * 8, byteCount * 8 / bitWidth)
            guard packedCount > 0 else { throw ParquetFormatError("bit-packed values beyond their page") }
            (packedStart, packedTaken) = (position, 0)
            position += byteCount
        }
    }

    /// Appends the next `count` bit-packed values.
    private func unpack(_ count: Int, into values: inout [UInt32]) {
        let mask: UInt64 = bitWidth == 32 ? 0xFFFF_FFFF : (1 << UInt64(bitWidth)) - 1
        for index in packedTaken..<packedTaken + count {
            let bit = index * bitWidth
            let first = packedStart + bit / 8
            var word: UInt64 = 0
            for offset in 0..<min(5, end - first) { word |= UInt64(bytes[first + offset]) << UInt64(8 * offset) }
            values.append(UInt32((word >> UInt64(bit % 8)) & mask))
        }
    }

    private mutating func byte() throws(ParquetFormatError) -> UInt8 {
        guard position < end else { throw ParquetFormatError("levels or indices end early") }
        defer { position += 1 }
        return bytes[position]
    }

    private mutating func varint() throws(ParquetFormatError) -> UInt64 {
        guard let value = ThriftCompactReader.varint(bytes, at: &position, end: end) else {
            throw ParquetFormatError("levels or indices end early")
        }
        return value
    }
}

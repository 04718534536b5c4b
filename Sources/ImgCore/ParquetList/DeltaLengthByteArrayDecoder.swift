/// Parquet's DELTA_LENGTH_BYTE_ARRAY encoding of strings, decoded a batch at a time: every value's length
/// (DELTA_BINARY_PACKED), then the values' bytes one after another.
struct DeltaLengthByteArrayDecoder {
    private var lengths: DeltaBinaryPackedDecoder
    private let bytes: [UInt8]
    private var position: Int
    private let end: Int

    /// How many values are encoded.
    var count: Int { lengths.count }

    /// The encoding at `bytes[range]`, of at most `limit` values.
    init(_ bytes: [UInt8], _ range: Range<Int>, limit: Int) throws(ParquetFormatError) {
        lengths = try DeltaBinaryPackedDecoder(bytes, range, limit: limit)
        (self.bytes, position, end) = (bytes, lengths.end, range.upperBound)
    }

    /// The next `wanted` values' bytes.
    mutating func next(_ wanted: Int) throws(ParquetFormatError) -> [ArraySlice<UInt8>] {
        var values: [ArraySlice<UInt8>] = []
        values.reserveCapacity(wanted)
        for length in try lengths.next(wanted) {
            guard length >= 0, length <= Int64(end - position) else { throw ParquetFormatError("a string beyond its page") }
            values.append(bytes[position..<position + Int(length)])
            position += Int(length)
        }
        return values
    }
}

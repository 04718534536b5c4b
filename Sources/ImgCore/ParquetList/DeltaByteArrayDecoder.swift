/// Parquet's DELTA_BYTE_ARRAY encoding of strings (incremental, or front, coding), decoded a batch at a time: the
/// length of the prefix each value shares with the one before (DELTA_BINARY_PACKED), then the suffixes
/// (DELTA_LENGTH_BYTE_ARRAY).
struct DeltaByteArrayDecoder {
    private var prefixes: DeltaBinaryPackedDecoder
    private var suffixes: DeltaLengthByteArrayDecoder
    private var previous: [UInt8] = []

    /// The encoding at `bytes[range]`, of at most `limit` values.
    init(_ bytes: [UInt8], _ range: Range<Int>, limit: Int) throws(ParquetFormatError) {
        prefixes = try DeltaBinaryPackedDecoder(bytes, range, limit: limit)
        suffixes = try DeltaLengthByteArrayDecoder(bytes, prefixes.end..<range.upperBound, limit: limit)
        guard suffixes.count == prefixes.count else { throw ParquetFormatError("prefixes and suffixes that differ in count") }
    }

    /// The next `wanted` values' bytes.
    mutating func next(_ wanted: Int) throws(ParquetFormatError) -> [[UInt8]] {
        let shared = try prefixes.next(wanted)
        var values: [[UInt8]] = []
        values.reserveCapacity(wanted)
        for (prefix, suffix) in zip(shared, try suffixes.next(wanted)) {
            guard prefix >= 0, prefix <= Int64(previous.count) else { throw ParquetFormatError("a prefix longer than the value before") }
            previous.removeSubrange(Int(prefix)...)
            previous.append(contentsOf: suffix)
            values.append(previous)
        }
        return values
    }
}

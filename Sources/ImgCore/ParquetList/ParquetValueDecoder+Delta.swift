/// The encodings of values decoded through decoders of their own: DELTA_BINARY_PACKED (`Encoding` 5) for integers,
/// DELTA_LENGTH_BYTE_ARRAY (6) and DELTA_BYTE_ARRAY (7) for strings, BYTE_STREAM_SPLIT (9) for numbers of 4 and 8
/// bytes; each a batch at a time.
extension ParquetValueDecoder {
    /// A page's values in one of those encodings, with what they are read as.
    enum DeltaSource {
        /// Integers of `bits` bits.
        case integers(DeltaBinaryPackedDecoder, bits: Int)
        case lengthStrings(DeltaLengthByteArrayDecoder)
        case strings(DeltaByteArrayDecoder)
        /// `count` values of `width` bytes from `start`, the first byte of each, then the second, and so on;
        /// `taken` of them read.
        case byteStreamSplit(start: Int, count: Int, width: Int, taken: Int)

        /// The values of `bytes[range]` in `encoding` (5, 6, 7 or 9) of a column of `type`, at most `limit` of them.
        init(type: ParquetColumn.PhysicalType, encoding: Int64, _ bytes: [UInt8], _ range: Range<Int>,
             limit: Int) throws(ParquetFormatError) {
            switch (encoding, type) {
            case (5, .int32), (5, .int64):
                self = .integers(try DeltaBinaryPackedDecoder(bytes, range, limit: limit), bits: type == .int32 ? 32 : 64)
            case (6, .byteArray):
                self = .lengthStrings(try DeltaLengthByteArrayDecoder(bytes, range, limit: limit))
            case (7, .byteArray):
                self = .strings(try DeltaByteArrayDecoder(bytes, range, limit: limit))
            case (9, .float), (9, .double), (9, .int32), (9, .int64):
                let width = type == .float || type == .int32 ? 4 : 8
                guard range.count % width == 0, range.count / width <= limit else {
                    throw ParquetFormatError("BYTE_STREAM_SPLIT values that do not fill their page")
                }
                self = .byteStreamSplit(start: range.lowerBound, count: range.count / width, width: width, taken: 0)
            default:
                throw ParquetFormatError("\(type) values in \(ParquetEncoding.name(of: encoding)), which imgfetch does not read")
            }
        }
    }

    /// The next `count` values of `source`, read as a column of `type` (integers as `unsigned` says).
    static func next(_ count: Int, of source: inout DeltaSource, type: ParquetColumn.PhysicalType, bytes: [UInt8],
                     unsigned: Bool) throws(ParquetFormatError) -> [ColumnValue] {
        switch source {
        case .integers(var decoder, let bits):
            let values = try decoder.next(count).map { integer(UInt64(bitPattern: $0), bits: bits, unsigned: unsigned) }
            source = .integers(decoder, bits: bits)
            return values
        case .lengthStrings(var decoder):
            let values = try decoder.next(count).map { text($0) }
            source = .lengthStrings(decoder)
            return values
        case .strings(var decoder):
            let values = try decoder.next(count).map { text($0) }
            source = .strings(decoder)
            return values
        case .byteStreamSplit(let start, let total, let width, let taken):
            guard count <= total - taken else { throw ParquetFormatError("values beyond their page") }
            source = .byteStreamSplit(start: start, count: total, width: width, taken: taken + count)
            return (taken..<taken + count).map { index in
                let raw = (0..<width).reduce(UInt64(0)) { $0 | UInt64(bytes[start + $1 * total + index]) << UInt64(8 * $1) }
                switch type {
                case .float: return number(Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))))
                case .double: return number(Double(bitPattern: raw))
                default: return integer(raw, bits: width * 8, unsigned: unsigned)
                }
            }
        }
    }
}

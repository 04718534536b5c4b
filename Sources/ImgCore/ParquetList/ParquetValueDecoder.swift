import Foundation

/// Decodes one column's values from a page's bytes, a batch at a time, into the `ColumnValue`s a list row holds:
/// PLAIN (`Encoding` 0: dictionary pages, and pages without a dictionary), RLE (3) for booleans, dictionary
/// indices (2 and 8) into a dictionary already decoded, and the delta and byte-stream-split encodings
/// (`DeltaSource`).
struct ParquetValueDecoder {
    /// Where the values are read from.
    private enum Source {
        /// PLAIN values from a position; booleans (bit-packed) by their index from it.
        case plain(position: Int, booleansTaken: Int)
        /// Indices into `dictionary`.
        case indices(RLEHybridDecoder, dictionary: [ColumnValue])
        /// RLE-encoded booleans.
        case booleans(RLEHybridDecoder)
        /// Values in a delta or byte-stream-split encoding.
        case delta(DeltaSource)
    }

    private let type: ParquetColumn.PhysicalType
    /// Integers read as unsigned (`ParquetColumn.unsigned`).
    private let unsigned: Bool
    private let bytes: [UInt8]
    private let end: Int
    private var source: Source

    /// The values of `bytes[range]` in `encoding`, at most `limit` of them (the page's count); `dictionary` is the
    /// column chunk's dictionary, if it has one.
    init(type: ParquetColumn.PhysicalType, unsigned: Bool, encoding: Int64, _ bytes: [UInt8], _ range: Range<Int>,
         limit: Int, dictionary: [ColumnValue]?) throws(ParquetFormatError) {
        (self.type, self.unsigned, self.bytes, end) = (type, unsigned, bytes, range.upperBound)
        switch encoding {
        case 0:
            source = .plain(position: range.lowerBound, booleansTaken: 0)
        case 2, 8:
            guard let dictionary else { throw ParquetFormatError("dictionary indices without a dictionary page") }
            guard range.lowerBound < range.upperBound else { throw ParquetFormatError("dictionary indices missing") }
            let width = Int(bytes[range.lowerBound])
            source = .indices(try RLEHybridDecoder(bytes, range.lowerBound + 1..<range.upperBound, bitWidth: width), dictionary: dictionary)
        case 3 where type == .boolean:
            let length = try Self.lengthPrefix(bytes, at: range.lowerBound, within: range)
            source = .booleans(try RLEHybridDecoder(bytes, range.lowerBound + 4..<range.lowerBound + 4 + length, bitWidth: 1))
        case 5, 6, 7, 9:
            source = .delta(try DeltaSource(type: type, encoding: encoding, bytes, range, limit: limit))
        default:
            throw ParquetFormatError("values in \(ParquetEncoding.name(of: encoding)), which imgfetch does not read")
        }
    }

    /// The next `count` values.
    mutating func next(_ count: Int) throws(ParquetFormatError) -> [ColumnValue] {
        switch source {
        case .plain(var position, var booleansTaken):
            let values = type == .boolean ? try plainBooleans(count, taken: &booleansTaken, from: position)
                                          : try plain(count, position: &position)
            source = .plain(position: position, booleansTaken: booleansTaken)
            return values
        case .indices(var decoder, let dictionary):
            var values: [ColumnValue] = []
            values.reserveCapacity(count)
            for index in try decoder.decode(count) {
                guard Int(index) < dictionary.count else { throw ParquetFormatError("a dictionary index beyond its dictionary") }
                values.append(dictionary[Int(index)])
            }
            source = .indices(decoder, dictionary: dictionary)
            return values
        case .booleans(var decoder):
            let values = try decoder.decode(count).map { ColumnValue.bool($0 == 1) }
            source = .booleans(decoder)
            return values
        case .delta(var delta):
            let values = try Self.next(count, of: &delta, type: type, bytes: bytes, unsigned: unsigned)
            source = .delta(delta)
            return values
        }
    }

    /// `count` PLAIN values from `position` on, which moves past them; none is kept when they run past the page.
    private func plain(_ count: Int, position: inout Int) throws(ParquetFormatError) -> [ColumnValue] {
        let width: Int
        switch type {
        case .int32, .float, .byteArray: width = 4  // a string's 4-byte length, before its bytes
        case .int64, .double: width = 8
        default: throw ParquetFormatError("a type imgfetch does not read")
        }
        guard count <= (end - position) / width else { throw ParquetFormatError("values beyond their page") }
        var values: [ColumnValue] = []
        values.reserveCapacity(count)
        for _ in 0..<count {
            // Checked again for each value: the strings before it took bytes of their own.
            guard width <= end - position else { throw ParquetFormatError("values beyond their page") }
            let raw = bytes[position..<position + width].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            position += width
            switch type {
            case .int32: values.append(Self.integer(UInt64(UInt32(truncatingIfNeeded: raw)), bits: 32, unsigned: unsigned))
            case .int64: values.append(Self.integer(raw, bits: 64, unsigned: unsigned))
            case .float: values.append(Self.number(Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw)))))
            case .double: values.append(Self.number(Double(bitPattern: raw)))
            default:
                let length = Int(raw)
                guard length <= end - position else { throw ParquetFormatError("a string beyond its page") }
                values.append(Self.text(bytes[position..<position + length]))
                position += length
            }
        }
        return values
    }

    /// `count` PLAIN booleans (bit-packed, lowest bit first) after the `taken` already read from `start`.
    private func plainBooleans(_ count: Int, taken: inout Int, from start: Int) throws(ParquetFormatError) -> [ColumnValue] {
        guard count <= (end - start) * 8 - taken else { throw ParquetFormatError("values beyond their page") }
        defer { taken += count }
        return (taken..<taken + count).map { .bool(bytes[start + $0 / 8] >> UInt8($0 % 8) & 1 == 1) }
    }

    /// The 4-byte little-endian length at `position`, checked to fit in `range` after it.
    static func lengthPrefix(_ bytes: [UInt8], at position: Int, within range: Range<Int>) throws(ParquetFormatError) -> Int {
        guard position + 4 <= range.upperBound else { throw ParquetFormatError("a length beyond its page") }
        let length = (0..<4).reduce(0) { $0 | Int(bytes[position + $1]) << (8 * $1) }
        guard length <= range.upperBound - position - 4 else { throw ParquetFormatError("a length beyond its page") }
        return length
    }

    /// A byte array's value: its text when it is UTF-8, else its bytes (`ColumnValue.notUTF8`: a URL column's are sent
    /// as they are, any other reads them with U+FFFD).
    static func text(_ bytes: some Collection<UInt8>) -> ColumnValue {
        String(validating: bytes, as: UTF8.self).map(ColumnValue.string) ?? .notUTF8(Array(bytes))
    }

    /// A floating-point value as a number, or NaN and the infinities as the strings `NaN`, `Infinity` and
    /// `-Infinity`, which JSON has no number for.
    static func number(_ value: Double) -> ColumnValue {
        if value.isFinite { return .number(value) }
        return .string(value.isNaN ? "NaN" : value < 0 ? "-Infinity" : "Infinity")
    }

    /// An integer of `bits` bits as signed or, for an unsigned column, unsigned (`.unsigned` over Int64's range).
    static func integer(_ raw: UInt64, bits: Int, unsigned: Bool) -> ColumnValue {
        let raw = bits == 32 ? UInt64(UInt32(truncatingIfNeeded: raw)) : raw
        if unsigned { return raw <= UInt64(Int64.max) ? .integer(Int64(raw)) : .unsigned(raw) }
        return bits == 32 ? .integer(Int64(Int32(truncatingIfNeeded: raw))) : .integer(Int64(bitPattern: raw))
    }
}

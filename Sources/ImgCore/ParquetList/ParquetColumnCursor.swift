import Foundation

/// Reads one flat column of one row group value by value, a page at a time: its dictionary page, if any, then its
/// data pages (v1 and v2), decompressed and decoded into the values of their rows, nulls included. Memory is one
/// page's values and the dictionary.
final class ParquetColumnCursor {
    /// The largest page read, compressed or not: 1 GiB.
    static let maximumPageBytes = 1 << 30
    /// The first read of a page header: 64 KiB, doubled while the header is longer, up to `maximumPageBytes`.
    static let headerWindow = 64 << 10

    private let file: ParquetFile
    private let chunk: ParquetFile.ColumnChunk
    private let column: ParquetColumn
    private let codec: ParquetCodec
    private let decoder: ParquetPlainValues
    private var position: Int64
    private let end: Int64
    private var dictionary: [ColumnValue]?
    private var page: [ColumnValue] = []
    private var taken = 0

    init(file: ParquetFile, chunk: ParquetFile.ColumnChunk, column: ParquetColumn) throws(ParquetFormatError) {
        guard let codec = ParquetCodec(rawValue: chunk.codec) else {
            throw ParquetFormatError("compressed with \(ParquetCodec.name(of: chunk.codec)), which imgfetch does not read")
        }
        guard chunk.start >= 0, chunk.length >= 0, chunk.start <= Int64.max - chunk.length else {
            throw ParquetFormatError("pages out of range")
        }
        (self.file, self.chunk, self.column, self.codec) = (file, chunk, column, codec)
        decoder = ParquetPlainValues(type: chunk.type, unsigned: column.unsigned)
        (position, end) = (chunk.start, chunk.start + chunk.length)
    }

    /// The next row's value (`.null` for a row without one).
    func next() throws(ParquetFormatError) -> ColumnValue {
        while taken == page.count {
            page = try nextDataPage()
            taken = 0
        }
        defer { taken += 1 }
        return page[taken]
    }

    /// The values of the next data page, reading the dictionary page before it when there is one.
    private func nextDataPage() throws(ParquetFormatError) -> [ColumnValue] {
        while true {
            guard position < end else { throw ParquetFormatError("its pages end before the row group's rows") }
            let (header, headerLength) = try readHeader()
            let (kind, size, stored) = (header.integer(1) ?? -1, header.integer(2) ?? -1, header.integer(3) ?? -1)
            guard (0...Int64(Self.maximumPageBytes)).contains(size), (0...Int64(Self.maximumPageBytes)).contains(stored),
                  stored <= end - position - Int64(headerLength) else {
                throw ParquetFormatError("a page of \(stored) bytes beyond its column chunk")
            }
            let body = try file.read(at: position + Int64(headerLength), count: Int(stored))
            position += Int64(headerLength) + stored
            switch kind {
            case 2: dictionary = try dictionaryPage(header, body, size: Int(size))
            case 0: if let values = try dataPage(header, body, size: Int(size)), !values.isEmpty { return values }
            case 3: if let values = try dataPageV2(header, body, size: Int(size)), !values.isEmpty { return values }
            default: continue  // an index page, or a kind this reader does not know: not values
            }
        }
    }

    /// The page header at the position and its length in bytes.
    private func readHeader() throws(ParquetFormatError) -> (ThriftValue, Int) {
        var window = Self.headerWindow
        while true {
            let count = Int(min(Int64(window), end - position))
            var reader = ThriftCompactReader(try file.read(at: position, count: count))
            do {
                let header = try reader.readStructure()
                return (header, reader.position)
            } catch {
                guard Int64(count) < end - position, window < Self.maximumPageBytes else {
                    throw ParquetFormatError("a malformed page header (\(error.reason))")
                }
                window *= 2
            }
        }
    }

    private func dictionaryPage(_ header: ThriftValue, _ body: [UInt8], size: Int) throws(ParquetFormatError) -> [ColumnValue] {
        guard let page = header.structure(7), let count = page.integer(1), count >= 0, count <= Int64(size) * 8 + 8 else {
            throw ParquetFormatError("a malformed dictionary page")
        }
        let bytes = try codec.decompress(body, body.indices, size: size)
        return try decoder.plain(Int(count), from: bytes, bytes.indices)
    }

    /// A v1 data page: definition levels (for an optional column) and values, compressed together.
    private func dataPage(_ header: ThriftValue, _ body: [UInt8], size: Int) throws(ParquetFormatError) -> [ColumnValue]? {
        guard let page = header.structure(5), let count = page.integer(1), count >= 0, count <= Int64(size) * 8 + 8 else {
            throw ParquetFormatError("a malformed data page")
        }
        let bytes = try codec.decompress(body, body.indices, size: size)
        var start = 0
        var defined: [UInt32]?
        if column.optional {
            guard page.integer(3) ?? 3 == 3 else { throw ParquetFormatError("definition levels in BIT_PACKED, which imgfetch does not read") }
            let length = try ParquetPlainValues.lengthPrefix(bytes, at: 0, within: bytes.indices)
            var levels = try RLEHybridDecoder(bytes, 4..<4 + length, bitWidth: 1)
            defined = try levels.decode(Int(count))
            start = 4 + length
        }
        return try values(Int(count), defined: defined, encoding: page.integer(2) ?? 0, bytes, start..<bytes.count)
    }

    /// A v2 data page: repetition and definition levels uncompressed first, then the values, compressed or not.
    private func dataPageV2(_ header: ThriftValue, _ body: [UInt8], size: Int) throws(ParquetFormatError) -> [ColumnValue]? {
        guard let page = header.structure(8), let count = page.integer(1), count >= 0,
              let levelBytes = Optional((page.integer(5) ?? 0) + (page.integer(6) ?? 0)), levelBytes >= 0,
              levelBytes <= Int64(body.count), levelBytes <= Int64(size), count <= Int64(size) * 8 + 8 else {
            throw ParquetFormatError("a malformed data page")
        }
        let repetition = Int(page.integer(6) ?? 0)
        var defined: [UInt32]?
        if column.optional {
            var levels = try RLEHybridDecoder(body, repetition..<Int(levelBytes), bitWidth: 1)
            defined = try levels.decode(Int(count))
        }
        let valuesCodec = page.bool(7) == false ? ParquetCodec.uncompressed : codec
        let bytes = try valuesCodec.decompress(body, Int(levelBytes)..<body.count, size: size - Int(levelBytes))
        return try values(Int(count), defined: defined, encoding: page.integer(4) ?? 0, bytes, bytes.indices)
    }

    /// The page's `count` rows: its values decoded by `encoding`, placed where `defined` (the definition levels,
    /// nil for a required column) is 1, nulls elsewhere.
    private func values(_ count: Int, defined: [UInt32]?, encoding: Int64, _ bytes: [UInt8],
                        _ range: Range<Int>) throws(ParquetFormatError) -> [ColumnValue] {
        let present = defined.map { $0.reduce(0) { $0 + Int($1) } } ?? count
        let decoded: [ColumnValue]
        switch encoding {
        case 0: decoded = try decoder.plain(present, from: bytes, range)
        case 2, 8:
            guard let dictionary else { throw ParquetFormatError("dictionary indices without a dictionary page") }
            decoded = try ParquetPlainValues.dictionaryIndexed(present, from: bytes, range, dictionary: dictionary)
        case 3 where chunk.type == .boolean: decoded = try decoder.runLengthBooleans(present, from: bytes, range)
        default: throw ParquetFormatError("values in \(ParquetEncoding.name(of: encoding)), which imgfetch does not read")
        }
        guard let defined else { return decoded }
        var next = decoded.makeIterator()
        return defined.map { $0 == 1 ? next.next() ?? .null : .null }
    }
}

/// The names of Parquet's encodings (`Encoding` in parquet.thrift) that imgfetch does not read.
enum ParquetEncoding {
    /// Encodings of values this reader does not decode: the delta encodings and BYTE_STREAM_SPLIT.
    static let unread: Set<Int64> = [5, 6, 7, 9]

    static func name(of code: Int64) -> String {
        [3: "RLE", 4: "BIT_PACKED", 5: "DELTA_BINARY_PACKED", 6: "DELTA_LENGTH_BYTE_ARRAY", 7: "DELTA_BYTE_ARRAY",
         9: "BYTE_STREAM_SPLIT"][code] ?? "encoding \(code)"
    }
}

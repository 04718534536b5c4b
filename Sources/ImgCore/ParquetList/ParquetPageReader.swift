import Foundation

/// Reads one column chunk of one row group a batch at a time: its dictionary page, if any, then its data pages (v1
/// and v2), each decompressed whole and decoded `batchLevels` levels at a time into their repetition and definition
/// levels and the values they define. Memory is a page's bytes, the dictionary and a batch, whatever a page's count.
final class ParquetPageReader {
    /// The largest page read, compressed or not: 256 MiB.
    static let maximumPageBytes = 256 << 20
    /// The first read of a page header: 64 KiB, doubled while the header is longer, up to `maximumHeaderBytes`.
    static let headerWindow = 64 << 10
    /// The longest page header read: 16 MiB (its statistics may hold long strings).
    static let maximumHeaderBytes = 16 << 20
    /// Levels decoded at a time: 1024.
    static let batchLevels = 1024

    /// Some levels of a page: their repetition levels (nil for a flat column) and definition levels (nil for a
    /// required one), and the values of those at the highest definition level, in order.
    struct Batch {
        var repetition: [UInt32]?
        var definition: [UInt32]?
        var values: [ColumnValue]
    }

    /// A data page being read: its repetition and definition levels, its values, and its levels left.
    private struct Page {
        var repetition: RLEHybridDecoder?
        var definition: RLEHybridDecoder?
        var values: ParquetValueDecoder
        var levelsLeft: Int
    }

    private let file: ParquetFile
    private let column: ParquetColumn
    private let type: ParquetColumn.PhysicalType
    private let codec: ParquetCodec
    private var position: Int64
    private let end: Int64
    /// Levels of the chunk not yet in a page read.
    private var levelsUnread: Int64
    private var dictionary: [ColumnValue]?
    private var page: Page?

    /// A reader of `chunk`, a chunk of `column` of `levels` levels (its row group's rows for a flat column; its
    /// values, nulls and empty lists included, for a nested one).
    init(file: ParquetFile, chunk: ParquetFile.ColumnChunk, column: ParquetColumn, levels: Int64) throws(ParquetFormatError) {
        guard let codec = ParquetCodec(rawValue: chunk.codec) else {
            throw ParquetFormatError("compressed with \(ParquetCodec.name(of: chunk.codec)), which imgfetch does not read")
        }
        guard chunk.start >= 0, chunk.length >= 0, chunk.start <= Int64.max - chunk.length else {
            throw ParquetFormatError("pages out of range")
        }
        (self.file, self.column, type, self.codec) = (file, column, chunk.type, codec)
        (position, end, levelsUnread) = (chunk.start, chunk.start + chunk.length, levels)
    }

    /// Whether every level of the chunk has been read.
    var isExhausted: Bool { levelsUnread == 0 && (page?.levelsLeft ?? 0) == 0 }

    /// The next levels of the page being read, reading the next data page (and a dictionary before it) when it is
    /// done; a `ParquetFormatError` when the chunk's pages end.
    func nextBatch() throws(ParquetFormatError) -> Batch {
        while true {
            if var current = page, current.levelsLeft > 0 {
                let count = min(current.levelsLeft, Self.batchLevels)
                let repetition = try current.repetition?.decode(count)
                let definition = try current.definition?.decode(count)
                let highest = UInt32(column.maxDefinition)
                let defined = definition.map { $0.reduce(0) { $0 + ($1 == highest ? 1 : 0) } } ?? count
                if let definition, definition.contains(where: { $0 > highest }) {
                    throw ParquetFormatError("a definition level over \(highest)")
                }
                let values = try current.values.next(defined)
                current.levelsLeft -= count
                page = current
                return Batch(repetition: repetition, definition: definition, values: values)
            }
            page = try nextDataPage()
        }
    }

    /// The next data page, reading the dictionary page before it when there is one.
    private func nextDataPage() throws(ParquetFormatError) -> Page {
        while true {
            guard position < end else { throw ParquetFormatError("its pages end before the row group's rows") }
            let (header, headerLength, window) = try readHeader()
            let (kind, size, stored) = (header.integer(1) ?? -1, header.integer(2) ?? -1, header.integer(3) ?? -1)
            guard (0...Int64(Self.maximumPageBytes)).contains(size), (0...Int64(Self.maximumPageBytes)).contains(stored),
                  stored <= end - position - Int64(headerLength) else {
                throw ParquetFormatError("a page of \(stored) bytes beyond its column chunk or over \(Self.maximumPageBytes)")
            }
            // The body from the bytes read for the header when they hold it all (a small page), else read after it.
            let body = headerLength + Int(stored) <= window.count
                ? Array(window[headerLength..<headerLength + Int(stored)])
                : try file.read(at: position + Int64(headerLength), count: Int(stored))
            position += Int64(headerLength) + stored
            switch kind {
            case 2: dictionary = try dictionaryPage(header, body, size: Int(size))
            case 0: if let page = try dataPage(header, body, size: Int(size)) { return page }
            case 3: if let page = try dataPageV2(header, body, size: Int(size)) { return page }
            default: continue  // an index page, or a kind this reader does not know: not values
            }
        }
    }

    /// The page header at the position, its length in bytes, and the bytes read from the position (the header's and
    /// those after it, up to the window).
    private func readHeader() throws(ParquetFormatError) -> (ThriftValue, Int, [UInt8]) {
        var windowBytes = Self.headerWindow
        while true {
            let count = Int(min(Int64(windowBytes), end - position))
            let window = try file.read(at: position, count: count)
            var reader = ThriftCompactReader(window)
            do {
                let header = try reader.readStructure()
                return (header, reader.position, window)
            } catch {
                guard Int64(count) < end - position, windowBytes < Self.maximumHeaderBytes else {
                    throw ParquetFormatError("a malformed page header (\(error.reason))")
                }
                windowBytes *= 2
            }
        }
    }

    private func dictionaryPage(_ header: ThriftValue, _ body: [UInt8], size: Int) throws(ParquetFormatError) -> [ColumnValue] {
        guard let page = header.structure(7), let count = page.integer(1), count >= 0, count <= Int64(size) * 8 else {
            throw ParquetFormatError("a malformed dictionary page")
        }
        let bytes = try codec.decompress(body, body.indices, size: size)
        var values = try ParquetValueDecoder(type: type, unsigned: column.unsigned, encoding: 0, bytes, bytes.indices,
                                             limit: Int(count), dictionary: nil)
        return try values.next(Int(count))
    }

    /// The levels of a page: its declared count of values (nulls and empty lists included), which the chunk's levels
    /// bound; a page of none is skipped (nil).
    private func levels(_ count: Int64?) throws(ParquetFormatError) -> Int? {
        guard let count, count >= 0, count <= levelsUnread else {
            throw ParquetFormatError("a data page of \(count ?? -1) values where \(levelsUnread) are left")
        }
        levelsUnread -= count
        return count == 0 ? nil : Int(count)
    }

    /// The bits a level up to `highest` takes.
    private static func bitWidth(_ highest: Int) -> Int { highest == 0 ? 0 : Int.bitWidth - highest.leadingZeroBitCount }

    /// A v1 data page: repetition levels (for a nested column), definition levels (for one that may lack a value)
    /// and values, compressed together; the levels each after their length.
    private func dataPage(_ header: ThriftValue, _ body: [UInt8], size: Int) throws(ParquetFormatError) -> Page? {
        guard let page = header.structure(5) else { throw ParquetFormatError("a malformed data page") }
        guard let count = try levels(page.integer(1)) else { return nil }
        let bytes = try codec.decompress(body, body.indices, size: size)
        var start = 0
        func levelDecoder(highest: Int, encoding: Int64?, kind: String) throws(ParquetFormatError) -> RLEHybridDecoder? {
            guard highest > 0 else { return nil }
            guard encoding ?? 3 == 3 else { throw ParquetFormatError("\(kind) levels in BIT_PACKED, which imgfetch does not read") }
            let length = try ParquetValueDecoder.lengthPrefix(bytes, at: start, within: bytes.indices)
            defer { start += 4 + length }
            return try RLEHybridDecoder(bytes, start + 4..<start + 4 + length, bitWidth: Self.bitWidth(highest))
        }
        let repetition = try levelDecoder(highest: column.maxRepetition, encoding: page.integer(4), kind: "repetition")
        let definition = try levelDecoder(highest: column.maxDefinition, encoding: page.integer(3), kind: "definition")
        let values = try ParquetValueDecoder(type: type, unsigned: column.unsigned, encoding: page.integer(2) ?? 0, bytes,
                                             start..<bytes.count, limit: count, dictionary: dictionary)
        return Page(repetition: repetition, definition: definition, values: values, levelsLeft: count)
    }

    /// A v2 data page: repetition and definition levels uncompressed first, then the values, compressed or not.
    private func dataPageV2(_ header: ThriftValue, _ body: [UInt8], size: Int) throws(ParquetFormatError) -> Page? {
        guard let page = header.structure(8) else { throw ParquetFormatError("a malformed data page") }
        let (repetitionBytes, definitionBytes) = (page.integer(6) ?? 0, page.integer(5) ?? 0)
        let room = Int64(min(body.count, size))
        guard (0...room).contains(repetitionBytes), (0...room).contains(definitionBytes),
              repetitionBytes + definitionBytes <= room else {
            throw ParquetFormatError("a malformed data page")
        }
        guard let count = try levels(page.integer(1)) else { return nil }
        let levelBytes = Int(repetitionBytes + definitionBytes)
        let repetition = column.maxRepetition > 0
            ? try RLEHybridDecoder(body, 0..<Int(repetitionBytes), bitWidth: Self.bitWidth(column.maxRepetition)) : nil
        let definition = column.maxDefinition > 0
            ? try RLEHybridDecoder(body, Int(repetitionBytes)..<levelBytes, bitWidth: Self.bitWidth(column.maxDefinition)) : nil
        let valuesCodec = page.bool(7) == false ? ParquetCodec.uncompressed : codec
        let bytes = try valuesCodec.decompress(body, levelBytes..<body.count, size: size - levelBytes)
        let values = try ParquetValueDecoder(type: type, unsigned: column.unsigned, encoding: page.integer(4) ?? 0, bytes,
                                             bytes.indices, limit: count, dictionary: dictionary)
        return Page(repetition: repetition, definition: definition, values: values, levelsLeft: count)
    }
}

/// The names of Parquet's encodings (`Encoding` in parquet.thrift), and those imgfetch reads.
enum ParquetEncoding {
    /// The encodings a column chunk may list that this reader decodes: all of parquet.thrift's but GROUP_VAR_INT
    /// (1, never written). BIT_PACKED (4) is listed for levels only, and refused on a page that uses it.
    static let read: Set<Int64> = [0, 2, 3, 4, 5, 6, 7, 8, 9]

    static func name(of code: Int64) -> String {
        [3: "RLE", 4: "BIT_PACKED", 5: "DELTA_BINARY_PACKED", 6: "DELTA_LENGTH_BYTE_ARRAY", 7: "DELTA_BYTE_ARRAY",
         9: "BYTE_STREAM_SPLIT"][code] ?? "encoding \(code)"
    }
}

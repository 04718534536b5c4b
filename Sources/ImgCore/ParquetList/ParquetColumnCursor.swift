import Foundation

/// Reads one flat column of one row group value by value: its dictionary page, if any, then its data pages (v1 and
/// v2), each decompressed whole and decoded `batchRows` rows at a time into the values of their rows, nulls
/// included. Memory is a page's bytes, the dictionary and a batch of values, whatever a page's row count.
final class ParquetColumnCursor {
    /// The largest page read, compressed or not: 256 MiB.
    static let maximumPageBytes = 256 << 20
    /// The first read of a page header: 64 KiB, doubled while the header is longer, up to `maximumHeaderBytes`.
    static let headerWindow = 64 << 10
    /// The longest page header read: 16 MiB (its statistics may hold long strings).
    static let maximumHeaderBytes = 16 << 20
    /// Rows decoded at a time: 1024.
    static let batchRows = 1024

    /// A data page being read: its definition levels (nil for a required column), its values, and its rows left.
    private struct Page {
        var levels: RLEHybridDecoder?
        var values: ParquetValueDecoder
        var rowsLeft: Int
    }

    private let file: ParquetFile
    private let column: ParquetColumn
    private let type: ParquetColumn.PhysicalType
    private let codec: ParquetCodec
    private var position: Int64
    private let end: Int64
    /// Rows of the row group not yet in a page read.
    private var rowsUnread: Int64
    private var dictionary: [ColumnValue]?
    private var page: Page?
    private var batch: [ColumnValue] = []
    private var taken = 0

    /// A cursor over `chunk`, a chunk of `rows` rows of `column`.
    init(file: ParquetFile, chunk: ParquetFile.ColumnChunk, column: ParquetColumn, rows: Int64) throws(ParquetFormatError) {
        guard let codec = ParquetCodec(rawValue: chunk.codec) else {
            throw ParquetFormatError("compressed with \(ParquetCodec.name(of: chunk.codec)), which imgfetch does not read")
        }
        guard chunk.start >= 0, chunk.length >= 0, chunk.start <= Int64.max - chunk.length else {
            throw ParquetFormatError("pages out of range")
        }
        (self.file, self.column, type, self.codec) = (file, column, chunk.type, codec)
        (position, end, rowsUnread) = (chunk.start, chunk.start + chunk.length, rows)
    }

    /// The next row's value (`.null` for a row without one).
    func next() throws(ParquetFormatError) -> ColumnValue {
        while taken == batch.count {
            batch = try nextBatch()
            taken = 0
        }
        defer { taken += 1 }
        return batch[taken]
    }

    /// The next rows of the page being read, reading the next data page (and a dictionary before it) when it is done.
    private func nextBatch() throws(ParquetFormatError) -> [ColumnValue] {
        while true {
            if var current = page, current.rowsLeft > 0 {
                let count = min(current.rowsLeft, Self.batchRows)
                var defined: [UInt32]?
                if var levels = current.levels {
                    defined = try levels.decode(count)
                    current.levels = levels
                }
                let values = try current.values.next(defined.map { $0.reduce(0) { $0 + Int($1) } } ?? count)
                current.rowsLeft -= count
                page = current
                guard let defined else { return values }
                var next = values.makeIterator()
                return defined.map { $0 == 1 ? next.next() ?? .null : .null }
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

    /// The rows of a page: its declared count, which a flat column's rows bound; a page of none is skipped (nil).
    private func rows(_ count: Int64?) throws(ParquetFormatError) -> Int? {
        guard let count, count >= 0, count <= rowsUnread else {
            throw ParquetFormatError("a data page of \(count ?? -1) rows where \(rowsUnread) are left")
        }
        rowsUnread -= count
        return count == 0 ? nil : Int(count)
    }

    /// A v1 data page: definition levels (for an optional column) and values, compressed together.
    private func dataPage(_ header: ThriftValue, _ body: [UInt8], size: Int) throws(ParquetFormatError) -> Page? {
        guard let page = header.structure(5) else { throw ParquetFormatError("a malformed data page") }
        guard let count = try rows(page.integer(1)) else { return nil }
        let bytes = try codec.decompress(body, body.indices, size: size)
        var start = 0
        var levels: RLEHybridDecoder?
        if column.optional {
            guard page.integer(3) ?? 3 == 3 else { throw ParquetFormatError("definition levels in BIT_PACKED, which imgfetch does not read") }
            let length = try ParquetValueDecoder.lengthPrefix(bytes, at: 0, within: bytes.indices)
            levels = try RLEHybridDecoder(bytes, 4..<4 + length, bitWidth: 1)
            start = 4 + length
        }
        let values = try ParquetValueDecoder(type: type, unsigned: column.unsigned, encoding: page.integer(2) ?? 0, bytes,
                                             start..<bytes.count, limit: count, dictionary: dictionary)
        return Page(levels: levels, values: values, rowsLeft: count)
    }

    /// A v2 data page: repetition and definition levels uncompressed first, then the values, compressed or not.
    private func dataPageV2(_ header: ThriftValue, _ body: [UInt8], size: Int) throws(ParquetFormatError) -> Page? {
        guard let page = header.structure(8) else { throw ParquetFormatError("a malformed data page") }
        let (repetition, definition) = (page.integer(6) ?? 0, page.integer(5) ?? 0)
        let room = Int64(min(body.count, size))
        guard (0...room).contains(repetition), (0...room).contains(definition), repetition + definition <= room else {
            throw ParquetFormatError("a malformed data page")
        }
        guard let count = try rows(page.integer(1)) else { return nil }
        let levelBytes = Int(repetition + definition)
        let levels = column.optional ? try RLEHybridDecoder(body, Int(repetition)..<levelBytes, bitWidth: 1) : nil
        let valuesCodec = page.bool(7) == false ? ParquetCodec.uncompressed : codec
        let bytes = try valuesCodec.decompress(body, levelBytes..<body.count, size: size - levelBytes)
        let values = try ParquetValueDecoder(type: type, unsigned: column.unsigned, encoding: page.integer(4) ?? 0, bytes,
                                             bytes.indices, limit: count, dictionary: dictionary)
        return Page(levels: levels, values: values, rowsLeft: count)
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

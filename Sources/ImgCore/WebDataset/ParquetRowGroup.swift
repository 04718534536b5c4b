import Foundation

/// Where one column's chunk of a row group lies in a Parquet file, and how it is compressed.
struct ParquetChunk {
    var name: String
    var isInteger: Bool
    var offset: Int
    var size: Int
    /// Its size had its page not been compressed.
    var uncompressedSize: Int
    /// `CompressionCodec` in parquet.thrift: 0 none, 1 snappy.
    var codec: Int32
}

/// A data page as written: its header and body, the codec its body is in and its size uncompressed.
struct ParquetPage {
    var bytes: Data
    var codec: Int32
    var uncompressedSize: Int
}

/// The rows of one Parquet row group, held as columns of optional UTF-8 strings and 64-bit integers until encoded:
/// each column one data page (format version 1), values PLAIN-encoded, every column OPTIONAL with its definition
/// levels run-length encoded, the page compressed with snappy where that makes it smaller (and libsnappy opens). Columns are in the order their names first appear; a row without a
/// column has null there.
struct ParquetRowGroup {
    /// One cell: a string or an integer, nil for null.
    enum Value: Equatable {
        case string(String?)
        case integer(Int64?)
    }

    struct Column {
        let name: String
        let isInteger: Bool
        var strings: [String?] = []
        var integers: [Int64?] = []
    }

    /// Rows appended.
    private(set) var rowCount = 0
    private(set) var columns: [Column] = []
    /// The bytes of the values appended: about what the group takes encoded.
    private(set) var valueBytes = 0
    private var positions: [String: Int] = [:]
    /// The kinds of columns earlier row groups of the file hold (true: integers).
    private let knownKinds: [String: Bool]

    /// An empty group; a column named in `knownKinds` takes the kind given there (default none).
    init(knownKinds: [String: Bool] = [:]) {
        self.knownKinds = knownKinds
    }

    /// Appends a row of named cells; a column first seen here gets nulls for the rows before, takes its kind from
    /// `knownKinds` or else from this cell, and keeps it: a later integer in a string column is written as its
    /// decimal digits, a later string in an integer column as the integer it spells (null when it spells none). A
    /// name given twice in a row keeps its first cell.
    mutating func append(_ row: [(name: String, value: Value)]) {
        var filled = Set<Int>()
        for (name, value) in row {
            let position = positions[name]
                ?? addColumn(name, isInteger: knownKinds[name] ?? { if case .integer = value { true } else { false } }())
            guard filled.insert(position).inserted else { continue }
            switch (columns[position].isInteger, value) {
            case (true, .integer(let number)): columns[position].integers.append(number)
            case (true, .string(let text)): columns[position].integers.append(text.flatMap { Int64($0) })
            case (false, .string(let text)): columns[position].strings.append(text)
            case (false, .integer(let number)): columns[position].strings.append(number.map { String($0) })
            }
            if case .string(let text?) = value { valueBytes += text.utf8.count + 4 } else { valueBytes += 8 }
        }
        for position in columns.indices where !filled.contains(position) { appendNull(at: position) }
        rowCount += 1
    }

    /// The group's column chunks as they are written at `offset` in the file, with where each lies.
    func encoded(at offset: Int) -> (data: Data, chunks: [ParquetChunk]) {
        var data = Data()
        var chunks: [ParquetChunk] = []
        for column in columns {
            let page = Self.page(rows: rowCount, levels: Self.levels(column), values: Self.values(column))
            chunks.append(ParquetChunk(name: column.name, isInteger: column.isInteger, offset: offset + data.count,
                                       size: page.bytes.count, uncompressedSize: page.uncompressedSize, codec: page.codec))
            data.append(page.bytes)
        }
        return (data, chunks)
    }

    /// A data page of `rows` nulls: a column a row group lacks.
    static func nullPage(rows: Int) -> ParquetPage {
        page(rows: rows, levels: runLengths(Array(repeating: false, count: rows)), values: Data())
    }

    /// A data page, its header first: `rows` values, their definition levels encoded, then the values present; the
    /// body compressed with snappy when that makes it smaller.
    static func page(rows: Int, levels: Data, values: Data) -> ParquetPage {
        var body = littleEndian(UInt32(levels.count))
        body.append(levels)
        body.append(values)
        let uncompressed = body.count
        var codec: Int32 = 0
        if let compressed = ParquetCodec.snappyCompressed(body), compressed.count < body.count {
            (body, codec) = (compressed, 1)
        }
        var header = ThriftCompactWriter()
        header.field(1, i32: 0)  // DATA_PAGE
        header.field(2, i32: Int32(uncompressed))
        header.field(3, i32: Int32(body.count))
        header.field(5) { page in
            page.field(1, i32: Int32(rows))
            page.field(2, i32: 0)  // PLAIN
            page.field(3, i32: 3)  // RLE definition levels
            page.field(4, i32: 3)  // RLE repetition levels (none: the schema is flat)
        }
        header.end()
        return ParquetPage(bytes: header.bytes + body, codec: codec, uncompressedSize: header.bytes.count + uncompressed)
    }

    /// Parquet's RLE/bit-packing hybrid at bit width 1, as runs only: each run of equal levels is its length
    /// shifted left once (a varint), then the level in one byte.
    static func runLengths(_ levels: [Bool]) -> Data {
        var data = Data()
        var index = 0
        while index < levels.count {
            var end = index + 1
            while end < levels.count, levels[end] == levels[index] { end += 1 }
            ThriftCompactWriter.appendVarint(UInt64(end - index) << 1, to: &data)
            data.append(levels[index] ? 1 : 0)
            index = end
        }
        return data
    }

    static func littleEndian<T: FixedWidthInteger>(_ value: T) -> Data {
        withUnsafeBytes(of: value.littleEndian) { Data($0) }
    }

    private mutating func addColumn(_ name: String, isInteger: Bool) -> Int {
        columns.append(Column(name: name, isInteger: isInteger))
        let position = columns.count - 1
        positions[name] = position
        for _ in 0..<rowCount { appendNull(at: position) }
        return position
    }

    private mutating func appendNull(at position: Int) {
        if columns[position].isInteger {
            columns[position].integers.append(nil)
        } else {
            columns[position].strings.append(nil)
        }
    }

    /// A column's definition levels (1 for a value, 0 for null), encoded.
    private static func levels(_ column: Column) -> Data {
        runLengths(column.isInteger ? column.integers.map { $0 != nil } : column.strings.map { $0 != nil })
    }

    /// A column's values present, PLAIN: 8 bytes little-endian an integer, a string's length in 4 then its bytes.
    private static func values(_ column: Column) -> Data {
        var data = Data()
        if column.isInteger {
            for case let number? in column.integers { data.append(littleEndian(UInt64(bitPattern: number))) }
        } else {
            for case let text? in column.strings {
                let bytes = Data(text.utf8)
                data.append(littleEndian(UInt32(bytes.count)))
                data.append(bytes)
            }
        }
        return data
    }
}

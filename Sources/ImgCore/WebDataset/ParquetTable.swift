import Foundation

/// A table of optional UTF-8 strings and 64-bit integers, written as one Apache Parquet file: one row group, one
/// uncompressed data page a column (format version 1 pages), values PLAIN-encoded, every column OPTIONAL with its
/// definition levels run-length encoded. What img2dataset writes beside each tar, read by pyarrow, pandas, DuckDB
/// and Spark. Columns are in the order their names first appear; a row without a column has null there.
struct ParquetTable {
    /// One cell: a string or an integer, nil for null.
    enum Value: Equatable {
        case string(String?)
        case integer(Int64?)
    }

    private struct Column {
        let name: String
        let isInteger: Bool
        var strings: [String?] = []
        var integers: [Int64?] = []
    }

    /// Rows appended.
    private(set) var rowCount = 0
    private var columns: [Column] = []
    private var positions: [String: Int] = [:]

    /// Appends a row of named cells; a column first seen here gets nulls for the rows before, takes its kind from
    /// this cell, and keeps it: a later integer in a string column is written as its decimal digits, a later string
    /// in an integer column as the integer it spells (null when it spells none). A name given twice in a row keeps
    /// its first cell.
    mutating func append(_ row: [(name: String, value: Value)]) {
        var filled = Set<Int>()
        for (name, value) in row {
            let position = positions[name] ?? addColumn(name, isInteger: { if case .integer = value { true } else { false } }())
            guard filled.insert(position).inserted else { continue }
            switch (columns[position].isInteger, value) {
            case (true, .integer(let number)): columns[position].integers.append(number)
            case (true, .string(let text)): columns[position].integers.append(text.flatMap { Int64($0) })
            case (false, .string(let text)): columns[position].strings.append(text)
            case (false, .integer(let number)): columns[position].strings.append(number.map { String($0) })
            }
        }
        for position in columns.indices where !filled.contains(position) { appendNull(at: position) }
        rowCount += 1
    }

    /// The file: `PAR1`, each column's page, the file metadata, its length and `PAR1` again.
    func encoded(createdBy: String) -> Data {
        var file = Data("PAR1".utf8)
        var chunks: [(offset: Int, size: Int)] = []
        for column in columns {
            let page = pageData(column)
            var header = ThriftCompactWriter()
            header.field(1, i32: 0)  // DATA_PAGE
            header.field(2, i32: Int32(page.count))
            header.field(3, i32: Int32(page.count))
            header.field(5) { data in
                data.field(1, i32: Int32(rowCount))
                data.field(2, i32: 0)  // PLAIN
                data.field(3, i32: 3)  // RLE definition levels
                data.field(4, i32: 3)  // RLE repetition levels (none: the schema is flat)
            }
            header.end()
            chunks.append((file.count, header.bytes.count + page.count))
            file.append(header.bytes)
            file.append(page)
        }
        let metadata = fileMetadata(chunks: chunks, createdBy: createdBy)
        file.append(metadata)
        file.append(Self.littleEndian(UInt32(metadata.count)))
        file.append(Data("PAR1".utf8))
        return file
    }

    private mutating func addColumn(_ name: String, isInteger: Bool) -> Int {
        columns.append(Column(name: name, isInteger: isInteger))
        let position = columns.count - 1
        positions[name] = position
        for _ in 0..<rowCount { appendNull(at: position) }
        return position
    }

    private mutating func appendNull(at position: Int) {
        if columns[position].isInteger { columns[position].integers.append(nil) } else { columns[position].strings.append(nil) }
    }

    /// A page's data: the definition levels (1 for a value, 0 for null) with their length, then the values.
    private func pageData(_ column: Column) -> Data {
        let present = column.isInteger ? column.integers.map { $0 != nil } : column.strings.map { $0 != nil }
        let levels = Self.runLengths(present)
        var data = Self.littleEndian(UInt32(levels.count))
        data.append(levels)
        if column.isInteger {
            for case let number? in column.integers { data.append(Self.littleEndian(UInt64(bitPattern: number))) }
        } else {
            for case let text? in column.strings {
                let bytes = Data(text.utf8)
                data.append(Self.littleEndian(UInt32(bytes.count)))
                data.append(bytes)
            }
        }
        return data
    }

    /// Parquet's RLE/bit-packing hybrid at bit width 1, as runs only: each run of equal levels is its length
    /// shifted left once (a varint), then the level in one byte.
    static func runLengths(_ levels: [Bool]) -> Data {
        var data = Data()
        var index = 0
        while index < levels.count {
            var end = index + 1
            while end < levels.count, levels[end] == levels[index] { end += 1 }
            var header = UInt64(end - index) << 1
            while header >= 0x80 {
                data.append(UInt8(header & 0x7F) | 0x80)
                header >>= 7
            }
            data.append(UInt8(header))
            data.append(levels[index] ? 1 : 0)
            index = end
        }
        return data
    }

    private func fileMetadata(chunks: [(offset: Int, size: Int)], createdBy: String) -> Data {
        var meta = ThriftCompactWriter()
        meta.field(1, i32: 1)
        meta.field(2, listOf: .structure, count: columns.count + 1) { list in
            list.structure { root in
                root.field(4, string: "schema")
                root.field(5, i32: Int32(columns.count))
            }
            for column in columns {
                list.structure { element in
                    element.field(1, i32: column.isInteger ? 2 : 6)  // INT64, BYTE_ARRAY
                    element.field(3, i32: 1)  // OPTIONAL
                    element.field(4, string: column.name)
                    if !column.isInteger { element.field(6, i32: 0) }  // UTF8
                }
            }
        }
        meta.field(3, i64: Int64(rowCount))
        meta.field(4, listOf: .structure, count: 1) { list in
            list.structure { group in rowGroup(&group, chunks: chunks) }
        }
        meta.field(6, string: createdBy)
        meta.end()
        return meta.bytes
    }

    private func rowGroup(_ group: inout ThriftCompactWriter, chunks: [(offset: Int, size: Int)]) {
        group.field(1, listOf: .structure, count: columns.count) { list in
            for (column, chunk) in zip(columns, chunks) {
                list.structure { columnChunk in
                    columnChunk.field(2, i64: Int64(chunk.offset))
                    columnChunk.field(3) { meta in
                        meta.field(1, i32: column.isInteger ? 2 : 6)
                        meta.field(2, listOf: .i32, count: 2) { $0.element(i32: 0); $0.element(i32: 3) }
                        meta.field(3, listOf: .binary, count: 1) { $0.element(string: column.name) }
                        meta.field(4, i32: 0)  // UNCOMPRESSED
                        meta.field(5, i64: Int64(rowCount))
                        meta.field(6, i64: Int64(chunk.size))
                        meta.field(7, i64: Int64(chunk.size))
                        meta.field(9, i64: Int64(chunk.offset))
                    }
                }
            }
        }
        group.field(2, i64: Int64(chunks.reduce(0) { $0 + $1.size }))
        group.field(3, i64: Int64(rowCount))
    }

    private static func littleEndian<T: FixedWidthInteger>(_ value: T) -> Data {
        withUnsafeBytes(of: value.littleEndian) { Data($0) }
    }
}

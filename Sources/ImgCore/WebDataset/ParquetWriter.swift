import Foundation

/// Writes a table as one Apache Parquet file through `output`, a row group at a time, so that a table's memory is
/// one group's whatever its length: `PAR1`, each row group's column chunks as it fills (`ParquetRowGroup`), then the
/// file metadata, its length and `PAR1` again. The schema is every column name seen, in the order first seen, each
/// OPTIONAL; a row group written before a column was first seen gets a chunk of nulls for it at the end. Pages are
/// compressed with snappy, as pyarrow writes by default. What img2dataset writes beside each tar, read by pyarrow,
/// pandas, DuckDB and Spark.
struct ParquetWriter {
    /// Bytes of values a row group holds before it is written: 32 MiB (a URL or caption column of long lines).
    static let bytesPerGroup = 32 << 20

    /// Rows a row group holds at most.
    let rowsPerGroup: Int
    private let output: (Data) throws(ImgError) -> Void
    private var group = ParquetRowGroup()
    /// Every column seen, in order, and whether it holds integers.
    private var schema: [(name: String, isInteger: Bool)] = []
    private var written: [(rows: Int, chunks: [String: ParquetChunk])] = []
    /// Bytes written so far.
    private var offset = 0

    /// A writer whose bytes go to `output`, in order, in row groups of up to `rowsPerGroup` rows (default 10,000);
    /// the file's first four bytes are written now.
    init(rowsPerGroup: Int = 10_000, output: @escaping (Data) throws(ImgError) -> Void) throws(ImgError) {
        (self.rowsPerGroup, self.output) = (max(1, rowsPerGroup), output)
        try emit(Data("PAR1".utf8))
    }

    /// Appends a row of named cells (`ParquetRowGroup.append`); a full row group is written.
    mutating func append(_ row: [(name: String, value: ParquetRowGroup.Value)]) throws(ImgError) {
        group.append(row)
        if group.rowCount >= rowsPerGroup || group.valueBytes >= Self.bytesPerGroup { try writeGroup() }
    }

    /// Writes the last row group, the null chunks the earlier groups lack, and the file metadata.
    mutating func finish(createdBy: String) throws(ImgError) {
        try writeGroup()
        for index in written.indices {
            for column in schema where written[index].chunks[column.name] == nil {
                let page = ParquetRowGroup.nullPage(rows: written[index].rows)
                written[index].chunks[column.name] = ParquetChunk(name: column.name, isInteger: column.isInteger,
                                                                  offset: offset, size: page.bytes.count,
                                                                  uncompressedSize: page.uncompressedSize, codec: page.codec)
                try emit(page.bytes)
            }
        }
        let metadata = fileMetadata(createdBy: createdBy)
        try emit(metadata + ParquetRowGroup.littleEndian(UInt32(metadata.count)) + Data("PAR1".utf8))
    }

    private mutating func writeGroup() throws(ImgError) {
        guard group.rowCount > 0 else { return }
        let (data, chunks) = group.encoded(at: offset)
        for column in group.columns where !schema.contains(where: { $0.name == column.name }) {
            schema.append((column.name, column.isInteger))
        }
        written.append((group.rowCount, Dictionary(chunks.map { ($0.name, $0) }) { first, _ in first }))
        group = ParquetRowGroup(knownKinds: Dictionary(schema.map { ($0.name, $0.isInteger) }) { first, _ in first })
        try emit(data)
    }

    private mutating func emit(_ data: Data) throws(ImgError) {
        try output(data)
        offset += data.count
    }

    private func fileMetadata(createdBy: String) -> Data {
        var meta = ThriftCompactWriter()
        meta.field(1, i32: 1)
        meta.field(2, listOf: .structure, count: schema.count + 1) { list in
            list.structure { root in
                root.field(4, string: "schema")
                root.field(5, i32: Int32(schema.count))
            }
            for column in schema {
                list.structure { element in
                    element.field(1, i32: column.isInteger ? 2 : 6)  // INT64, BYTE_ARRAY
                    element.field(3, i32: 1)  // OPTIONAL
                    element.field(4, string: column.name)
                    if !column.isInteger { element.field(6, i32: 0) }  // UTF8
                }
            }
        }
        meta.field(3, i64: Int64(written.reduce(0) { $0 + $1.rows }))
        meta.field(4, listOf: .structure, count: written.count) { list in
            for group in written {
                list.structure { rowGroup(&$0, rows: group.rows, chunks: schema.compactMap { group.chunks[$0.name] }) }
            }
        }
        meta.field(6, string: createdBy)
        meta.end()
        return meta.bytes
    }

    private func rowGroup(_ group: inout ThriftCompactWriter, rows: Int, chunks: [ParquetChunk]) {
        group.field(1, listOf: .structure, count: chunks.count) { list in
            for chunk in chunks {
                list.structure { columnChunk in
                    columnChunk.field(2, i64: Int64(chunk.offset))
                    columnChunk.field(3) { meta in
                        meta.field(1, i32: chunk.isInteger ? 2 : 6)
                        meta.field(2, listOf: .i32, count: 2) { $0.element(i32: 0); $0.element(i32: 3) }
                        meta.field(3, listOf: .binary, count: 1) { $0.element(string: chunk.name) }
                        meta.field(4, i32: chunk.codec)
                        meta.field(5, i64: Int64(rows))
                        meta.field(6, i64: Int64(chunk.uncompressedSize))
                        meta.field(7, i64: Int64(chunk.size))
                        meta.field(9, i64: Int64(chunk.offset))
                    }
                }
            }
        }
        group.field(2, i64: Int64(chunks.reduce(0) { $0 + $1.size }))
        group.field(3, i64: Int64(rows))
    }
}

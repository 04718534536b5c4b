import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A Parquet file opened for reading: its top-level columns and row groups from its footer (`FileMetaData`), and
/// reads of byte ranges by position. What a Parquet list is read from.
final class ParquetFile {
    /// Where one column's values are in one row group.
    struct ColumnChunk {
        let type: ParquetColumn.PhysicalType
        /// `CompressionCodec` in parquet.thrift: 0 none, 1 snappy, 2 gzip, 6 zstd are read.
        let codec: Int64
        /// The first page's position (the dictionary page's when there is one).
        let start: Int64
        /// The chunk's pages' size in the file.
        let length: Int64
        /// The values (nulls and empty lists included) the chunk holds: the row group's rows for a flat column.
        let values: Int64
        /// The encodings its pages use (`Encoding` in parquet.thrift).
        let encodings: [Int64]
    }

    /// One row group: its row count and its columns' chunks by name (a nested column's by its name).
    struct RowGroup {
        let rows: Int64
        let chunks: [String: ColumnChunk]
    }

    /// The largest footer read: 256 MiB.
    static let maximumFooterBytes = 256 << 20

    let columns: [ParquetColumn]
    let rowGroups: [RowGroup]
    private let descriptor: Int32
    private let size: Int64

    /// Opens `path` and reads its footer; an `ImgError.io` when it can't be read, a `ParquetFormatError` when it is
    /// not Parquet.
    init(path: String) throws(ImgError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .io("cannot read list '\(path)': \(String(cString: strerror(errno)))") }
        var status = stat()
        let size = fstat(descriptor, &status) == 0 ? Int64(status.st_size) : -1
        do throws(ParquetFormatError) {
            let metadata = try Self.footer(descriptor: descriptor, size: size)
            columns = try ParquetColumn.topLevel(of: metadata.list(2))
            var groups: [RowGroup] = []
            for group in metadata.list(4) { groups.append(try Self.rowGroup(group)) }
            rowGroups = groups
        } catch {
            close(descriptor)
            throw .usage("list '\(path)' is not a Parquet file imgfetch reads: \(error.reason)")
        }
        (self.descriptor, self.size) = (descriptor, size)
    }

    deinit { close(descriptor) }

    /// `count` bytes from `offset`; a `ParquetFormatError` when the file ends before them.
    func read(at offset: Int64, count: Int) throws(ParquetFormatError) -> [UInt8] {
        try Self.read(descriptor, at: offset, count: count, size: size)
    }

    private static func read(_ descriptor: Int32, at offset: Int64, count: Int, size: Int64) throws(ParquetFormatError) -> [UInt8] {
        guard offset >= 0, count >= 0, offset <= size, Int64(count) <= size - offset else {
            throw ParquetFormatError("a range beyond the end of the file")
        }
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { throw ParquetFormatError(got < 0 ? String(cString: strerror(errno)) : "the file is shorter than it was") }
            done += got
        }
        return bytes
    }

    /// The file's `FileMetaData`, from the footer: the metadata, its length (4 bytes, little-endian) and `PAR1`.
    private static func footer(descriptor: Int32, size: Int64) throws(ParquetFormatError) -> ThriftValue {
        let magic: [UInt8] = Array("PAR1".utf8)
        guard size >= 12 else { throw ParquetFormatError("too short to be Parquet") }
        guard try read(descriptor, at: 0, count: 4, size: size) == magic else { throw ParquetFormatError("it does not start with PAR1") }
        let tail = try read(descriptor, at: size - 8, count: 8, size: size)
        guard Array(tail[4...]) == magic else { throw ParquetFormatError("it does not end with PAR1") }
        let length = tail[0..<4].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        guard length > 0, length <= maximumFooterBytes, Int64(length) <= size - 12 else {
            throw ParquetFormatError("a footer of \(length) bytes")
        }
        var reader = ThriftCompactReader(try read(descriptor, at: size - 8 - Int64(length), count: length, size: size))
        do {
            return try reader.readStructure()
        } catch {
            throw ParquetFormatError("its footer is malformed (\(error.reason))")
        }
    }

    private static func rowGroup(_ group: ThriftValue) throws(ParquetFormatError) -> RowGroup {
        var chunks: [String: ColumnChunk] = [:]
        for chunk in group.list(1) {
            guard let meta = chunk.structure(3) else { throw ParquetFormatError("a column chunk without its metadata") }
            let path = meta.list(3).compactMap { value -> String? in if case .binary(let b) = value { String(decoding: b, as: UTF8.self) } else { nil } }
            // A nested column's value has a longer path, under its column's name; a struct's or a map's several
            // values (a column not read) give it several: the first is kept.
            guard let name = path.first, chunks[name] == nil,
                  let type = meta.integer(1).flatMap(ParquetColumn.PhysicalType.init) else { continue }
            if chunk.string(1) != nil { throw ParquetFormatError("column '\(name)' is in another file") }
            guard let dataStart = meta.integer(9), let length = meta.integer(7), let values = meta.integer(5) else {
                throw ParquetFormatError("column '\(name)' lacks its pages' position")
            }
            let dictionaryStart = meta.integer(11).flatMap { $0 > 0 && $0 < dataStart ? $0 : nil }
            let encodings = meta.list(2).compactMap { value -> Int64? in if case .integer(let e) = value { e } else { nil } }
            chunks[name] = ColumnChunk(type: type, codec: meta.integer(4) ?? 0, start: dictionaryStart ?? dataStart,
                                          length: length, values: values, encodings: encodings)
        }
        return RowGroup(rows: group.integer(3) ?? 0, chunks: chunks)
    }
}

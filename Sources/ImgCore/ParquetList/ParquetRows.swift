import Foundation

/// The rows of a Parquet list, row group after row group, each as the values of the columns a list layout names
/// (`ListLayout.namedColumns`): one cursor a named column in the row group being read, so memory is a page and a
/// batch of rows of each.
final class ParquetRows {
    private let file: ParquetFile
    private let names: [String]
    private var group = -1
    private var rowsLeft: Int64 = 0
    private var cursors: [(name: String, cursor: ParquetColumnCursor)] = []

    /// Rows of `file`'s columns `names`, which `check` has accepted.
    init(_ file: ParquetFile, columns names: [String]) {
        (self.file, self.names) = (file, names)
    }

    /// The next row's values by column name, or nil after the last row.
    func next() throws(ParquetFormatError) -> [String: ColumnValue]? {
        while rowsLeft == 0 {
            group += 1
            guard group < file.rowGroups.count else { return nil }
            try start(file.rowGroups[group])
        }
        rowsLeft -= 1
        var row = [String: ColumnValue](minimumCapacity: cursors.count)
        for (name, cursor) in cursors {
            do {
                row[name] = try cursor.next()
            } catch {
                throw ParquetFormatError("column '\(name)' of row group \(group + 1): \(error.reason)")
            }
        }
        return row
    }

    private func start(_ group: ParquetFile.RowGroup) throws(ParquetFormatError) {
        guard group.rows >= 0 else { throw ParquetFormatError("a row group of \(group.rows) rows") }
        cursors = []
        for name in names {
            guard let chunk = group.chunks[name], let column = file.columns.first(where: { $0.name == name }) else {
                throw ParquetFormatError("a row group lacks column '\(name)'")
            }
            do {
                cursors.append((name, try ParquetColumnCursor(file: file, chunk: chunk, column: column, rows: group.rows)))
            } catch {
                throw ParquetFormatError("column '\(name)' of row group \(self.group + 1): \(error.reason)")
            }
        }
        rowsLeft = group.rows
    }

    /// Refuses, before anything is fetched, a Parquet list that lacks one of `columns` or holds one this reader
    /// can't read: a struct or a map, of a type or logical type it does not read, or in a codec or encoding it
    /// does not read in some row group.
    static func check(_ file: ParquetFile, columns: [(name: String, role: ListColumnRole)], list: String) throws(ImgError) {
        for (name, role) in columns {
            let matching = file.columns.filter { $0.name == name }
            if matching.count > 1 { throw .usage("list \(list) has \(matching.count) columns named '\(name)'") }
            guard let column = matching.first else {
                let names = file.columns.map(\.name)
                let shown = names.prefix(12).map { "'\($0)'" }.joined(separator: ", ") + (names.count > 12 ? ", ..." : "")
                throw .missingColumn(MissingColumn(column: name, role: role, list: list, evidence: "; its columns are \(shown)"))
            }
            if let reason = column.unreadableReason { throw .usage("column '\(name)' of list \(list) is \(reason), which imgfetch does not read") }
            for group in file.rowGroups {
                guard let chunk = group.chunks[name] else { throw .usage("list \(list) has a row group without column '\(name)'") }
                if ParquetCodec(rawValue: chunk.codec) == nil {
                    throw .usage("column '\(name)' of list \(list) is compressed with \(ParquetCodec.name(of: chunk.codec)), which imgfetch does not read")
                }
                if let encoding = chunk.encodings.first(where: { !ParquetEncoding.read.contains($0) }) {
                    throw .usage("column '\(name)' of list \(list) uses \(ParquetEncoding.name(of: encoding)), which imgfetch does not read")
                }
            }
        }
    }
}

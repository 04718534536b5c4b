import Foundation

/// Reads a batch's rows when its list is Parquet (`ListFormat.parquet`): the Parquet file's rows, numbered from 1
/// (a row's number is its `line`); several inputs are read one after the other by `ListSequenceReader`.
/// A row that fails (no URL, a null where a string is needed) is recorded by its named columns as compact JSON.
final class ParquetListReader: ListRowSource {
    private let path: String
    private let layout: ListLayout
    /// The file's rows once it is opened; nil before, and once they are read or a failure ended them.
    private var rows: ParquetRows?
    private var opened = false
    private var rowNumber = 0
    /// Why the list could not be read to its end (it can't be opened, or a page is malformed): the rows before it
    /// were returned, none after it. Nil while all is well.
    private(set) var failure: ImgError?

    var linesRead: Int { rowNumber }

    /// `path`: the Parquet file, opened when its first row is asked for.
    init(path: String, layout: ListLayout) {
        (self.path, self.layout) = (path, layout)
    }

    func nextRow() -> ListRow? {
        if !opened {
            opened = true
            do throws(ImgError) {
                rows = ParquetRows(try ParquetFile(path: path), columns: layout.namedColumns.map(\.name))
            } catch {
                failure = error
                return nil
            }
        }
        guard let rows else { return nil }
        do throws(ParquetFormatError) {
            if let values = try rows.next() { return row(values) }
        } catch {
            failure = .io("cannot read list '\(path)': \(error.reason)")
        }
        self.rows = nil
        return nil
    }

    private func row(_ values: [String: ColumnValue]) -> ListRow {
        rowNumber += 1
        var row = layout.row(from: { values[$0] }, line: rowNumber, raw: "")
        if row.failure != nil { row.raw = Self.compactJSON(values) }
        return row
    }

    /// `values` as a JSON object, keys sorted, no spaces.
    static func compactJSON(_ values: [String: ColumnValue]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(values)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

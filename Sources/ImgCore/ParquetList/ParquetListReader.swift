import Foundation

/// Reads a batch's rows when its list is Parquet (`ListFormat.parquet`): the Parquet file's rows, numbered from 1
/// (a row's number is its `line`), and words given on the command line as plain lines, in the order of the inputs.
/// A row that fails (no URL, a null where a string is needed) is recorded by its named columns as compact JSON.
final class ParquetListReader: ListRowSource {
    private var inputs: ArraySlice<BatchInput>
    private let layout: ListLayout
    private var words: BatchListReader?
    private var rows: ParquetRows?
    private var path = ""
    private var rowNumber = 0
    /// Why the list could not be read to its end (it can't be opened, or a page is malformed): the rows before it
    /// were returned, none after it. Nil while all is well.
    private(set) var failure: ImgError?

    var linesRead: Int { rowNumber }

    init(_ inputs: [BatchInput], layout: ListLayout) {
        (self.inputs, self.layout) = (inputs[...], layout)
    }

    func nextRow() -> ListRow? {
        while true {
            if let words {
                if let physical = words.nextPhysicalLine() {
                    if let row = ListRowReader.plainRow(physical) { return row }
                    continue
                }
                self.words = nil
            }
            if let rows {
                do throws(ParquetFormatError) {
                    if let values = try rows.next() { return row(values) }
                    self.rows = nil
                } catch {
                    stop(because: .io("cannot read list '\(path)': \(error.reason)"))
                    return nil
                }
                continue
            }
            guard let input = inputs.popFirst() else { return nil }
            guard case .file(let path) = input else {
                words = BatchListReader([input])
                continue
            }
            do throws(ImgError) {
                (self.path, rowNumber) = (path, 0)
                rows = ParquetRows(try ParquetFile(path: path), columns: layout.namedColumns.map(\.name))
            } catch {
                stop(because: error)
                return nil
            }
        }
    }

    private func row(_ values: [String: ColumnValue]) -> ListRow {
        rowNumber += 1
        var row = layout.row(from: { values[$0] }, line: rowNumber, raw: "")
        if row.failure != nil { row.raw = Self.compactJSON(values) }
        return row
    }

    private func stop(because error: ImgError) {
        failure = error
        (inputs, rows, words) = ([], nil, nil)
    }

    /// `values` as a JSON object, keys sorted, no spaces.
    static func compactJSON(_ values: [String: ColumnValue]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(values)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

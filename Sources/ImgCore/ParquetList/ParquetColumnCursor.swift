import Foundation

/// Reads one column of one row group row by row (`ParquetPageReader` a batch of levels at a time): a flat column's
/// value a row (`.null` for a row without one), a nested column's rows put together from its levels
/// (`ParquetNestedAssembler`). Memory is a page, a batch, and the rows of a batch.
final class ParquetColumnCursor {
    private let pages: ParquetPageReader
    private let highest: UInt32
    /// For a nested column; nil for a flat one.
    private var assembler: ParquetNestedAssembler?
    private var rows: [ColumnValue] = []
    private var taken = 0

    /// A cursor over `chunk`, a chunk of `rows` rows of `column`.
    init(file: ParquetFile, chunk: ParquetFile.ColumnChunk, column: ParquetColumn, rows: Int64) throws(ParquetFormatError) {
        let nested = column.maxRepetition > 0
        pages = try ParquetPageReader(file: file, chunk: chunk, column: column, levels: nested ? chunk.values : rows)
        highest = UInt32(column.maxDefinition)
        if nested { assembler = ParquetNestedAssembler(path: column.path) }
    }

    /// The next row's value.
    func next() throws(ParquetFormatError) -> ColumnValue {
        while taken == rows.count {
            (rows, taken) = (try nextRows(), 0)
        }
        defer { taken += 1 }
        return rows[taken]
    }

    /// The rows of the next batch of levels: for a nested column, those it completes (none, when its levels are all
    /// of one row; the last row once the chunk's levels are all read).
    private func nextRows() throws(ParquetFormatError) -> [ColumnValue] {
        guard var assembler else {
            let batch = try pages.nextBatch()
            guard let definition = batch.definition else { return batch.values }
            var values = batch.values.makeIterator()
            return definition.map { $0 == highest ? values.next() ?? .null : .null }
        }
        defer { self.assembler = assembler }
        if pages.isExhausted {
            let last = assembler.finish()
            guard !last.isEmpty else { throw ParquetFormatError("its pages end before the row group's rows") }
            return last
        }
        let batch = try pages.nextBatch()
        guard let repetition = batch.repetition, let definition = batch.definition else {
            throw ParquetFormatError("a nested column's page without its levels")
        }
        return try assembler.add(repetition: repetition, definition: definition, values: batch.values)
    }
}

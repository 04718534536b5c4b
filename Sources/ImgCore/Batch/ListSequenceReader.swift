import Foundation

/// Where a row of one of several inputs is: the list as named on the command line and the row's line there.
public struct ListPosition: Sendable, Equatable {
    /// The list's path as given (`-` for standard input).
    public var list: String
    /// The row's line in that list (its row number, for Parquet), from 1.
    public var line: Int
}

/// Reads several inputs of one format one after the other as one list: batch's lists, or prefetch's URLs given on
/// the command line and its `--from` list. A row's `line` counts on through them (the first line of the second
/// input is numbered after the last line of the first, its header and blank lines included; a Parquet file's rows
/// after the rows before it; each word given on the command line is a line), so line numbers, `{index}`,
/// WebDataset keys and `--resume` records stay unique and stable while the inputs and their order stay the same.
/// Each row of a list keeps its own list and line (`ListRow.position`); a word given on the command line has none.
/// An input that can't be read to its end ends the reading there, as with one list.
final class ListSequenceReader: ListRowSource {
    private var inputs: ArraySlice<BatchInput>
    private let layout: ListLayout
    /// The input being read and the name its rows' positions give (nil for words given on the command line).
    private var current: (source: any ListRowSource, list: String?)?
    /// The lines of the inputs read to their end before the current one.
    private var offset = 0
    private(set) var failure: ImgError?

    /// `inputs`: the lists (and words), in order; `layout` decides their (one) format.
    init(inputs: [BatchInput], layout: ListLayout) {
        (self.inputs, self.layout) = (inputs[...], layout)
    }

    var linesRead: Int { offset + (current?.source.linesRead ?? 0) }

    func nextRow() -> ListRow? {
        while true {
            if let (source, list) = current {
                if var row = source.nextRow() {
                    row.position = list.map { ListPosition(list: $0, line: row.line) }
                    row.line += offset
                    return row
                }
                if let failure = source.failure {
                    self.failure = failure
                    (inputs, current) = ([], nil)
                    return nil
                }
                offset += source.linesRead
                current = nil
            }
            guard let input = inputs.popFirst() else { return nil }
            current = (layout.rowSource(for: [input]), Self.name(of: input))
        }
    }

    /// The list a row of `input` names: its path, `-` for standard input, nil for words given on the command line.
    static func name(of input: BatchInput) -> String? {
        switch input {
        case .file(let path): path
        case .standardInput: "-"
        case .words: nil
        }
    }
}

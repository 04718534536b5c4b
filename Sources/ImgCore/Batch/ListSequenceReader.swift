import Foundation

/// Where a row of one of several lists is: the list as named on the command line and the row's line there.
public struct ListPosition: Sendable, Equatable {
    /// The list's path as given.
    public var list: String
    /// The row's line in that list (its row number, for Parquet), from 1.
    public var line: Int
}

/// Reads several lists of one format one after the other as one list: a row's `line` counts on through them (the
/// first line of the second list is numbered after the last line of the first, its header and blank lines
/// included; a Parquet file's rows after the rows before it), so line numbers, `{index}`, WebDataset keys and
/// `--resume` records stay unique and stable while the lists and their order stay the same. Each row keeps its own
/// list and line (`ListRow.position`). A list that can't be read to its end ends the reading there, as with one list.
final class ListSequenceReader: ListRowSource {
    private var lists: ArraySlice<String>
    private let layout: ListLayout
    private var current: (source: any ListRowSource, path: String)?
    /// The lines of the lists read to their end before the current one.
    private var offset = 0
    private(set) var failure: ImgError?

    /// `lists`: the lists' paths, in order; `layout` decides their (one) format.
    init(lists: [String], layout: ListLayout) {
        (self.lists, self.layout) = (lists[...], layout)
    }

    var linesRead: Int { offset + (current?.source.linesRead ?? 0) }

    func nextRow() -> ListRow? {
        while true {
            if let (source, path) = current {
                if var row = source.nextRow() {
                    row.position = ListPosition(list: path, line: row.line)
                    row.line += offset
                    return row
                }
                if let failure = source.failure {
                    self.failure = failure
                    (lists, current) = ([], nil)
                    return nil
                }
                offset += source.linesRead
                current = nil
            }
            guard let path = lists.popFirst() else { return nil }
            current = (layout.rowSource(for: [.file(path)]), path)
        }
    }
}

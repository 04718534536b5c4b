import Foundation

/// Puts the rows of a nested column (lists of one kind of value, `ParquetColumn`) back together from the repetition
/// and definition levels its values were written with (the format's record shredding, from Dremel): each row's
/// value is a JSON array of arrays down to the values, null where an optional list or value is absent. A level
/// of repetition 0 starts a row; repetition r adds an entry to the r-th list of the row's path; the definition
/// level says how far down the path the entry is present (a list present but of no entry, an absent entry, or a
/// value).
struct ParquetNestedAssembler {
    /// The repetition of each element of the path, from the column's own down to its value's.
    private let path: [ParquetColumn.Repetition]
    /// The definition level at which each element of the path is present.
    private let presentAt: [Int]
    /// The position in the path of the REPEATED element of each repetition level (index 0 for level 1).
    private let repeatedElements: [Int]
    /// The lists of the row being filled, outermost first; an entry is added to the last.
    private var open: [[ColumnValue]] = []
    /// The row's value when it is no list being filled.
    private var rowValue: ColumnValue?
    private var started = false

    init(path: [ParquetColumn.Repetition]) {
        self.path = path
        var level = 0
        presentAt = path.map { repetition in
            if repetition != .required { level += 1 }
            return level
        }
        repeatedElements = path.indices.filter { path[$0] == .repeated }
    }

    /// Adds the levels of a batch and its values (those at the highest definition level, in order); returns the
    /// rows it completes.
    mutating func add(repetition: [UInt32], definition: [UInt32],
                      values: [ColumnValue]) throws(ParquetFormatError) -> [ColumnValue] {
        guard repetition.count == definition.count else { throw ParquetFormatError("levels of different counts") }
        var rows: [ColumnValue] = []
        var nextValue = values.makeIterator()
        for index in repetition.indices {
            let (level, defined) = (Int(repetition[index]), Int(definition[index]))
            var position: Int
            if level == 0 {
                if started { rows.append(completeRow()) }
                (started, position) = (true, 0)
            } else {
                guard started, level <= open.count, level <= repeatedElements.count else {
                    throw ParquetFormatError("a repetition level of \(level) where \(open.count) lists are open")
                }
                while open.count > level { place(.array(open.removeLast())) }
                position = repeatedElements[level - 1]
            }
            try descend(from: position, continuing: level > 0, defined: defined) { () throws(ParquetFormatError) in
                guard let value = nextValue.next() else { throw ParquetFormatError("fewer values than levels say") }
                return value
            }
        }
        return rows
    }

    /// The row being filled, completed: at the end of the chunk's levels. None when there was none.
    mutating func finish() -> [ColumnValue] {
        guard started else { return [] }
        started = false
        return [completeRow()]
    }

    /// Goes down the path from `position` as far as `defined` says the entry is present, opening a list for each
    /// REPEATED element passed, and places what ends it: null, a list of no entry, or the value. With `continuing`,
    /// the element at `position` is the REPEATED one whose open list gets the entry.
    private mutating func descend(from position: Int, continuing: Bool, defined: Int,
                                  value: () throws(ParquetFormatError) -> ColumnValue) throws(ParquetFormatError) {
        var position = position
        var continuing = continuing
        while true {
            if continuing {
                continuing = false
            } else if path[position] == .optional, defined < presentAt[position] {
                return place(.null)
            } else if path[position] == .repeated {
                if defined < presentAt[position] { return place(.array([])) }
                open.append([])
            }
            if position == path.count - 1 { return place(try value()) }
            position += 1
        }
    }

    private mutating func place(_ value: ColumnValue) {
        if open.isEmpty { rowValue = value } else { open[open.count - 1].append(value) }
    }

    private mutating func completeRow() -> ColumnValue {
        while let list = open.popLast() { place(.array(list)) }
        defer { rowValue = nil }
        return rowValue ?? .null
    }
}

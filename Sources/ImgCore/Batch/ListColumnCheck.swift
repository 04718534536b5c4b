import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The up-front checks of a list with columns (`ListLayout.prepare`): a column an option names that no row has is a
/// usage error before anything is fetched.
enum ListColumnCheck {
    /// Refuses a CSV or TSV header that lacks one of `columns`, or names one of them twice.
    static func check(header: [String], columns: [(name: String, role: ListColumnRole)], list: String) throws(ImgError) {
        let names = header.map { $0.trimmingCharacters(in: .whitespaces) }
        for (column, role) in columns {
            let count = names.filter { $0 == column }.count
            if count > 1 { throw .usage("the header of list \(list) names column '\(column)' \(count) times") }
            guard count == 0 else { continue }
            let shown = names.prefix(12).map { "'\($0)'" }.joined(separator: ", ") + (names.count > 12 ? ", ..." : "")
            throw .missingColumn(MissingColumn(column: column, role: role, list: list, evidence: "; its header has \(shown)"))
        }
    }

    /// Reads a JSON Lines file's rows until each of `columns` has been a key of some object; one that none is, at
    /// the end, is a usage error. A row is decoded only when its text holds a missing column's name in quotes.
    static func checkJSONLines(_ lines: BatchListReader, path: String,
                               columns: [(name: String, role: ListColumnRole)]) throws(ImgError) {
        var missing = columns.map(\.name)
        let decoder = JSONDecoder()
        var sawRow = false
        while !missing.isEmpty, let physical = lines.nextPhysicalLine() {
            guard !physical.tooLong, missing.contains(where: { physical.text.contains("\"\($0)\"") }) else {
                sawRow = sawRow || !physical.text.trimmingCharacters(in: .whitespaces).isEmpty
                continue
            }
            sawRow = true
            guard let object = try? decoder.decode([String: ColumnValue].self, from: Data(physical.text.utf8)) else { continue }
            missing.removeAll { object[$0] != nil }
        }
        if let failure = lines.failure { throw failure }
        if let column = missing.first, sawRow, let role = columns.first(where: { $0.name == column })?.role {
            throw .missingColumn(MissingColumn(column: column, role: role, list: "'\(path)'", evidence: ": no row has it"))
        }
    }

    /// Reads the header record of a CSV or TSV list on standard input one byte at a time, so that the batch reads on
    /// from the byte after it: its names and the lines it took (blank lines before it included). An empty input has
    /// no names.
    static func readStandardInputHeader(delimiter: UInt8) throws(ImgError) -> (names: [String], lines: Int) {
        var parser = DelimitedRecordParser(delimiter: delimiter)
        var line: [UInt8] = [], lines = 0, atStart = true
        while true {
            var byte: UInt8 = 0
            let count = read(STDIN_FILENO, &byte, 1)
            if count < 0, errno == EINTR { continue }
            if count < 0 { throw .io("cannot read list '-' (standard input): \(String(cString: strerror(errno)))") }
            let atEnd = count == 0
            if !atEnd, byte != 0x0A {
                line.append(byte)
                guard line.count <= BatchListReader.maxLineBytes else {
                    throw .usage("the header of list '-' (standard input) is over \(BatchListReader.maxLineBytes) bytes")
                }
                continue
            }
            if atEnd, line.isEmpty, !parser.isInsideRecord { return ([], lines) }
            lines += 1
            if atStart, line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
            atStart = false
            let text = String(decoding: line, as: UTF8.self)
            line.removeAll()
            if !parser.isInsideRecord, text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                if atEnd { return ([], lines) }
                continue
            }
            switch parser.feed(text) {
            case .complete(let names, _): return (names, lines)
            case .malformed(let reason): throw .usage("line \(lines) of list '-' (the header): \(reason)")
            case .incomplete where atEnd || parser.bytes > BatchListReader.maxLineBytes:
                throw .usage("line \(lines) of list '-' (the header): a quoted field is not closed")
            case .incomplete: continue
            }
        }
    }
}

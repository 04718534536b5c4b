import Foundation

/// Where a batch's rows come from: `ListRowReader` for plain lines, CSV, TSV and JSON Lines, `ParquetListReader` for
/// a Parquet list.
protocol ListRowSource: AnyObject {
    /// The next row, or nil at the end of the lists.
    func nextRow() -> ListRow?
    /// Why the lists could not be read to their end; nil while all is well.
    var failure: ImgError? { get }
    /// The number of the last line (or row) read: a list's count of lines once it is read to its end.
    var linesRead: Int { get }
}

/// One row of a batch list: a plain line (`URL [NAME]`) or a CSV, TSV or JSON Lines row read by its columns.
public struct ListRow: Sendable {
    /// The line number its row starts on (1-based, counting every line, the header included).
    public var line: Int
    /// The URL as written (a plain line's first column); empty when the row has none.
    public var first: String
    /// The name column (a plain line's second column), if any.
    public var second: String?
    /// A plain line with more columns than `URL [NAME]`.
    public var extra = false
    /// A line over `BatchListReader.maxLineBytes`.
    public var tooLong = false
    /// The row as written (its lines joined by newlines, without surrounding blanks for a plain line).
    public var raw: String
    /// Why the row can't be run (malformed, no URL, a column an option names missing): its record fails, naming
    /// its line, and the batch goes on. Nil for a usable row.
    public var failure: ImgError?
    /// The kept columns (`ListLayout.keptColumns`; of a failed row, those it has); nil when none are kept or had.
    public var columns: [String: ColumnValue]?
    /// The caption column's text (`ListLayout.captionColumn`); nil without one or when the row has none.
    public var caption: String?
    /// The SHA-256 column's digest, lower-case (`ListLayout.sha256Column`); nil without one or when the row failed.
    public var sha256: String?
    /// The list it comes from and its line there, when the batch reads more than one input (then `line` counts on
    /// through them, `ListSequenceReader`); nil with one input, and for a word given on the command line.
    public var position: ListPosition?
}

/// One physical line of a list: its number, its text without its newline (U+FFFD for each sequence that is not
/// UTF-8), whether it was over `BatchListReader.maxLineBytes` (then `text` is its first 100 characters and `…`),
/// whether it is a word given on the command line, and its bytes when they are not all UTF-8 (nil when they are,
/// and for a word or a line over the limit).
typealias PhysicalLine = (line: Int, text: String, tooLong: Bool, isWord: Bool, bytes: [UInt8]?)

/// Reads list rows from a `BatchListReader`'s lines in the list's format. Words given on the command line are
/// always plain lines; a CSV or TSV list's first row is its header (blank lines before it and between rows are
/// skipped; `#` starts no comment there), and a JSON Lines list is one object a line.
final class ListRowReader: ListRowSource {
    private let lines: BatchListReader
    private let format: ListFormat
    private let layout: ListLayout
    private var parser: DelimitedRecordParser
    /// Header names and their positions (the first position of a name given twice).
    private var header: [String]?
    private var positions: [String: Int] = [:]
    /// Lines to read again: those after the first of a record whose quoted field never closed.
    private var replay: [PhysicalLine] = []
    private let decoder = JSONDecoder()

    /// `format` is the list's, resolved (`ListFormat.resolved(for:)`).
    init(_ lines: BatchListReader, format: ListFormat, layout: ListLayout) {
        (self.lines, self.format, self.layout) = (lines, format, layout)
        parser = DelimitedRecordParser(delimiter: format == .tsv ? 0x09 : 0x2C)
        if let given = layout.standardInputHeader {
            lines.standardInputLinesTaken = given.lines
            take(header: given.names)
        }
    }

    /// A reader of `inputs`, in the format `layout` decides for the list among them (the one that is not words).
    convenience init(_ inputs: [BatchInput], layout: ListLayout) {
        self.init(BatchListReader(inputs), format: layout.listFormat(of: inputs), layout: layout)
    }

    /// Why the lists could not be read to their end; see `BatchListReader.failure`.
    var failure: ImgError? { lines.failure }

    var linesRead: Int { lines.lineNumber }

    /// The header of the CSV or TSV list at `list`, read now (nil for an empty list); a header that is not CSV is a
    /// usage error.
    func readHeader(list: String) throws(ImgError) -> [String]? {
        while header == nil {
            guard let row = nextRow() else { return header }
            if header == nil, let failure = row.failure {
                throw .usage("list '\(list)', line \(row.line) (the header): \(failure.message)")
            }
        }
        return header
    }

    /// The next row, or nil at the end of the lists.
    func nextRow() -> ListRow? {
        while let physical = nextPhysicalLine() {
            if physical.isWord || !format.hasColumns {
                if let row = Self.plainRow(physical) { return row }
            } else if format == .jsonl {
                if let row = jsonRow(physical) { return row }
            } else if let row = delimitedRow(startingWith: physical) {
                return row
            }
        }
        return nil
    }

    private func nextPhysicalLine() -> PhysicalLine? {
        replay.isEmpty ? lines.nextPhysicalLine() : replay.removeFirst()
    }

    /// A plain line as `URL [NAME]`, columns separated by blanks; nil for a blank or comment line. A word given on
    /// the command line is one URL as given (blanks and a leading `#` included). A first column whose bytes are not
    /// all UTF-8 is taken with those bytes escaped (`ListURLBytes`), or fails the line when it is no http(s) URL.
    static func plainRow(_ physical: PhysicalLine) -> ListRow? {
        if physical.isWord { return ListRow(line: physical.line, first: physical.text, raw: physical.text) }
        if physical.tooLong { return ListRow(line: physical.line, first: physical.text, tooLong: true, raw: physical.text) }
        let trimmed = ASCIIBytes.trimmed(physical.text[...])
        if trimmed.isEmpty || trimmed.hasPrefix("#") { return nil }
        let columns = plainColumns(trimmed)
        var first = columns[0]
        // The line escaped splits as its text does (an escape replaces a U+FFFD: neither is a blank), and its first
        // column differs from the text's when that column has bytes that are not UTF-8.
        if let bytes = physical.bytes, let escaped = plainColumns(ListURLBytes.escaping(bytes)).first, escaped != first {
            guard ListURLBytes.isHTTP(escaped) else {
                return ListRow(line: physical.line, first: "", raw: trimmed, failure: ListURLBytes.notUTF8)
            }
            first = escaped
        }
        return ListRow(line: physical.line, first: first, second: columns.count > 1 ? columns[1] : nil,
                       extra: columns.count > 2, raw: trimmed)
    }

    /// A plain line's columns: its text without surrounding blanks, split at spaces and tabs.
    private static func plainColumns(_ line: String) -> [String] {
        ASCIIBytes.trimmed(line[...]).split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
    }

    private func failed(_ line: Int, _ raw: String, _ reason: String, tooLong: Bool = false) -> ListRow {
        failed(line, raw, .usage(reason), tooLong: tooLong)
    }

    private func failed(_ line: Int, _ raw: String, _ failure: ImgError, tooLong: Bool = false) -> ListRow {
        ListRow(line: line, first: "", tooLong: tooLong, raw: raw, failure: failure)
    }

    // MARK: CSV and TSV

    /// A record's physical lines as written, joined by newlines (a CR before each kept), without the last line's CR.
    static func asWritten(_ lines: [String]) -> String {
        let text = lines.joined(separator: "\n")
        return text.hasSuffix("\r") ? String(text.dropLast()) : text
    }

    /// The record starting with `first` and the lines it takes; nil when that was the header or a blank line.
    private func delimitedRow(startingWith first: PhysicalLine) -> ListRow? {
        if ASCIIBytes.isBlank(first.text) || first.text == "\r" { return nil }
        if first.tooLong { return failed(first.line, first.text, "over \(BatchListReader.maxLineBytes) bytes", tooLong: true) }
        parser.reset()
        var taken = [first]
        var next: PhysicalLine? = first
        while let physical = next {
            switch parser.feed(physical.text, bytes: physical.bytes) {
            case .complete(let fields, let notUTF8):
                return row(fields, notUTF8: notUTF8, line: first.line, raw: Self.asWritten(taken.map(\.text)))
            case .malformed(let reason):
                return failed(first.line, Self.asWritten(taken.map(\.text)), reason)
            case .incomplete:
                next = parser.bytes > BatchListReader.maxLineBytes ? nil : nextPhysicalLine()
                if let line = next {
                    if line.tooLong || line.isWord { next = nil; replay.insert(line, at: 0) } else { taken.append(line) }
                }
            }
        }
        // A quoted field that never closed: the lines after the record's first are read again as rows of their own.
        parser.reset()
        replay.insert(contentsOf: taken.dropFirst(), at: 0)
        return failed(first.line, Self.asWritten([first.text]), "a quoted field is not closed (within \(BatchListReader.maxLineBytes) bytes)")
    }

    private func take(header names: [String]) {
        let names = names.map { $0.trimmingCharacters(in: .whitespaces) }
        header = names
        for (position, name) in names.enumerated() where positions[name] == nil { positions[name] = position }
    }

    /// A record's row, or nil for the header (the first record); `notUTF8`: the bytes of the fields that are not all
    /// UTF-8, by position (their values are `ColumnValue.notUTF8`).
    private func row(_ fields: [String], notUTF8: [Int: [UInt8]], line: Int, raw: String) -> ListRow? {
        guard let header else {
            take(header: fields)
            return nil
        }
        guard fields.count <= header.count else {
            return failed(line, raw, "\(fields.count) fields where the header has \(header.count)")
        }
        let value: (String) -> ColumnValue? = { [positions] name in
            positions[name].flatMap { $0 < fields.count ? notUTF8[$0].map(ColumnValue.notUTF8) ?? .string(fields[$0]) : nil }
        }
        return layout.row(from: value, line: line, raw: raw)
    }

    // MARK: JSON Lines

    private func jsonRow(_ physical: PhysicalLine) -> ListRow? {
        if physical.tooLong { return failed(physical.line, physical.text, "over \(BatchListReader.maxLineBytes) bytes", tooLong: true) }
        let trimmed = ASCIIBytes.trimmed(physical.text[...])
        if trimmed.isEmpty { return nil }
        // JSON text is UTF-8 (RFC 8259): a line that is not is no JSON, whatever column holds the bytes.
        if physical.bytes != nil { return failed(physical.line, trimmed, "cannot be read as JSON: it is not UTF-8") }
        guard var object = try? decoder.decode([String: ColumnValue].self, from: Data(trimmed.utf8)) else {
            return failed(physical.line, trimmed, Self.whyNotAnObject(trimmed))
        }
        // A key given twice takes its last value, as Python's json and jq read it (the decoder keeps the first).
        for (key, value) in JSONObjectMembers.lastValuesOfRepeatedKeys(in: trimmed, distinctKeys: object.count) {
            object[key] = try? decoder.decode(ColumnValue.self, from: Data(value))
        }
        return layout.row(from: { object[$0] }, line: physical.line, raw: trimmed)
    }

    /// Why a JSON Lines row is not an object the list reads: what JSON it is instead, or why it is no JSON.
    static func whyNotAnObject(_ text: String) -> String {
        do {
            let value = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
            let kind = value is [Any] ? "an array" : value is String ? "a string" : value is NSNull ? "null"
                : value is [String: Any] ? "an object with a value it can't hold" : "a number or boolean"
            return "not a JSON object: \(kind)"
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
            let reason = detail.map { $0.replacingOccurrences(of: " in Swift", with: "") } ?? "it does not parse"
            return "cannot be read as JSON: \(reason.hasSuffix(".") ? String(reason.dropLast()) : reason)"
        }
    }
}

extension ListLayout {
    /// The row from its columns' values (`value` gives nil for a column the row lacks): a failed row naming the
    /// first column missing or unusable, with the kept columns and the caption it has (its records and its table
    /// row keep them).
    func row(from value: (String) -> ColumnValue?, line: Int, raw: String) -> ListRow {
        func failed(_ failure: ImgError) -> ListRow {
            var row = ListRow(line: line, first: "", raw: raw, failure: failure)
            let kept = keptColumns.compactMap { name in value(name).map { (name, $0) } }
            if !kept.isEmpty { row.columns = Dictionary(kept) { first, _ in first } }
            row.caption = captionColumn.flatMap(value)?.captionText
            return row
        }
        func missing(_ column: String, _ role: ListColumnRole) -> ImgError { .missingColumn(MissingColumn(column: column, role: role)) }
        let urlColumn = self.urlColumn
        guard let urlValue = value(urlColumn) else { return failed(missing(urlColumn, .url)) }
        let url: String
        switch urlValue {
        case .string(let text): url = ASCIIBytes.trimmed(text[...])
        case .notUTF8(let bytes):
            do throws(ImgError) { url = try ListURLBytes.url(bytes) } catch { return failed(error) }
        default:
            return failed(.usage(urlValue == .null ? "no URL in column '\(urlColumn)' (null)" : "column '\(urlColumn)' is not a string"))
        }
        guard !url.isEmpty else { return failed(.usage("no URL in column '\(urlColumn)'")) }
        var row = ListRow(line: line, first: url, raw: raw)
        if let nameColumn = nameColumn {
            guard let name = value(nameColumn) else { return failed(missing(nameColumn, .name)) }
            row.second = name.text.flatMap { $0.isEmpty ? nil : $0 }
        }
        if let captionColumn = captionColumn {
            guard let caption = value(captionColumn) else { return failed(missing(captionColumn, .caption)) }
            row.caption = caption.captionText
        }
        if let sha256Column {
            guard let digest = value(sha256Column) else { return failed(missing(sha256Column, .sha256)) }
            let hex = (digest.text ?? "").trimmingCharacters(in: .whitespaces).lowercased()
            guard hex.utf8.count == 64, hex.utf8.allSatisfy(ASCIIBytes.isHexDigit) else {
                return failed(.usage("column '\(sha256Column)' holds no SHA-256 (64 hexadecimal digits)"))
            }
            row.sha256 = hex
        }
        guard !keptColumns.isEmpty else { return row }
        var columns = [String: ColumnValue](minimumCapacity: keptColumns.count)
        for name in keptColumns {
            guard let kept = value(name) else { return failed(missing(name, .kept)) }
            columns[name] = kept
        }
        row.columns = columns
        return row
    }
}

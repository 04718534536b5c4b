import Foundation

/// How a batch list is written: plain lines (`URL [NAME]`), CSV or TSV with a header row, JSON Lines, or Parquet.
public enum ListFormat: String, Sendable, CaseIterable {
    /// Decided from the list's extension (`.csv`, `.tsv`, `.jsonl`/`.ndjson`, `.parquet`, else lines; `-` is lines).
    case auto
    case lines, csv, tsv, jsonl, parquet

    /// The format of `input` under this setting: `auto` decided from a file's extension (case-insensitive), lines
    /// for standard input and words given on the command line.
    public func resolved(for input: BatchInput) -> ListFormat {
        guard self == .auto else { if case .words = input { return .lines } else { return self } }
        guard case .file(let path) = input else { return .lines }
        switch (path as NSString).pathExtension.lowercased() {
        case "csv": return .csv
        case "tsv": return .tsv
        case "jsonl", "ndjson": return .jsonl
        case "parquet": return .parquet
        default: return .lines
        }
    }

    /// CSV, TSV, JSON Lines or Parquet: rows with named columns.
    public var hasColumns: Bool { self != .lines && self != .auto }
}

/// The columns a list with columns is read by, and its format once decided: what `ListRowReader` needs.
public struct ListLayout: Sendable {
    /// The setting (`--input-format`); default `auto`.
    public var format: ListFormat = .auto
    /// The column holding each row's URL (`--url-column`); default `url`.
    public var urlColumn = "url"
    /// The column naming each row's outputs, as a plain list's second column does (`--name-column`); default none.
    public var nameColumn: String?
    /// The columns copied into each row's record (`--keep-columns`), in the order given; default none.
    public var keptColumns: [String] = []
    /// The column written as each WebDataset sample's caption (`--caption-column`); default none.
    public var captionColumn: String?
    /// The column holding each row's SHA-256 of its original (`--sha256-column`); default none.
    public var sha256Column: String?
    /// A CSV or TSV header already read from standard input by `prepare`, and the lines it took: the reader goes on
    /// after it. Nil for a file (its reader reads the header itself).
    var standardInputHeader: (names: [String], lines: Int)?

    public init() {}

    /// Every column the layout names, each once with its role (the first that names it): the URL column, the name
    /// column, the kept ones.
    public var namedColumns: [(name: String, role: ListColumnRole)] {
        var seen = Set<String>()
        let named = [(urlColumn, ListColumnRole.url)] + (nameColumn.map { [($0, .name)] } ?? [])
            + keptColumns.map { ($0, .kept) } + (captionColumn.map { [($0, .caption)] } ?? [])
            + (sha256Column.map { [($0, .sha256)] } ?? [])
        return named.filter { seen.insert($0.0).inserted }
    }

    /// Checks, before anything is fetched, that the list with columns among `inputs` has every column an option names
    /// (a usage error naming the missing one otherwise): a Parquet file by its schema (and every row group's columns
    /// in codecs and encodings it reads), a CSV or TSV by its header (read here from standard input,
    /// which the batch then reads on from), a JSON Lines file by its rows, read until each column has been seen in
    /// one (JSON Lines on standard input is checked row by row only). Plain lists are not read.
    public mutating func prepare(_ inputs: [BatchInput]) throws(ImgError) {
        try checkOneFormat(inputs)
        for input in inputs {
            let format = format.resolved(for: input)
            guard format.hasColumns else { continue }
            switch (format, input) {
            case (.parquet, .file(let path)):
                try ParquetRows.check(try ParquetFile(path: path), columns: namedColumns, list: "'\(path)'")
            case (.parquet, _):
                throw .usage("a Parquet list can't be read from standard input: name its file")
            case (.jsonl, .file(let path)):
                try ListColumnCheck.checkJSONLines(BatchListReader([input]), path: path, columns: namedColumns)
            case (.jsonl, _):
                continue
            case (_, .standardInput):
                let header = try ListColumnCheck.readStandardInputHeader(delimiter: format == .tsv ? 0x09 : 0x2C)
                if !header.names.isEmpty { try ListColumnCheck.check(header: header.names, columns: namedColumns, list: "'-' (standard input)") }
                standardInputHeader = header
            case (_, .file(let path)):
                let reader = ListRowReader(BatchListReader([input]), format: format, layout: self)
                guard let header = try reader.readHeader(list: path) else { continue }  // an empty list: no rows to run
                try ListColumnCheck.check(header: header, columns: namedColumns, list: "'\(path)'")
            default:
                continue
            }
        }
    }

    /// The reader of the rows of `inputs`: several inputs (batch's lists; prefetch's words and `--from` list) read as
    /// one, numbered on through them (`ListSequenceReader`); Parquet's for a Parquet list; else the reader of lines.
    func rowSource(for inputs: [BatchInput]) -> any ListRowSource {
        if inputs.count > 1 { return ListSequenceReader(inputs: inputs, layout: self) }
        if case .file(let path)? = inputs.first, format.resolved(for: .file(path)) == .parquet {
            return ParquetListReader(path: path, layout: self)
        }
        return ListRowReader(inputs, layout: self)
    }

    /// Several lists must be of one format (a usage error naming two that differ).
    func checkOneFormat(_ inputs: [BatchInput]) throws(ImgError) {
        let lists = Self.files(of: inputs)
        guard let first = lists.first else { return }
        let expected = format.resolved(for: .file(first))
        for path in lists.dropFirst() where format.resolved(for: .file(path)) != expected {
            let other = format.resolved(for: .file(path))
            throw .usage("lists of different formats: '\(first)' is \(expected.rawValue), '\(path)' is \(other.rawValue)")
        }
    }

    /// The paths of the files among `inputs`, in order.
    public static func files(of inputs: [BatchInput]) -> [String] {
        inputs.compactMap { if case .file(let path) = $0 { path } else { nil } }
    }

    /// The format of the list among `inputs` (the one that is not words); lines when there is none.
    func listFormat(of inputs: [BatchInput]) -> ListFormat {
        let list = inputs.first { if case .words = $0 { false } else { true } }
        return list.map { format.resolved(for: $0) } ?? .lines
    }
}

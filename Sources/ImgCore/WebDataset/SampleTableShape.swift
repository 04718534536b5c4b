import Foundation

/// The columns of a batch's Parquet tables (`WebDatasetLayout.writesParquet`), the same in every row and every table
/// of a batch whatever a row holds: `key`, `url`, `caption` (with a caption column, unless a kept column has that
/// name), the kept columns by name, `status`, `reason`, `error_message`, the image's `width`, `height`,
/// `original_width`, `original_height`, `bytes`, `sha256`, `format` and, with facts, `blurhash`, `thumbhash`,
/// `dominant_color` and `phash`. A table has a row for every line retired while its tar was written, as img2dataset
/// writes one: a sample (`ok`) or a line that gave none (`failed`, `filtered`, `opted_out`, `robots_disallowed`,
/// `duplicate`), so that a table counts what its stats count.
public struct SampleTableShape: Sendable, Equatable {
    /// Whether each row has the line's caption as `caption`.
    public var caption: Bool
    /// The kept columns in the table, by name (those a sample's JSON doesn't name itself).
    public var keptColumns: [String]
    /// Whether each row has the facts.
    public var facts: Bool

    /// The shape for a list's kept columns (`--keep-columns`), its caption column and facts.
    public init(keptColumns: [String], captionColumn: String?, facts: Bool) {
        self.keptColumns = Set(keptColumns).subtracting(WebDatasetLayout.sampleFields).sorted()
        caption = captionColumn != nil && !self.keptColumns.contains("caption")
        self.facts = facts
    }

    /// The table's fields besides the kept columns: a kept column of one of these names is refused with a table.
    public static let ownFields: Set<String> = WebDatasetLayout.sampleFields.union(["status", "reason", "error_message"])

    /// The row of a sample: `status` is `ok`.
    func row(of sample: WebDatasetSample, caption: String?) -> [(name: String, value: ParquetRowGroup.Value)] {
        let image = sample.image
        let facts = image.facts
        return lineCells(key: sample.key, url: sample.url, caption: caption, columns: sample.columns)
            + [("status", .string("ok")), ("reason", .string(nil)), ("error_message", .string(nil))]
            + imageCells(width: image.width, height: image.height, original: image.sourceSize.map { ($0.width, $0.height) },
                         bytes: image.bytes.count, sha256: sample.sha256, format: image.format?.rawValue)
            + factCells([facts?.blurhash, facts?.thumbhash, facts?.dominantColor, facts?.phash])
    }

    /// The row of a line that gave no sample, as its manifest `record` says it (`status` the tar's stats' name).
    func row(of record: ManifestRecord, key: String, status: String, caption: String?,
             reason: String?) -> [(name: String, value: ParquetRowGroup.Value)] {
        lineCells(key: key, url: record.url, caption: caption, columns: record.columns ?? [:])
            + [("status", .string(status)), ("reason", .string(reason ?? record.reason)),
               ("error_message", .string(record.error?.message))]
            + imageCells(width: nil, height: nil, original: record.original.map { ($0.width, $0.height) }, bytes: nil,
                         sha256: nil, format: nil)
            + factCells([nil, nil, nil, nil])
    }

    private func lineCells(key: String, url: String?, caption: String?,
                           columns: [String: ColumnValue]) -> [(name: String, value: ParquetRowGroup.Value)] {
        var cells: [(name: String, value: ParquetRowGroup.Value)] = [("key", .string(key)), ("url", .string(url))]
        if self.caption { cells.append(("caption", .string(caption))) }
        for name in keptColumns {
            let value = columns[name]
            cells.append((name, .string(value == nil || value == .null ? nil : value?.captionText)))
        }
        return cells
    }

    private func imageCells(width: Int?, height: Int?, original: (Int, Int)?, bytes: Int?, sha256: String?,
                            format: String?) -> [(name: String, value: ParquetRowGroup.Value)] {
        let integers: [(String, Int?)] = [("width", width), ("height", height), ("original_width", original?.0),
                                          ("original_height", original?.1), ("bytes", bytes)]
        return integers.map { ($0.0, .integer($0.1.map(Int64.init))) }
            + [("sha256", .string(sha256)), ("format", .string(format))]
    }

    private func factCells(_ values: [String?]) -> [(name: String, value: ParquetRowGroup.Value)] {
        guard facts else { return [] }
        return zip(["blurhash", "thumbhash", "dominant_color", "phash"], values).map { ($0.0, .string($0.1)) }
    }
}

import ImgCore

/// `--input-format`, `--url-column`, `--name-column`, `--keep-columns`, `--caption-column` and `--sha256-column`: how a
/// batch's list is read.
enum ListSettings {
    /// The layout the options give; the column options with a plain list are a usage error.
    static func layout(_ arguments: ScannedArguments, inputs: [BatchInput]) throws(ImgError) -> ListLayout {
        var layout = ListLayout()
        if let format = try arguments[Options.inputFormat] { layout.format = format }
        for option in [Options.urlColumn, Options.nameColumn, Options.captionColumn, Options.sha256Column] {
            if let name = try arguments[option], name.trimmingCharacters(in: .whitespaces).isEmpty {
                throw .usage("bad --\(option.long) '\(name)': expected a column's name")
            }
        }
        if let name = try arguments[Options.urlColumn] { layout.urlColumn = name }
        layout.nameColumn = try arguments[Options.nameColumn]
        layout.captionColumn = try arguments[Options.captionColumn]
        layout.sha256Column = try arguments[Options.sha256Column]
        for text in try Options.keepColumns.values(in: arguments) {
            let names = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard !names.contains(where: { $0.trimmingCharacters(in: .whitespaces).isEmpty }) else {
                throw .usage("bad --keep-columns '\(text)': expected column names separated by commas")
            }
            for name in names where !layout.keptColumns.contains(name) { layout.keptColumns.append(name) }
        }
        let hasColumns = inputs.contains { layout.format.resolved(for: $0).hasColumns }
        let columnOptions = [Options.urlColumn, Options.nameColumn, Options.keepColumns, Options.captionColumn,
                             Options.sha256Column]
        if !hasColumns, let given = columnOptions.first(where: arguments.has) {
            throw .usage("--\(given.long) needs a list with columns (--input-format csv, tsv, jsonl or parquet, or a .csv, "
                         + ".tsv, .jsonl or .parquet list); this one is read as plain lines")
        }
        return layout
    }
}

/// `--min-size WxH` and `--max-aspect-ratio R`.
enum FilterSettings {
    static func sizeFilter(_ arguments: ScannedArguments) throws(ImgError) -> SizeFilter {
        var filter = SizeFilter()
        if let minimum = try arguments[Options.minSize] {
            (filter.minimumWidth, filter.minimumHeight) = (minimum.width, minimum.height)
        }
        filter.maximumAspectRatio = try arguments[Options.maxAspectRatio]
        return filter
    }
}

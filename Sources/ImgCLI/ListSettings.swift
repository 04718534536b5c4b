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
        if let text = try arguments[Options.minSize] {
            let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width >= 0, height >= 0,
                  width <= 1_000_000, height <= 1_000_000 else {
                throw .usage("bad --min-size '\(text)': expected WxH in pixels, e.g. 64x64")
            }
            (filter.minimumWidth, filter.minimumHeight) = (width, height)
        }
        if let text = try arguments[Options.maxAspectRatio] {
            guard let ratio = DecimalNumber.parse(text), ratio.isFinite, ratio >= 1 else {
                throw .usage("bad --max-aspect-ratio '\(text)': expected a number of at least 1, e.g. 3")
            }
            filter.maximumAspectRatio = ratio
        }
        return filter
    }
}

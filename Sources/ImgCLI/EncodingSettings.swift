import Foundation
import ImgCore

extension FetchSettings {
    /// The encoding options: `--format FORMAT|auto[:LIST]`, else the format `-o FILE`'s extension names;
    /// `--quality N|auto[:DISTANCE]`, `--lossless`, `--background`, `--keep-metadata`. Combinations that can't mean
    /// anything are usage errors naming the options.
    static func encoding(from arguments: ScannedArguments, outputFile: String?) throws(ImgError) -> OutputEncoding {
        var encoding = OutputEncoding()
        let named = outputFile.flatMap { $0 == "-" ? nil : ($0 as NSString).pathExtension }.flatMap { $0.isEmpty ? nil : $0 }
        if let value = try arguments[Options.format] {
            if let candidates = try candidateFormats(value) {
                // The name is written before the format is chosen: it can't promise one.
                if let file = outputFile, let named {
                    throw .usage("-o \(file) names .\(named) but --format auto chooses the format: "
                                 + "give -o without an extension, or -O DIR (names get the chosen format's extension)")
                }
                encoding.candidateFormats = candidates
            } else {
                guard let format = ImageFormat(name: value), ImageFormat.writable.contains(format) else {
                    throw .usage("unknown --format '\(value)' (jpeg, png, webp, avif, heic, gif, tiff, jxl, auto)")
                }
                // An extension that names another format would put one format's bytes under another's name.
                if let file = outputFile, let named, let other = ImageFormat(name: named), other != format {
                    throw .usage("-o \(file) names \(other.fileExtension.uppercased()) but --format is \(value): "
                                 + "give a matching extension or leave one of them out")
                }
                encoding.format = format
            }
        } else if let file = outputFile, let named {
            guard let format = ImageFormat(name: named), ImageFormat.writable.contains(format) else {
                throw .usage("cannot tell the format from '-o \(file)'; use --format")
            }
            encoding.format = format
        }
        if let value = try arguments[Options.quality] {
            if let distance = try targetDistance(value) {
                encoding.targetDistance = distance
            } else {
                encoding.quality = try ValueParser<Int>.integer(1...100).parse(value, "--" + Options.quality.long)
            }
        }
        encoding.lossless = arguments[Options.lossless]
        try checkSearch(encoding)
        try checkNamedFormat(encoding)
        if encoding.candidateFormats != nil, encoding.targetDistance == nil { encoding.targetDistance = EncodingChoice.defaultDistance }
        if let value = try arguments[Options.background] {
            guard let color = Color(parsing: value) else { throw .usage("bad --background colour '\(value)'") }
            encoding.background = color
        }
        encoding.keepMetadata = arguments[Options.keepMetadata]
        return encoding
    }

    /// `auto` or `auto:LIST` (formats with a quality, separated by commas) as the candidates in their one order;
    /// nil for any other `--format` value.
    static func candidateFormats(_ value: String) throws(ImgError) -> [ImageFormat]? {
        guard value.lowercased() == "auto" || value.lowercased().hasPrefix("auto:") else { return nil }
        guard let colon = value.firstIndex(of: ":") else { return EncodingChoice.defaultCandidates }
        let names = value[value.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        var formats: [ImageFormat] = []
        for name in names {
            guard let format = ImageFormat(name: name), EncodingChoice.searchable.contains(format) else {
                let searchable = EncodingChoice.searchable.map(\.rawValue).joined(separator: ", ")
                throw .usage("bad --format '\(value)': '\(name)' is not one of the formats auto chooses from (\(searchable))")
            }
            formats.append(format)
        }
        return EncodingChoice.candidateOrder(formats)
    }

    /// `auto` (the default distance) or `auto:DISTANCE` as the target distance; nil for any other `--quality` value.
    static func targetDistance(_ value: String) throws(ImgError) -> Double? {
        guard value.lowercased() == "auto" || value.lowercased().hasPrefix("auto:") else { return nil }
        guard let colon = value.firstIndex(of: ":") else { return EncodingChoice.defaultDistance }
        let range = EncodingChoice.distanceRange
        guard let distance = DecimalNumber.parse(value[value.index(after: colon)...]), distance.isFinite, range.contains(distance) else {
            throw .usage("bad --quality '\(value)': expected auto:DISTANCE with a Butteraugli distance from "
                         + "\(EncodingChoice.spelling(range.lowerBound)) to \(EncodingChoice.spelling(range.upperBound)), such as auto:1.8")
        }
        return distance
    }

    /// Refuses a setting that the format named (`--format`, `-o`'s extension) has no use for: a quality in PNG,
    /// lossless in JPEG, a quality with lossless WebP. With the source's format, known only once fetched, `-v` notes
    /// it instead (`IgnoredSetting`).
    static func checkNamedFormat(_ encoding: OutputEncoding) throws(ImgError) {
        guard let format = encoding.format, let ignored = encoding.ignoredSettings(for: format).first else { return }
        throw .usage(ignored.refusalMessage)
    }

    /// Refuses what a search can't do: a fixed quality or `--lossless` with `--format auto`, `--lossless` with
    /// `--quality auto`, and `--quality auto` for a format named that has no quality.
    static func checkSearch(_ encoding: OutputEncoding) throws(ImgError) {
        if encoding.candidateFormats != nil {
            if let quality = encoding.quality {
                throw .usage("--format auto chooses each format's quality by its distance, so --quality \(quality) can't apply: "
                             + "give --quality auto[:DISTANCE] or leave --quality out")
            }
            if encoding.lossless { throw .usage("--format auto chooses among lossy encodings: --lossless can't apply") }
        }
        guard encoding.targetDistance != nil else { return }
        if encoding.lossless { throw .usage("--quality auto searches a lossy quality: --lossless can't apply") }
        if let format = encoding.format, !EncodingChoice.searchable.contains(format) {
            throw .usage("--quality auto searches a quality, and \(format.rawValue) has none "
                         + "(it applies to \(EncodingChoice.searchable.map(\.rawValue).joined(separator: ", ")))")
        }
    }
}

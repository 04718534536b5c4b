import ImgCore

extension SettingProblem {
    /// The usage error as the command line words it, naming `-o`, `-O`, `--format` or `--deny-local`.
    var commandLineMessage: String {
        switch self {
        case .localInputDenied:
            "refusing local input (--deny-local)"
        case .nameFormatDiffers(let name, let named, let asked):
            "the name '\(name)' says \(named.rawValue) but --format says \(asked.rawValue)"
        case .nameFormatWhileChosen(let name, let named):
            "the name '\(name)' says \(named.rawValue) but --format auto chooses the format: "
                + "give the name without an extension"
        case .outputFileUnnamed:
            "-o needs a file name"
        case .outputFileIsDirectory(let path):
            "-o \(path) is a directory; use -O DIR to write into it"
        case .outputFileNamesDirectory(let path):
            "-o \(path) names a directory; use -O DIR to write into it"
        case .outputDirectoryUnnamed:
            "-O needs a directory name"
        }
    }
}

extension IgnoredSetting {
    /// The `-v` note as the command line words it: `png has no quality setting: --quality ignored`.
    var commandLineMessage: String {
        switch setting {
        case .quality(let auto): "\(format.rawValue) has no quality setting: --quality\(auto ? " auto" : "") ignored"
        case .qualityWhenLossless: "lossless \(format.rawValue) has no quality setting: --quality ignored"
        case .lossless: "\(format.rawValue) has no lossless mode: --lossless ignored"
        }
    }

    /// The refusal when the format is named: `--lossless doesn't apply to jpeg: it has no lossless mode ...`.
    var refusalMessage: String {
        switch setting {
        case .quality(let auto): "--quality\(auto ? " auto" : "") doesn't apply to \(format.rawValue): it has no quality setting"
        case .qualityWhenLossless: "--quality and --lossless contradict each other: lossless \(format.rawValue) has no quality setting"
        case .lossless: "--lossless doesn't apply to \(format.rawValue): it has no lossless mode (webp and jxl have one; png and tiff are lossless)"
        }
    }
}

extension QueryCollision {
    /// The warning as the command line words it: ImgCore's, with `--keep-query` as the way out.
    var commandLineMessage: String {
        "\(message); give --keep-query (or --keep-query=NAME,NAME) if the query chooses the image"
    }
}

/// A request that what the caller set rules out: the structured cause of `ImgError.setting` (exit 2, like `.usage`).
/// Library wording names the setting by what it does; the CLI front names the option that set it.
public enum SettingProblem: Sendable, Equatable {
    /// A local path or `file://` input where only remote inputs are allowed (`BatchOptions.denyLocal`).
    case localInputDenied
    /// A list line's name (`name`) has the extension of `named`, but the output format set is `asked`.
    case nameFormatDiffers(name: String, named: ImageFormat, asked: ImageFormat)
    /// A list line's name (`name`) has the extension of `named`, but the output format is chosen per image.
    case nameFormatWhileChosen(name: String, named: ImageFormat)
    /// The output file's path is empty.
    case outputFileUnnamed
    /// The output file's path (`path`) is a directory.
    case outputFileIsDirectory(path: String)
    /// The output file's path (`path`) ends with `/`, naming a directory that does not exist.
    case outputFileNamesDirectory(path: String)
    /// The output directory's path is empty.
    case outputDirectoryUnnamed

    /// The one-line message in the library's words.
    public var message: String {
        switch self {
        case .localInputDenied:
            "refusing local input (remote inputs only)"
        case .nameFormatDiffers(let name, let named, let asked):
            "the name '\(name)' says \(named.rawValue) but the output format is \(asked.rawValue)"
        case .nameFormatWhileChosen(let name, let named):
            "the name '\(name)' says \(named.rawValue) but the format is chosen per image: "
                + "give the name without an extension"
        case .outputFileUnnamed:
            "the output file needs a name"
        case .outputFileIsDirectory(let path):
            "\(path) is a directory, not a file to write"
        case .outputFileNamesDirectory(let path):
            "\(path) names a directory, not a file to write"
        case .outputDirectoryUnnamed:
            "the output directory needs a name"
        }
    }
}

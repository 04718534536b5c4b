/// What a list's column is for; each is named by an option of the command line, which words it.
public enum ListColumnRole: Sendable, Equatable {
    /// The column holding each row's URL.
    case url
    /// The column naming each row's outputs.
    case name
    /// A column copied into each row's records.
    case kept
    /// The column written as each WebDataset sample's caption (`KEY.txt`).
    case caption
    /// The column holding each row's SHA-256 of its original, checked before anything is made of it.
    case sha256

    /// ImgCore's words for it: `the URL column`.
    public var words: String {
        switch self {
        case .url: "the URL column"
        case .name: "the name column"
        case .kept: "a kept column"
        case .caption: "the caption column"
        case .sha256: "the SHA-256 column"
        }
    }
}

/// A column the list's layout names that a row, or a whole list, lacks (`ImgError.missingColumn`, exit 2).
public struct MissingColumn: Sendable, Equatable {
    public var column: String
    public var role: ListColumnRole
    /// For a whole list: the list as messages name it (`'urls.csv'`); nil for one row.
    public var list: String?
    /// For a whole list: what shows the column is missing (`; its header has 'a', 'b'`, `: no row has it`).
    public var evidence: String

    public init(column: String, role: ListColumnRole, list: String? = nil, evidence: String = "") {
        (self.column, self.role, self.list, self.evidence) = (column, role, list, evidence)
    }

    /// The one-line message, the role worded as `roleWords` says (ImgCore's own words by default).
    public func message(roleWords: String? = nil) -> String {
        let words = roleWords ?? role.words
        guard let list else { return "no column '\(column)' (\(words))" }
        return "list \(list) has no column '\(column)' (\(words))\(evidence)"
    }
}

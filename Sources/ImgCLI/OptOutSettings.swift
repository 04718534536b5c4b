import Foundation
import ImgCore

/// `--disallow-robots-tags`: which opt-out signals a batch honours.
enum OptOutSettings {
    /// The `X-Robots-Tag` directives refused without `--disallow-robots-tags`: none for files, img2dataset's
    /// default for a WebDataset (`--output-format webdataset`), whose samples are made to train on.
    static func defaultRobotsTags(webDataset: Bool) -> [String] {
        webDataset ? ["noai", "noimageai", "noindex", "noimageindex"] : []
    }

    /// The rule of `--disallow-robots-tags LIST|none` for the crawler named by `userAgent`; nil when no directive
    /// is refused. `webDataset`: the output is a WebDataset (its default applies).
    static func robotsTagRule(_ arguments: ScannedArguments, userAgent: String,
                              webDataset: Bool) throws(ImgError) -> RobotsTagRule? {
        var directives = defaultRobotsTags(webDataset: webDataset)
        if let text = try arguments[Options.disallowRobotsTags] {
            directives = try parseDirectives(text)
        }
        return directives.isEmpty ? nil : RobotsTagRule(directives: directives, userAgent: userAgent)
    }

    /// `noai,noimageai` (directive names: letters, digits, `-` and `_`, separated by commas), or `none` for none.
    static func parseDirectives(_ text: String) throws(ImgError) -> [String] {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed == "none" { return [] }
        let names = trimmed.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        let valid = names.allSatisfy { name in
            !name.isEmpty && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
        }
        guard valid, !names.contains("none") else {
            throw .usage("bad --disallow-robots-tags '\(text)': expected directives separated by commas (e.g. noai,noimageai), or none alone")
        }
        return names
    }
}

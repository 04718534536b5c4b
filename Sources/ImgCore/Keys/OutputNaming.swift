import Foundation

/// Safe file names for outputs under `-O DIR`, derived from inputs and unique within one run.
public struct OutputNaming: Sendable {
    private var taken: Set<String> = []

    public init() {}

    /// The last path segment of a URL (the last not empty: `/photos/cat/` gives `cat`) or path, percent-decoded,
    /// reduced to `[A-Za-z0-9._-]` (others become `_`), without its extension; `image` when nothing usable is left.
    /// At most 200 characters (so that a suffix and an extension still fit a file name; a batch fits its names
    /// itself, `BatchOutputNamer`).
    public static func baseName(for source: ImageSource) -> String {
        String(fullBaseName(for: source).prefix(200))
    }

    /// `baseName(for:)` at its full length.
    public static func fullBaseName(for source: ImageSource) -> String {
        let segment: String
        switch source {
        case .remote(let url):
            let path = PlainURLParts(url.absoluteString)?.path
                ?? URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? url.path
            let last = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? ""
            segment = last.utf8.contains(UInt8(ascii: "%")) ? last.removingPercentEncoding ?? last : last
        case .file(let path):
            segment = (path as NSString).lastPathComponent
        case .standardInput:
            segment = "stdin"
        }
        return safeStem(segment)
    }

    /// Reduces any text to a safe stem: allowed characters only, extension dropped, never empty or only dots, never
    /// starting with a dot or a hyphen (made `_`); not shortened.
    public static func safeStem(_ text: String) -> String {
        var safe = text.utf8.allSatisfy({ $0 < 0x80 })
            ? String(decoding: text.utf8.map { allowedInStem[Int($0)] ? $0 : UInt8(ascii: "_") }, as: UTF8.self)
            : String(text.unicodeScalars.map { scalar -> Character in
                let allowed = scalar.value < 128 && allowedInStem[Int(scalar.value)]
                return allowed ? Character(scalar) : "_"
            })
        if let dot = safe.lastIndex(of: "."), dot != safe.startIndex { safe = String(safe[..<dot]) }
        if safe.allSatisfy({ $0 == "." }) { return "image" }
        // Nor a leading '-': in the folder, `rm *` would take `-rf.jpg` for options.
        if safe.hasPrefix(".") || safe.hasPrefix("-") { safe = "_" + safe.dropFirst() }
        return safe
    }

    /// By ASCII value: what a stem keeps (`[A-Za-z0-9._-]`, the ASCII letters and digits of
    /// `CharacterSet.alphanumerics`).
    static let allowedInStem = (0..<128).map { (value: Int) -> Bool in
        let scalar = Unicode.Scalar(UInt8(value))
        return CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar)
    }

    /// Returns `stem.ext`, or `stem-1.ext`, `stem-2.ext`, … when taken earlier in this run, letter case aside (on
    /// a case-insensitive file system `Cat.jpg` and `cat.jpg` are one file).
    public mutating func claim(stem: String, fileExtension: String) -> String {
        var candidate = "\(stem).\(fileExtension)"
        var counter = 0
        while taken.contains(candidate.lowercased()) {
            counter += 1
            candidate = "\(stem)-\(counter).\(fileExtension)"
        }
        taken.insert(candidate.lowercased())
        return candidate
    }
}

import Foundation

/// A request header given with `-H`, checked and spelled the way libcurl wants it.
public enum RequestHeader {
    /// Parses `Name: value`, or curl's `Name;` for a header with an empty value, into the line handed to libcurl:
    /// `Name: value` (the value without surrounding spaces and tabs), or `Name;` when the value is empty (libcurl
    /// reads `Name:` as "remove this header", so an empty `-H 'Name:'` would not be sent otherwise).
    /// The name must be an HTTP token (letters, digits and ``!#$%&'*+-.^_`|~``); CR, LF and NUL are refused
    /// anywhere, since they would split one header into several. A refusal is `ImgError.usage` giving the problem
    /// (the caller names the option).
    public static func curlLine(parsing text: String) throws(ImgError) -> String {
        let scalars = text.unicodeScalars
        if scalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
            throw .usage("CR, LF and NUL are not allowed in a header")
        }
        let name: Substring.UnicodeScalarView
        let value: String
        if let colon = scalars.firstIndex(of: ":") {
            name = scalars[..<colon]
            value = String(String.UnicodeScalarView(scalars[scalars.index(after: colon)...]))
                .trimmingCharacters(in: .spacesAndTabs)
        } else if scalars.last == ";" {
            name = scalars.dropLast()
            value = ""
        } else {
            throw .usage("expected 'Name: value' (or 'Name;' for an empty value)")
        }
        guard !name.isEmpty, name.allSatisfy(isTokenCharacter) else {
            throw .usage("the name must be letters, digits and !#$%&'*+-.^_`|~")
        }
        let nameText = String(String.UnicodeScalarView(name))
        return value.isEmpty ? "\(nameText);" : "\(nameText): \(value)"
    }

    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9": true
        default: "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar)
        }
    }
}

private extension CharacterSet {
    static let spacesAndTabs = CharacterSet(charactersIn: " \t")
}

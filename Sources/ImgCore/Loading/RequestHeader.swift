import Foundation

/// A request header given with `-H`, checked and spelled the way libcurl wants it.
public enum RequestHeader {
    /// Parses `Name: value`, or curl's `Name;` for a header with an empty value, into the line handed to libcurl:
    /// `Name: value` (the value without surrounding spaces and tabs), or `Name;` when the value is empty (libcurl
    /// reads `Name:` as "remove this header", so an empty `-H 'Name:'` would not be sent otherwise).
    /// The name must be an HTTP token (letters, digits and ``!#$%&'*+-.^_`|~``); a control character other than
    /// tab is refused anywhere (`checkValue`). A refusal is `ImgError.usage` giving the problem (the caller names the
    /// option).
    public static func curlLine(parsing text: String) throws(ImgError) -> String {
        try checkValue(text, of: "a header")
        let scalars = text.unicodeScalars
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

    /// Refuses text sent in a request header (`what`: "a header", "the User-Agent") that holds a control character
    /// other than tab: CR, LF and NUL would split one header into several (or end it), and RFC 9110 allows no
    /// other control (U+0001–U+001F but tab, DEL) in a field value either, so none is sent raw. `ImgError.usage`
    /// giving the problem; the caller names the option.
    public static func checkValue(_ text: String, of what: String) throws(ImgError) {
        guard let bad = text.unicodeScalars.first(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) else {
            return
        }
        let which = bad == "\r" || bad == "\n" || bad == "\0" ? "CR, LF and NUL are" : "control characters are"
        throw .usage("\(which) not allowed in \(what) (found \(String(bad).escapingControlCharacters))")
    }

    /// The name of a line `curlLine(parsing:)` made: the text before its `:` or final `;`.
    public static func name(ofCurlLine line: String) -> Substring {
        if let colon = line.firstIndex(of: ":") { return line[..<colon] }
        return line.hasSuffix(";") ? line.dropLast() : line[...]
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

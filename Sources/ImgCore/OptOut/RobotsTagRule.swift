import Foundation

/// The `X-Robots-Tag` directives that keep a response from being used (`--disallow-robots-tags`), for one crawler:
/// a directive counts when it applies to every crawler (no prefix) or to this one (`imgfetch: noai`, the prefix
/// compared with the product token of its User-Agent, case-insensitively), as Google defines the header. Each header
/// (a response may send several) starts with no prefix; a prefix applies to the directives after it in that header,
/// up to the next prefix. Directives compare case-insensitively; `none` is also `noindex` and `nofollow`.
public struct RobotsTagRule: Sendable, Equatable {
    /// The directives, lower case (`noai`, `noindex`).
    public var directives: Set<String>
    /// The crawler's product token, lower case (`imgfetch` for `imgfetch/1.4`).
    public var productToken: String

    public init(directives: some Sequence<String>, userAgent: String) {
        self.directives = Set(directives.map { $0.lowercased() })
        productToken = RobotsTagRule.productToken(ofUserAgent: userAgent)
    }

    /// The product token of a User-Agent (RFC 9309: its leading letters, `-` and `_`; `imgfetch` for
    /// `imgfetch/1.4 (+https://example.org)`), lower case.
    public static func productToken(ofUserAgent userAgent: String) -> String {
        String(userAgent.trimmingCharacters(in: .whitespaces).prefix(while: isTokenCharacter)).lowercased()
    }

    /// The first directive of `headers` (the `X-Robots-Tag` values, one per header, in order) that applies to this
    /// crawler and is one of `directives`; nil when none is.
    public func match(_ headers: [String]) -> RobotsTagMatch? {
        for header in headers {
            var agent: String?
            for item in header.split(separator: ",") {
                var text = item.trimmingCharacters(in: .whitespaces)
                if let colon = text.firstIndex(of: ":") {
                    let name = text[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
                    if !name.isEmpty, name.allSatisfy(Self.isTokenCharacter), !Self.valuedDirectives.contains(name) {
                        agent = name
                        text = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    }
                }
                guard agent == nil || agent == productToken, !text.isEmpty else { continue }
                let directive = text.lowercased()
                let name = directive.prefix { $0 != ":" }.trimmingCharacters(in: .whitespaces)
                let meanings = name == "none" ? ["none", "noindex", "nofollow"] : [name]
                if let found = meanings.first(where: directives.contains) ?? (directives.contains(directive) ? directive : nil) {
                    return RobotsTagMatch(directive: found, agent: agent, header: header)
                }
            }
        }
        return nil
    }

    /// Directives that take a value after a colon (`max-image-preview: none`): their name is not a crawler's.
    static let valuedDirectives: Set<String> = ["unavailable_after", "max-snippet", "max-image-preview", "max-video-preview"]

    /// A character of a product token (RFC 9309's `identifier`).
    static func isTokenCharacter(_ character: Character) -> Bool {
        character == "-" || character == "_" || (character.isASCII && character.isLetter)
    }
}

/// The directive that made a response opted out.
public struct RobotsTagMatch: Sendable, Equatable {
    /// The directive as the rule names it (`noai`; `noindex` for a header's `none`).
    public var directive: String
    /// The crawler the header addressed it to (this one's product token), or nil for every crawler.
    public var agent: String?
    /// The header's value as sent.
    public var header: String
}

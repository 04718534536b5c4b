import Foundation

/// A robots.txt as RFC 9309 reads it, for one crawler: the rules of the groups whose `user-agent` is its product
/// token (case-insensitively; several such groups are merged), else those of the `*` groups, else none. A path is
/// judged by the longest rule that matches it (in octets, after percent-encoding is normalised); `allow` wins a
/// tie; `*` matches any run of characters and a final `$` the end of the path. No rule matching allows the path, and
/// `/robots.txt` is always allowed. Only the first 500 KiB are read, as RFC 9309 lets a crawler do.
public struct RobotsTxt: Sendable, Equatable {
    /// One `allow` or `disallow` line of the groups that apply.
    public struct Rule: Sendable, Equatable {
        public var allows: Bool
        /// The pattern, percent-encoding normalised (`RobotsTxt.normalised`).
        public var pattern: String

        /// As the file would say it: `disallow: /private/`.
        public var text: String { "\(allows ? "allow" : "disallow"): \(pattern)" }
    }

    /// The rules that apply to the crawler, in the order written.
    public let rules: [Rule]
    /// `rules`' patterns made ready for matching, in the same order.
    private let patterns: [RobotsPattern]

    /// The most of a robots.txt that is read (RFC 9309: at least 500 kibibytes).
    public static let readLimit = 500 * 1024

    /// Parses `body` for the crawler whose product token is `productToken` (`RobotsTagRule.productToken`).
    public init(parsing body: Data, productToken: String) {
        var text = String(decoding: body.prefix(Self.readLimit), as: UTF8.self)
        // A byte order mark (files saved on Windows) is no part of the first line's key.
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        var groups: [(agents: [String], rules: [Rule])] = []
        var lastWasAgent = false
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            let content = line.prefix { $0 != "#" }
            guard let colon = content.firstIndex(of: ":") else { continue }
            let key = content[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = content[content.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            switch key {
            case "user-agent":
                if !lastWasAgent { groups.append(([], [])) }
                let agent = value == "*" ? "*" : String(value.prefix(while: RobotsTagRule.isTokenCharacter)).lowercased()
                groups[groups.count - 1].agents.append(agent)
                lastWasAgent = true
            case "allow", "disallow":
                lastWasAgent = false
                // A rule before any user-agent line belongs to no group; an empty one says nothing.
                guard !groups.isEmpty, !value.isEmpty else { continue }
                let pattern = value.hasPrefix("/") || value.hasPrefix("*") ? value : "/" + value
                groups[groups.count - 1].rules.append(Rule(allows: key == "allow", pattern: Self.normalised(pattern)))
            default:
                // sitemap, crawl-delay and other records end no group.
                continue
            }
        }
        let own = groups.filter { $0.agents.contains(productToken.lowercased()) && !productToken.isEmpty }
        let chosen = own.isEmpty ? groups.filter { $0.agents.contains("*") } : own
        rules = chosen.flatMap(\.rules)
        patterns = rules.map { RobotsPattern($0.pattern) }
    }

    /// The rule that decides `path` (the URL's path and query, percent-encoded as sent), or nil when none matches
    /// (allowed).
    public func deciding(_ path: String) -> Rule? {
        let target = Self.normalised(path.isEmpty ? "/" : path)
        if target == "/robots.txt" { return nil }
        let octets = Array(target.utf8)
        var best: Rule?
        for (rule, pattern) in zip(rules, patterns) where pattern.matches(octets) {
            guard let current = best else { best = rule; continue }
            let (length, bestLength) = (rule.pattern.utf8.count, current.pattern.utf8.count)
            if length > bestLength || (length == bestLength && rule.allows && !current.allows) { best = rule }
        }
        return best
    }

    /// Whether `path` may be fetched.
    public func allows(_ path: String) -> Bool { deciding(path)?.allows ?? true }
}

extension RobotsTxt {
    /// A path or pattern with its percent-encoding normalised as RFC 9309 asks before they are compared: an escaped
    /// unreserved character (letters, digits, `-._~`) is unescaped, other escapes get upper-case hex digits, and an
    /// octet outside printable ASCII is escaped (`/café` and `/caf%c3%a9` are `/caf%C3%A9`; `%2F` stays escaped).
    static func normalised(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), let value = hexValue(bytes, at: index + 1) {
                if isUnreserved(value) { result.append(value) } else { result += escaped(value) }
                index += 3
                continue
            }
            if byte <= 0x20 || byte >= 0x7F { result += escaped(byte) } else { result.append(byte) }
            index += 1
        }
        return String(decoding: result, as: UTF8.self)
    }

    private static func hexValue(_ bytes: [UInt8], at index: Int) -> UInt8? {
        guard index + 1 < bytes.count, let high = hexDigit(bytes[index]), let low = hexDigit(bytes[index + 1]) else { return nil }
        return high << 4 | low
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    private static func escaped(_ byte: UInt8) -> [UInt8] {
        Array(String(format: "%%%02X", byte).utf8)
    }
}

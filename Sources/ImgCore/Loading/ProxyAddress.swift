/// A proxy as libcurl's `CURLOPT_PROXY` takes it, checked before any transfer: `[SCHEME://][USER[:PASSWORD]@]HOST[:PORT][/]`,
/// SCHEME one of curl's (http, the default, https, socks4, socks4a, socks5, socks5h), HOST a name of ASCII letters,
/// digits, `-`, `.` and `_` or a bracketed IPv6 address, PORT 1 to 65535. The password is never shown: `shown`
/// writes it `***`, as a URL's is (`URLCredentials`).
public struct ProxyAddress: Sendable, Equatable {
    /// The value as given, for libcurl.
    public let value: String
    /// The value with its password written `***`: for messages.
    public let shown: String
    /// The schemes curl takes for a proxy.
    public static let schemes = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// Parses `value`; `ImgError.usage` giving the problem (the caller names the option and shows `masked(value)`).
    public init(parsing value: String) throws(ImgError) {
        self.value = value
        shown = Self.masked(value)
        let scalars = Array(value.unicodeScalars)
        if scalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) {
            throw .usage("spaces and control characters are not allowed")
        }
        if scalars.contains(where: { !$0.isASCII }) {
            throw .usage("only ASCII characters are allowed (give an international name in its xn-- form)")
        }
        let parts = Self.split(value)
        if let scheme = parts.scheme, !Self.schemes.contains(scheme.lowercased()) {
            throw .usage("the scheme must be http, https, socks4, socks4a, socks5 or socks5h")
        }
        if !parts.rest.isEmpty && parts.rest != "/" { throw .usage("a proxy takes no path, query or fragment") }
        try Self.checkHostAndPort(parts.hostAndPort)
    }

    /// `text` with the password of a proxy value written `***` (`http://user:***@proxy:3128`); text without one is
    /// returned as it is. Works on any text, a malformed value included.
    public static func masked(_ text: String) -> String {
        let parts = split(text)
        guard let info = parts.userInfo, let colon = info.firstIndex(of: ":") else { return text }
        let scheme = parts.scheme.map { $0 + "://" } ?? ""
        return "\(scheme)\(info[...colon])***@\(parts.hostAndPort)\(parts.rest)"
    }

    /// `text` (a libcurl message) with the password of the proxy value `proxy` written `***` wherever it appears,
    /// and any URL's password (`URLCredentials`: a proxy libcurl took from the environment).
    public static func maskingPassword(of proxy: String?, in text: String) -> String {
        var text = URLCredentials.maskingPassword(in: text)
        if let info = proxy.flatMap({ split($0).userInfo }), let colon = info.firstIndex(of: ":") {
            let password = info[info.index(after: colon)...]
            if !password.isEmpty { text = text.replacingOccurrences(of: password, with: "***") }
        }
        return text
    }

    /// The scheme (nil when not written), the user info (before the authority's last `@`; nil without one), the
    /// host and port, and what follows them (from the first `/`, `?` or `#`).
    private static func split(_ text: String) -> (scheme: String?, userInfo: Substring?, hostAndPort: Substring, rest: Substring) {
        var scheme: String?
        var authority = text[...]
        if let separator = text.range(of: "://") {
            scheme = String(text[..<separator.lowerBound])
            authority = text[separator.upperBound...]
        }
        let end = authority.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? authority.endIndex
        let rest = authority[end...]
        authority = authority[..<end]
        guard let at = authority.lastIndex(of: "@") else { return (scheme, nil, authority, rest) }
        return (scheme, authority[..<at], authority[authority.index(after: at)...], rest)
    }

    /// Refuses a host that is neither a name of letters, digits, `-`, `.` and `_` nor a bracketed IPv6 address, and a
    /// port that is not 1 to 65535.
    private static func checkHostAndPort(_ text: Substring) throws(ImgError) {
        var host = text
        var port: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .usage("an IPv6 address that is not closed") }
            let address = text[text.index(after: text.startIndex)..<close]
            guard !address.isEmpty, address.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw .usage("'\(address)' is not an IPv6 address")
            }
            host = text[...close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .usage("'\(after)' can't follow an IPv6 address") }
                port = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        if host.isEmpty { throw .usage("no host") }
        if !host.hasPrefix("["), let bad = host.first(where: { !($0.isLetter || $0.isNumber || "-._".contains($0)) }) {
            throw .usage("'\(bad)' can't be in a host name")
        }
        if let port {
            let digits = Array(port.utf8)
            guard !digits.isEmpty, digits.allSatisfy(ASCIIBytes.isDigit),
                  URLSpelling.isPort(digits.count, { Int(digits[$0]) - 48 }) else {
                throw .usage("port '\(port)' is not a port number (1 to 65535)")
            }
        }
    }
}

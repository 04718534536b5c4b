import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Builds the cache keys of docs/DESIGN.md: the original key names the downloaded bytes, the variant key one processed
/// output. The two never meet: a variant key starts with `variant:` and escapes `%` and `@` in its original key, and
/// the memory cache keeps originals under `original:` + key (`inMemory(original:)`), so no URL, however it ends,
/// can be taken for another's variant.
public enum CacheKey {
    /// The original key of an input, computed the same way by the pipeline, `cache inspect` and `cache remove`:
    /// a URL's as `original(for:query:credentials:)` gives it, with the credentials the request carries (user info
    /// in the URL, `Authorization` and `Cookie` among `headers`); a local file's from the file it resolves to;
    /// nil for standard input (never cached). A file that can't be found is `ImgError.io` with the system's reason.
    public static func original(for source: ImageSource, query: QueryInKey = .none,
                                headers: [String] = []) throws(ImgError) -> String? {
        switch source {
        case .remote(let url):
            guard let key = original(for: url, query: query, credentials: credentials(of: url, headers: headers)) else {
                throw .usage("malformed URL '\(URLCredentials.maskingPassword(in: url.absoluteString))'")
            }
            return key
        case .file(let path):
            return try original(forLocalFile: path)
        case .standardInput:
            return nil
        }
    }

    /// The original key of a URL: scheme and host lower-cased, default port, user info, query and fragment dropped,
    /// an empty path written `/`; the query's parameters that `query` keeps follow `?`, sorted by name (a repeated
    /// name keeps its values' order). With `credentials`, `#credentials=` and a hash of them follow (a fragment never
    /// appears in a key otherwise), so a request without them has another key.
    public static func original(for url: URL, query: QueryInKey = .none, credentials: String? = nil) -> String? {
        let plain = PlainURLParts(url.absoluteString)
        guard var key = plain.map({ key(scheme: $0.scheme, host: $0.host, port: $0.port, path: $0.path) })
                ?? keyFromComponents(of: url, query: query) else { return nil }
        if let credentials, !credentials.isEmpty {
            key += "#credentials=" + Digest.sha256("imgfetch credentials\n" + credentials).prefix(32)
        }
        return key
    }

    /// `original(for:query:)` without credentials, from `URLComponents`: any URL.
    static func keyFromComponents(of url: URL, query: QueryInKey) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              // The host as written (percent-encoded): `host` decodes it, so `a.com%2Fb` would give the key of `a.com/b`.
              let scheme = components.scheme, let host = components.percentEncodedHost, !host.isEmpty
        else { return nil }
        var key = Self.key(scheme: scheme.lowercased(), host: host, port: components.port,
                           path: components.percentEncodedPath)
        let kept = query.kept(from: components.percentEncodedQuery)
        if !kept.isEmpty { key += "?" + kept.joined(separator: "&") }
        return key
    }

    /// `scheme://host[:port]/path`: the host lower-cased (bracketed when it is an IPv6 address), the scheme's default
    /// port left out, an empty path written `/`.
    private static func key(scheme: String, host: String, port: Int?, path: String) -> String {
        let host = host.lowercased()
        var key = scheme + "://"
        key += host.utf8.contains(UInt8(ascii: ":")) && !host.hasPrefix("[") ? "[\(host)]" : host
        if let port, !(scheme == "http" && port == 80) && !(scheme == "https" && port == 443) {
            key += ":\(port)"
        }
        key += path.isEmpty ? "/" : path
        return key
    }

    /// The credentials a request for `url` carries, one per line: the URL's user info, then every `Authorization`
    /// and `Cookie` header among `headers` (libcurl lines, `Name: value`); nil when there are none.
    public static func credentials(of url: URL, headers: [String]) -> String? {
        var parts: [String] = []
        // No `@`, no user info: the URL is not parsed again for it.
        if url.absoluteString.utf8.contains(UInt8(ascii: "@")),
           let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
           components.percentEncodedUser != nil || components.percentEncodedPassword != nil {
            parts.append("user " + (components.percentEncodedUser ?? "") + ":" + (components.percentEncodedPassword ?? ""))
        }
        for header in headers {
            let name = header.prefix { $0 != ":" && $0 != ";" }.lowercased()
            if name == "authorization" || name == "cookie" { parts.append(header) }
        }
        return parts.isEmpty ? nil : parts.joined(separator: "\n")
    }

    /// The original key of a local file: the absolute path of the file it resolves to (symbolic links followed), with
    /// that file's size and modification time, so that an edited or replaced file gets a new key.
    public static func original(forLocalFile path: String) throws(ImgError) -> String {
        guard let resolved = realpath(path, nil) else { throw .io(LocalFileError.reason(path)) }
        defer { free(resolved) }
        let target = String(cString: resolved)
        var info = stat()
        guard stat(target, &info) == 0 else { throw .io(LocalFileError.reason(path)) }
        return original(forFile: target, size: Int64(info.st_size), modified: EntryIO.seconds(info.st_mtim))
    }

    /// The original key of a local file at a resolved path, with its size and modification time.
    public static func original(forFile path: String, size: Int64, modified: TimeInterval) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        return "file://\(absolute)#size=\(size)&mtime=\(Int64(modified * 1000))"
    }

    /// The variant key: `variant:`, the original key with `%` and `@` escaped, `@`, and the variant identifier
    /// (canonical chain `@` output encoding, `ImageRequest.variantIdentifier`).
    public static func variant(original: String, variantIdentifier: String) -> String {
        "\(variantPrefix)\(escapingAtSigns(original))@\(variantIdentifier)"
    }

    /// `key` with `%` written `%25` and `@` written `%40`, so that the first `@` of a variant key ends its original.
    /// An ASCII key (every key made from a parsed URL) is escaped byte by byte; any other through Foundation, whose
    /// replacement matches by character.
    static func escapingAtSigns(_ key: String) -> String {
        guard key.utf8.allSatisfy({ $0 < 0x80 }) else {
            return key.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "@", with: "%40")
        }
        guard key.utf8.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "@") }) else { return key }
        var escaped = [UInt8]()
        escaped.reserveCapacity(key.utf8.count + 8)
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "%"): escaped += Array("%25".utf8)
            case UInt8(ascii: "@"): escaped += Array("%40".utf8)
            default: escaped.append(byte)
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    /// The original key a variant key was made from; nil when `key` is not a variant key.
    public static func original(ofVariant key: String) -> String? {
        guard key.hasPrefix(variantPrefix) else { return nil }
        let rest = key.dropFirst(variantPrefix.count)
        guard let at = rest.firstIndex(of: "@") else { return nil }
        return rest[..<at].replacingOccurrences(of: "%40", with: "@").replacingOccurrences(of: "%25", with: "%")
    }

    /// The memory cache's key of an original: its own namespace, apart from every variant key.
    public static func inMemory(original key: String) -> String { "original:" + key }

    static let variantPrefix = "variant:"
}

/// Which parameters of a URL's query its original key keeps.
public enum QueryInKey: Sendable, Equatable {
    /// None (the default: a query is taken for a signature or a cache-buster).
    case none
    /// All of them (`--keep-query`).
    case all
    /// Only these names (`--keep-query=img,w`, `cache config keep-query=img,w`).
    case only([String])

    /// Parses `NAME,NAME` (as `--keep-query=` and `cache config` take it); nil when a name is empty or has `&`/`=`.
    public init?(names text: String) {
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard !names.isEmpty, names.allSatisfy({ !$0.isEmpty && !$0.contains("&") && !$0.contains("=") }) else { return nil }
        self = .only(names)
    }

    /// The kept parameters of a percent-encoded query, in key order: sorted by (decoded) name, a repeated name's
    /// values in the order given.
    func kept(from query: String?) -> [String] {
        guard let query, !query.isEmpty, self != .none else { return [] }
        let parameters = query.split(separator: "&", omittingEmptySubsequences: true).map(String.init)
        let named = parameters.map { (name: Self.name(of: $0), text: $0) }
        let selected = if case .only(let names) = self { named.filter { names.contains($0.name) } } else { named }
        // A stable sort by name: `?id=1&id=2` and `?id=2&id=1` keep different keys.
        return selected.enumerated().sorted { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }.map(\.element.text)
    }

    /// A parameter's name, percent-decoded (`i%6Dg=a` is `img`).
    static func name(of parameter: String) -> String {
        let raw = String(parameter.prefix { $0 != "=" })
        return raw.removingPercentEncoding ?? raw
    }

    /// How `cache config` and messages write it: `all`, `none` or the names.
    public var description: String {
        switch self {
        case .none: "none"
        case .all: "all"
        case .only(let names): names.joined(separator: ",")
        }
    }
}

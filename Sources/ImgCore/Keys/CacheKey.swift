import Foundation

/// Builds the cache keys of DESIGN.md: the original key names the downloaded bytes, the variant key one processed output.
public enum CacheKey {
    /// The original key of a URL: scheme and host lower-cased, default port, user info, query and fragment dropped,
    /// an empty path written `/`. With `keepingQuery`, the query stays, its parameters sorted.
    public static func original(for url: URL, keepingQuery: Bool = false) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              // The host as written (percent-encoded): `host` decodes it, so `a.com%2Fb` would give the key of `a.com/b`.
              let scheme = components.scheme?.lowercased(), let host = components.percentEncodedHost?.lowercased(), !host.isEmpty
        else { return nil }
        var key = scheme + "://"
        key += host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        if let port = components.port, !(scheme == "http" && port == 80) && !(scheme == "https" && port == 443) {
            key += ":\(port)"
        }
        let path = components.percentEncodedPath
        key += path.isEmpty ? "/" : path
        if keepingQuery, let query = components.percentEncodedQuery, !query.isEmpty {
            let parameters = query.split(separator: "&", omittingEmptySubsequences: true).map(String.init).sorted()
            if !parameters.isEmpty { key += "?" + parameters.joined(separator: "&") }
        }
        return key
    }

    /// The original key of a local file: its absolute path with its size and modification time,
    /// so an edited file gets a new key.
    public static func original(forFile path: String, size: Int64, modified: TimeInterval) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        return "file://\(absolute)#size=\(size)&mtime=\(Int64(modified * 1000))"
    }

    /// The variant key: the original key, `@`, and the variant identifier (canonical chain `@` output encoding,
    /// `ImageRequest.variantIdentifier`).
    public static func variant(original: String, variantIdentifier: String) -> String {
        "\(original)@\(variantIdentifier)"
    }
}

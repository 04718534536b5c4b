import Foundation

/// What goes with each request of a redirect chain. The user's `-H` headers and the user and password of the URL
/// are for the origin the user named: they go to a redirect target only on that origin (same scheme, host and
/// port), unless `--location-trusted` says they may go anywhere (curl's rule, made to cover every custom header).
struct RedirectPolicy {
    /// scheme, lower-case host and port (the scheme's default when not written).
    struct Origin: Equatable {
        var scheme: String
        var host: String
        var port: Int

        init?(_ url: URL) {
            guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
            self.scheme = scheme
            self.host = host
            port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        }
    }

    /// The origin of the URL asked for.
    let first: Origin?
    /// The user and password of the URL asked for, percent-decoded; nil without user info.
    let credentials: (user: String, password: String)?
    let trusted: Bool

    init(first url: URL, trusted: Bool) {
        first = Origin(url)
        credentials = url.user.map { ($0.removingPercentEncoding ?? $0, (url.password ?? "").removingPercentEncoding ?? "") }
        self.trusted = trusted
    }

    /// Whether a request to `url` carries the user's headers and credentials.
    func sendsCredentials(to url: URL) -> Bool {
        trusted || (first != nil && Origin(url) == first)
    }

    /// The URL a hop is requested with: without user info where credentials must not go.
    func requestURL(for url: URL) -> URL {
        guard !sendsCredentials(to: url), url.user != nil,
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.user = nil
        components.password = nil
        return components.url ?? url
    }

    /// The credentials to give libcurl besides the URL's for a hop: the first URL's, where they may go and the hop's
    /// URL has none of its own (a redirect to `/b.png` or to `http://host/b.png` on the same origin keeps them).
    func extraCredentials(for url: URL) -> (user: String, password: String)? {
        guard sendsCredentials(to: url), url.user == nil else { return nil }
        return credentials
    }

    /// The statuses followed when they carry a `Location`: 301, 302, 303, 307, 308 and the other 3xx but 304 (an
    /// answer to a conditional request) and 305 (Use Proxy, never followed), as libcurl.
    static func follows(status: Int) -> Bool {
        (300..<400).contains(status) && status != 304 && status != 305
    }
}

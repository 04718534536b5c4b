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

    /// The URL a redirect leads to, `text` as libcurl resolved it: refused (never retried) when its scheme is not
    /// http or https, when it is no URL that can be sent (`URLSpelling`: a port over 65535, a character no host may
    /// hold), or when `judge` refuses it.
    static func target(_ text: String, judge: RedirectJudge?) -> Result<URL, TransferFailure> {
        let shown = URLCredentials.maskingPassword(in: text)
        let scheme = text.prefix { $0 != ":" }.lowercased()
        guard scheme == "http" || scheme == "https" else {
            let error = ImgError.network("refusing a redirect to a scheme other than http or https: \(shown)", cause: .redirectScheme)
            return .failure(TransferFailure(error: error, retryable: false))
        }
        let next: URL
        do throws(ImgError) {
            _ = try URLSpelling.spell(text, shown: { shown })
            guard let url = URL(string: text) else { throw .usage("malformed URL '\(shown.escapingControlCharacters)'") }
            next = url
        } catch {
            let problem = if case .usage(let problem) = error { problem } else { error.message }
            let refusal = ImgError.network("refusing a redirect to a \(problem)", cause: .malformedRedirect)
            return .failure(TransferFailure(error: refusal, retryable: false))
        }
        do throws(ImgError) {
            try judge?.judge(next)
        } catch {
            return .failure(TransferFailure(error: error, retryable: false))
        }
        return .success(next)
    }

    /// The statuses followed when they carry a `Location`: 301, 302, 303, 307, 308 and the other 3xx but 304 (an
    /// answer to a conditional request) and 305 (Use Proxy, never followed), as libcurl.
    static func follows(status: Int) -> Bool {
        (300..<400).contains(status) && status != 304 && status != 305
    }
}

import Foundation

/// `--robots-txt`: whether a host's robots.txt lets this crawler fetch a URL. Each host's (scheme, host and port's)
/// `/robots.txt` is had once per run, however many workers ask at once (one transfer; the others wait for it):
/// from the disk cache when fresh there, else through the loader (`loadRobots`: the host's turns and redirect rules,
/// at most `robotsRedirects` redirects). It judges the list's URLs and, through
/// `ImagePipeline.judgeRedirectsByRobotsTxt`, every redirect's target. What it said is cached under `robots:ORIGIN` (its own namespace) for the cache's
/// TTL, at most 24 hours as RFC 9309 asks (not extended by use): a 2xx's body (its first 500 KiB), a 4xx as no
/// body (everything allowed). A 5xx, a 429 or a failed transfer disallows the whole host for this run and is not
/// cached (a 5xx, a 429, a failed connection or a timeout as a transient verdict: its lines are to be tried again);
/// more redirects than that allows everything (RFC 9309 2.3.1.2).
final class RobotsTxtGate: Sendable {
    private let loader: any DataLoading
    private let store: (any EntryStoring)?
    private let policy: CachePolicy
    private let ttl: TimeToLive
    private let productToken: String
    private let cancellation: Cancellation?
    /// What each origin's robots.txt said, this run (the origins used last: `RobotsPolicies`).
    private let known = RobotsPolicies()
    private let fetches = InFlightTasks<RobotsPolicy>()

    /// The longest a robots.txt is cached: 24 hours.
    static let longestKept: Int64 = 86_400

    init(loader: any DataLoading, store: (any EntryStoring)?, policy: CachePolicy, ttl: TimeToLive, userAgent: String,
         cancellation: Cancellation?) {
        (self.loader, self.store, self.policy, self.ttl) = (loader, store, policy, ttl)
        productToken = RobotsTagRule.productToken(ofUserAgent: userAgent)
        self.cancellation = cancellation
    }

    /// Why robots.txt disallows `url`, or nil when it allows it (or `url` has no host: its fetch fails as it
    /// would). Throws only `ImgError.notCached` (`--only-from-cache` and no fresh robots.txt in the cache), or the
    /// failure of a transfer cut short by a cancellation.
    func verdict(for url: URL) throws(ImgError) -> RobotsVerdict? {
        guard let (origin, robotsURL) = Self.origin(of: url) else { return nil }
        let path = Self.pathAndQuery(of: url)
        switch try policy(origin: origin, robotsURL: robotsURL) {
        case .allowAll:
            return nil
        case .disallowAll(let why, let transient):
            return RobotsVerdict(robotsURL: robotsURL.absoluteString, path: path, rule: nil, unreachable: why,
                                 transient: transient)
        case .rules(let robots):
            guard let rule = robots.deciding(path), !rule.allows else { return nil }
            return RobotsVerdict(robotsURL: robotsURL.absoluteString, path: path, rule: rule.text, unreachable: nil)
        }
    }

    private func policy(origin: String, robotsURL: URL) throws(ImgError) -> RobotsPolicy {
        if let found = known.policy(of: origin) { return found }
        return try fetches.run(key: origin) { () throws(ImgError) -> RobotsPolicy in
            if let found = known.policy(of: origin) { return found }
            let found: RobotsPolicy
            if let cached = try cached(origin) { found = cached } else { found = try fetch(robotsURL, origin: origin) }
            known.keep(found, of: origin)
            return found
        }.value
    }

    /// The fresh entry of `origin`'s robots.txt, or nil (`notCached` with `--only-from-cache`).
    private func cached(_ origin: String) throws(ImgError) -> RobotsPolicy? {
        guard let store, !policy.forceRefresh,
              case .fresh(let metadata, let body) = store.lookup(.original(key: Self.key(origin)), inPlace: false) else {
            if policy.onlyFromCache { throw .notCached("robots.txt of \(origin) is not in the cache") }
            return nil
        }
        if let status = metadata.httpStatus, (400..<500).contains(status) { return .allowAll }
        return .rules(RobotsTxt(parsing: body.data, productToken: productToken))
    }

    private func fetch(_ robotsURL: URL, origin: String) throws(ImgError) -> RobotsPolicy {
        do {
            let response = try loader.loadRobots(robotsURL)
            let body = Data(response.content.data.prefix(RobotsTxt.readLimit))
            if !response.noStore { keep(body, status: response.status, robotsURL: robotsURL, origin: origin) }
            return .rules(RobotsTxt(parsing: body, productToken: productToken))
        } catch {
            if cancellation?.isCancelled == true { throw error }
            switch error {
            case .http(let status, _) where (400..<500).contains(status) && status != 429:
                keep(Data(), status: status, robotsURL: robotsURL, origin: origin)
                return .allowAll
            case .overLimit(.redirects, _):
                return .allowAll
            default:
                return .disallowAll(error.message, transient: error.isTransient)
            }
        }
    }

    /// Caches what a robots.txt said; a cache that can't be written is no failure (it is asked again next run).
    private func keep(_ body: Data, status: Int, robotsURL: URL, origin: String) {
        guard let store else { return }
        let seconds = if case .seconds(let value) = ttl { min(value, Self.longestKept) } else { Self.longestKept }
        var metadata = CacheEntryMetadata(url: robotsURL.absoluteString, key: Self.key(origin), variant: nil, kind: .original,
                                          body: ImagePayload(data: body, format: nil, contentType: "text/plain"),
                                          ttl: .seconds(seconds))
        metadata.httpStatus = status
        try? store.store(.memory(body), metadata: metadata, as: .original(key: Self.key(origin)))
    }

    /// The cache key of an origin's robots.txt: `robots:http://example.org:8080`, apart from every image's key.
    static func key(_ origin: String) -> String { "robots:" + origin }

    /// `scheme://host[:port]` (lower case, the default port left out) and its `/robots.txt`; nil without a host.
    static func origin(of url: URL) -> (String, URL)? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = components.scheme?.lowercased(), let host = components.percentEncodedHost?.lowercased(),
              !host.isEmpty else { return nil }
        var origin = scheme + "://" + (host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host)
        if let port = components.port, !(scheme == "http" && port == 80) && !(scheme == "https" && port == 443) {
            origin += ":\(port)"
        }
        return URL(string: origin + "/robots.txt").map { (origin, $0) }
    }

    /// The path and query robots.txt rules are matched against (`/a/b.jpg?w=2`; `/` for an empty path).
    static func pathAndQuery(of url: URL) -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "/" }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return path + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }
}

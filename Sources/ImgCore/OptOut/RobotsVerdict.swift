/// What a host's robots.txt says of one URL it disallows.
public struct RobotsVerdict: Sendable, Equatable {
    /// The robots.txt asked (`https://example.org/robots.txt`).
    public var robotsURL: String
    /// The URL's path and query, as judged.
    public var path: String
    /// The rule that disallows it (`disallow: /private/`); nil when the whole host is disallowed because its
    /// robots.txt could not be had (`unreachable`).
    public var rule: String?
    /// Why the robots.txt could not be had (`HTTP 503 Service Unavailable`, a failed connection); nil with a rule.
    public var unreachable: String?
    /// Whether it could not be had for a reason that may pass (`ImgError.isTransient`: a 5xx, a 429, a failed
    /// connection, a timeout): the URL is disallowed for this run only, and its line is to be tried again (the
    /// batch exits 75 unless a failure is permanent; `--retry-failed` runs it). False with a rule. Default false.
    public var transient = false

    /// One line for the records.
    public var reason: String {
        if let rule { return "robots.txt disallows \(path) (\(rule))" }
        let why = "robots.txt (\(robotsURL)) could not be fetched (\(unreachable ?? "no answer"))"
        return why + (transient ? ": every path of its host is disallowed for this run, to be tried again later"
                                : ": every path of its host is disallowed")
    }
}

/// What a host's robots.txt lets a crawler fetch, for a run.
enum RobotsPolicy: Sendable {
    /// Its rules for this crawler.
    case rules(RobotsTxt)
    /// No robots.txt (a 4xx, more redirects than `robotsRedirects`): everything allowed.
    case allowAll
    /// It could not be had (a 5xx, a 429, a failed connection): everything disallowed, for why; `transient` when
    /// that may pass (`RobotsVerdict.transient`).
    case disallowAll(String, transient: Bool)
}

/// Why a site asked for a URL not to be used, which a batch records instead of a result: neither a success nor a
/// failure, it leaves the exit status as it is.
public enum SiteRefusal: Sendable, Equatable {
    /// The response's `X-Robots-Tag` carried a directive of `ImageRequest.robotsTags`: status `opted_out`.
    case robotsTag(RobotsTagMatch)
    /// The host's robots.txt disallows the URL (`--robots-txt`), which was not requested: status `robots_disallowed`.
    case robotsTxt(RobotsVerdict)

    /// `opted_out` or `robots_disallowed`, as the records name it.
    public var status: String {
        switch self {
        case .robotsTag: "opted_out"
        case .robotsTxt: "robots_disallowed"
        }
    }

    /// The directive (`noai`) of an opted-out response; nil for robots.txt.
    public var directive: String? {
        switch self {
        case .robotsTag(let match): match.directive
        case .robotsTxt: nil
        }
    }

    /// Whether the refusal holds for this run only: robots.txt could not be had for a reason that may pass
    /// (`RobotsVerdict.transient`). Its line counts as a transient failure for the exit status and `--retry-failed`.
    public var isTransient: Bool {
        if case .robotsTxt(let verdict) = self { verdict.transient } else { false }
    }

    /// The robots.txt rule that disallowed the URL (`disallow: /private/`); nil otherwise.
    public var rule: String? {
        if case .robotsTxt(let verdict) = self { verdict.rule } else { nil }
    }

    /// One line: `X-Robots-Tag: imgfetch: noai`, `robots.txt disallows /private/a.jpg (disallow: /private/)`.
    public var reason: String {
        switch self {
        case .robotsTag(let match): "X-Robots-Tag: \(match.header)"
        case .robotsTxt(let verdict): verdict.reason
        }
    }
}

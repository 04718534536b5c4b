/// Every failure a user can cause, classified so that the command line can map it to its documented exit code.
public enum ImgError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A bad option, value, chain or input (exit 2).
    case usage(String)
    /// Resolve, connect, TLS, timeout, redirects, a reply that is not HTTP or a transfer cut short (exit 3), with
    /// its structured cause.
    case network(String, cause: NetworkCause)
    /// An HTTP status of 400 or more after retries, or a 304 to a request that was not conditional (exit 4).
    case http(status: Int, message: String)
    /// Empty body, not an image, corrupt, truncated, unsupported, too many pixels, processing failed (exit 5).
    case image(String)
    /// `--only-from-cache` and the cache has no entry (exit 6).
    case notCached(String)
    /// Local I/O: output not writable, cache unusable when required (exit 7).
    case io(String)
    /// The cache directory can't be created or written (read-only file system, full disk): exit 7 where the cache
    /// is required (`--only-from-cache`, cache commands); elsewhere the pipeline warns and goes on without it.
    case cacheUnavailable(String)
    /// The cache directory, or a folder on the way to it, could be swapped by another user (exit 7): refused before
    /// anything is fetched or written.
    case unsafeCacheDirectory(UnsafeDirectory)
    /// `cache verify` found damaged entries (exit 8).
    case damaged(String)
    /// An unexpected internal failure (exit 1).
    case internalFailure(String)
    /// An input went over a limit the caller set: exit 3 for a transfer's limits (like `.network`), 5 for an
    /// image's (like `.image`). `contentType` is what the server called a body that went over an image's limit,
    /// when that was not an image type; nil (the default) otherwise. The CLI front names the option that set it.
    case overLimit(ExceededLimit, contentType: String? = nil)
    /// The site asked for the URL not to be used (`X-Robots-Tag`, robots.txt). Not a failure: a batch records the
    /// line as `opted_out` or `robots_disallowed` (`SiteRefusal.status`) and its exit status stays as it is (0 here),
    /// but for a robots.txt that could not be had for now (`SiteRefusal.isTransient`): then it exits 75 unless a
    /// failure is permanent.
    case siteRefusal(SiteRefusal)
    /// The image's size is outside the caller's filter (`DecodeOptions.sizeFilter`), read from its header: nothing
    /// decoded. Not a failure: a batch records the line as `filtered` and its exit status stays as it is (0 here).
    case filtered(FilteredOriginal)
    /// A column the list's layout names is missing from a row or a whole list (exit 2, like `.usage`).
    case missingColumn(MissingColumn)
    /// What the caller set rules the request out (exit 2, like `.usage`): the CLI front names the option.
    case setting(SettingProblem)
    /// A format only local files may use (SVG, PDF, ImageMagick's: `ImageDecoder.trustedLoaders` has the others)
    /// came from the network, read by libvips' `loader` (exit 5, like `.image`). `contentType` is what the server
    /// called it when that was not an image type; nil (the default) otherwise.
    case untrustedFormat(loader: String, contentType: String? = nil)

    /// The process exit code documented in the man page for this class of failure.
    public var exitCode: Int32 {
        switch self {
        case .usage, .missingColumn, .setting: 2
        case .network: 3
        case .http: 4
        case .image, .untrustedFormat: 5
        case .notCached: 6
        case .io, .cacheUnavailable, .unsafeCacheDirectory: 7
        case .damaged: 8
        case .internalFailure: 1
        case .overLimit(let limit, _): limit.isTransferLimit ? 3 : 5
        case .siteRefusal, .filtered: 0
        }
    }

    /// The class of failure as one word, as printed in `--json` output.
    public var kind: String {
        switch self {
        case .usage, .missingColumn, .setting: "usage"
        case .network: "network"
        case .http: "http"
        case .image, .untrustedFormat: "image"
        case .notCached: "not-cached"
        case .io, .cacheUnavailable, .unsafeCacheDirectory: "io"
        case .damaged: "damaged"
        case .internalFailure: "internal"
        case .overLimit(let limit, _): limit.isTransferLimit ? "network" : "image"
        case .siteRefusal(let refusal): refusal.status
        case .filtered: "filtered"
        }
    }

    /// The one-line message, without the input's name.
    public var message: String {
        switch self {
        case .usage(let text), .image(let text), .notCached(let text),
             .io(let text), .cacheUnavailable(let text), .damaged(let text), .internalFailure(let text):
            text
        case .network(let text, _):
            text
        case .http(_, let text):
            text
        case .unsafeCacheDirectory(let refusal):
            "refusing cache directory \(refusal.directory): \(refusal.problem)"
        case .overLimit(let limit, let contentType):
            contentType.map { "\(limit.message) (Content-Type \($0))" } ?? limit.message
        case .siteRefusal(let refusal):
            refusal.reason
        case .filtered(let filtered):
            filtered.reason
        case .missingColumn(let missing):
            missing.message()
        case .setting(let problem):
            problem.message
        case .untrustedFormat(let loader, let contentType):
            Self.untrustedFormatMessage(loader: loader, contentType: contentType)
        }
    }

    public var description: String { message }

    /// `refusing svgload from the network (an untrusted format)`, then `advice` (`; use …`), then
    /// ` (Content-Type TYPE)` when the server's type is known.
    public static func untrustedFormatMessage(loader: String, contentType: String?, advice: String = "") -> String {
        let type = contentType.map { " (Content-Type \($0))" } ?? ""
        return "refusing \(loader) from the network (an untrusted format)\(advice)\(type)"
    }

    /// Whether trying again later may succeed, decided from the structured cause, never the message: an HTTP 408,
    /// 429 or 5xx, and network failures whose `NetworkCause.isTransient` (resolve, connect, timeout, a transfer cut
    /// short, a malformed reply; not a private address, a redirect's scheme or TLS). A limit (`.overLimit`: a body
    /// over `--max-bytes`, too many redirects) and every other case are not. A batch whose every failure is
    /// transient exits 75 (EX_TEMPFAIL) so that a job array's retry policy can tell.
    public var isTransient: Bool {
        switch self {
        case .http(let status, _): status == 408 || status == 429 || (500..<600).contains(status)
        case .network(_, let cause): cause.isTransient
        default: false
        }
    }
}

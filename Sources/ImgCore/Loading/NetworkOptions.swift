import Foundation

/// How transfers are made; the defaults are those of the man page.
public struct NetworkOptions: Sendable {
    /// Extra request headers as libcurl takes them, each `Name: value` or `Name;` (empty value); default none.
    public var headers: [String] = []
    /// Default `imgfetch/VERSION`.
    public var userAgent = "imgfetch/\(Version.current)"
    /// Seconds for each attempt's whole transfer, in whole milliseconds rounded up (at least 1); default 30.
    public var timeout: Double = 30
    /// Seconds to connect, in whole milliseconds rounded up (at least 1); default 10.
    public var connectTimeout: Double = 10
    /// Retries after the first attempt for connection failures, timeouts, malformed replies, 408, 429 and 5xx, each
    /// on a new connection; default 2.
    public var retries = 2
    /// First back-off in seconds, doubled each retry; default 0.5.
    public var initialBackoff: Double = 0.5
    /// Redirects followed, only to http and https; default 5.
    public var maxRedirects = 5
    /// Send `headers` and the URL's user and password on redirects to another origin (scheme, host or port) too, as
    /// curl's `--location-trusted`; default false: they go only to the origin of the URL asked for.
    public var locationTrusted = false
    /// The proxy every transfer goes through (libcurl's CURLOPT_PROXY, as `ProxyAddress` checks it, "" for none;
    /// `NO_PROXY` does not apply to it);
    /// default nil: libcurl's `http_proxy`, `https_proxy`, `ALL_PROXY` and `NO_PROXY` from the environment, as curl.
    /// With `denyPrivateNetworks` no proxy is used, whatever this or the environment says.
    public var proxy: String?
    /// The largest body accepted, counted as it arrives (after decompression); default 64 MiB.
    public var maxBytes: Int64 = 64 << 20
    /// An extra CA bundle; certificates are always verified.
    public var caBundle: String?
    /// Refuse loopback, private, link-local and unique-local addresses on every hop (`AddressPolicy`), and use no proxy
    /// (a proxy would make the connection in our stead); default false.
    public var denyPrivateNetworks = false
    /// Called with received and total bytes (total nil when unknown) while the body arrives; default none.
    public var progress: (@Sendable (Int64, Int64?) -> Void)?
    /// Where bodies over `EncodedBytes.memoryLimit` are spooled while they arrive (an unnamed file, gone when the
    /// body is); default nil, `$TMPDIR`. The pipeline points it at the cache's `tmp/` when there is a disk cache.
    public var spoolDirectory: String?
    /// Whether a spooled body's integrity digest (XXH3-128) is computed as it arrives (for the disk cache's entry, sparing a second
    /// pass); default false. The pipeline turns it on when there is a disk cache.
    public var digestSpooledBodies = false
    /// Stops transfers when cancelled; default none.
    public var cancellation: Cancellation?
    /// Asked before each redirect is followed; what it throws ends the transfer, not retried. Default none.
    public var redirectJudge: RedirectJudge?

    public init() {}

    /// Seconds as the whole milliseconds libcurl takes (CURLOPT_TIMEOUT_MS, CURLOPT_CONNECTTIMEOUT_MS), rounded
    /// up and at least 1: 0 would mean no limit at all, so a limit under a millisecond must not round down to it.
    static func curlMilliseconds(_ seconds: Double) -> Int {
        let milliseconds = seconds * 1000
        let nearest = milliseconds.rounded()
        // 0.3 s is 300.00000000000006 ms in binary: that is 300, not 301.
        let whole = abs(milliseconds - nearest) < 1e-6 ? nearest : milliseconds.rounded(.up)
        return max(1, Int(min(whole, Double(Int32.max))))
    }

    /// The longest a fetch can take with every attempt and back-off: used to bound waits for other processes.
    public var worstCaseSeconds: Double {
        var total = 0.0, backoff = initialBackoff
        for attempt in 0...max(0, retries) {
            total += timeout + (attempt < retries ? min(30, backoff) : 0)
            backoff *= 2
        }
        return total
    }
}

import Foundation

/// Gets an original's bytes from a URL: `HTTPDataLoader` (libcurl) is the default
/// (`PipelineConfiguration.dataLoader`). Called from many threads at once; the pipeline calls it at most once per
/// original key in flight.
public protocol DataLoading: Sendable {
    /// Gets ready for a load that will probably follow (libcurl's library is opened). Default: nothing.
    func prepare()
    /// Loads `url`; with `validators`, a conditional request, answered by a 304 (`HTTPResponse.notModified`) when
    /// the cached copy is still valid. Throws `ImgError.network` or `.http` for a failed transfer.
    func load(_ url: URL, validators: Validators?) throws(ImgError) -> HTTPResponse
    /// Loads a host's `/robots.txt` as `load` loads an image (the same hosts' slots and turns, the same rules for
    /// each redirect) but following at most `robotsRedirects` redirects. Default: `load` without validators.
    func loadRobots(_ url: URL) throws(ImgError) -> HTTPResponse
}

extension DataLoading {
    public func prepare() {}

    public func loadRobots(_ url: URL) throws(ImgError) -> HTTPResponse { try load(url, validators: nil) }
}

/// The redirects followed to a robots.txt (RFC 9309: at least five), whatever `--max-redirects` says for images.
public let robotsRedirects = 5

/// Loads with libcurl: at most `connectionsPerHost` transfers at once per host, each on an idle handle of that host
/// when one is kept, so that its kept-alive connections serve the next URL. At most `keptIdle` idle handles are kept
/// (`IdleHandles`), so a list of many hosts keeps a bounded number of connections open.
public final class HTTPDataLoader: DataLoading {
    private let options: NetworkOptions
    private let hosts: HostLimiter
    /// Idle libcurl handles by host, so a handle's kept-alive connections stay with the host they were opened to.
    private let idleLoaders = IdleHandles<HTTPLoader>(capacity: HTTPDataLoader.keptIdle)
    /// The most idle libcurl handles kept, over all hosts: 64, ten times the default connections to one host in a
    /// batch (`--per-host 6`).
    static let keptIdle = 64

    /// `connectionsPerHost`: nil (the default) for no limit; `politeness`: requests per second per host and when to
    /// give a host up (default none of either), shared by every thread through one `HostGate` per host.
    public init(options: NetworkOptions, connectionsPerHost: Int? = nil, politeness: HostPoliteness = HostPoliteness()) {
        self.options = options
        hosts = HostLimiter(limit: connectionsPerHost, politeness: politeness)
    }

    /// Opens libcurl (once per process).
    public func prepare() {
        _ = HTTPLoader.openLibrary()
    }

    public func load(_ url: URL, validators: Validators?) throws(ImgError) -> HTTPResponse {
        // Each hop takes its own host's slot and turn (a redirect to another host is that host's request); the first
        // host's slot is taken before a handle is lent.
        let turns = HostTurns(hosts: hosts, holdsSlots: true, url: url)
        defer { turns.finish() }
        return try withLoader(host: HostLimiter.hostKey(url)) { loader throws(ImgError) in
            try loader.fetch(url, validators: validators, turns: turns)
        }
    }

    /// Loads a robots.txt on a handle of its own (once per host and run), in its hosts' turns but outside their
    /// connection slots: a redirect's target is judged by its host's robots.txt while the transfer that led there
    /// holds a slot of its own host, and two such transfers waiting for each other's host would never end.
    public func loadRobots(_ url: URL) throws(ImgError) -> HTTPResponse {
        var robotsOptions = options
        robotsOptions.maxRedirects = robotsRedirects
        robotsOptions.redirectJudge = nil
        return try HTTPLoader(options: robotsOptions).fetch(url, turns: HostTurns(hosts: hosts, holdsSlots: false, url: url))
    }

    /// Lends an idle libcurl handle of this host (keeping its connections alive for the next URL), or makes one.
    private func withLoader<T>(host: String, _ body: (HTTPLoader) throws(ImgError) -> T) throws(ImgError) -> T {
        let idle = idleLoaders.take(for: host)
        let loader = if let idle { idle } else { try HTTPLoader(options: options) }
        defer { idleLoaders.give(loader, for: host) }
        return try body(loader)
    }
}

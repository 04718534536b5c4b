/// One image to produce: where it comes from, how to process it and how to encode it.
public struct ImageRequest: Sendable {
    public var source: ImageSource
    /// Default: no steps.
    public var chain = ProcessingChain()
    public var encoding = OutputEncoding()
    public var decoding = DecodeOptions()
    /// Which of the URL's query parameters the key keeps; default none.
    public var query: QueryInKey = .none
    /// The command asked for no change (no processing, no encoding or frame option): with no step, a source already in
    /// the output format (any, when `encoding.format` is nil) is written as its own bytes, as `curl -o` writes them,
    /// its metadata kept; it is still decoded whole once to check it. Default false (always re-encoded).
    public var keepsSourceBytes = false
    /// Overrides the original key outright; default nil.
    public var cacheKey: String?
    /// The chains of all the variants made from this input together (batch `--variant`), this one's included.
    /// With more than one, variants that load a still input alike share one load (`SharedDecode`), with the bytes
    /// each gets alone; default none. It doesn't enter the keys.
    public var decodedTogetherWith: [ProcessingChain] = []
    /// Compute the facts of the variant (`--facts`) and keep them with it in the cache; default nil (none). It
    /// doesn't enter the keys: a cached variant whose stored facts don't answer it is rendered again.
    public var facts: FactsRequest?
    /// The `X-Robots-Tag` directives that keep a remote original from being used (`--disallow-robots-tags`): a
    /// response (or cached original, or variant) whose headers carry one for this crawler is
    /// `ImgError.siteRefusal`, nothing made or written of it; default nil (the header is not looked at). It doesn't
    /// enter the keys.
    public var robotsTags: RobotsTagRule?

    public init(source: ImageSource) {
        self.source = source
    }

    /// The URL its cache entries record (`cache inspect` shows it): the full URL it was fetched from, query
    /// included, without user info (so no password) or fragment, whatever `cacheKey` says; a local file's path;
    /// `-` for standard input.
    public var storedURL: String {
        guard case .remote(let url) = source else { return source.description }
        return URLCredentials.removingUserInfo(from: url)
    }

    /// The variant identifier: chain and encoding, as the variant key and `-v` show it.
    public var variantIdentifier: String {
        if passesSourceBytes {
            return "original@unchanged" + (encoding.format == nil ? "" : "-else-" + encoding.identifier(decoding: decoding))
        }
        return "\(chain.isEmpty ? "original" : chain.identifier)@\(encoding.identifier(decoding: decoding))"
    }

    /// Whether a source in the output format is written as its own bytes (`keepsSourceBytes` and no step).
    public var passesSourceBytes: Bool { keepsSourceBytes && chain.isEmpty }

    /// Why an image whose original was sent the `X-Robots-Tag` headers `tags` may not be used, or nil: nil
    /// without `robotsTags`, for a local source, or for headers not known (see `knowsRobotsTags`).
    func robotsRefusal(_ tags: [String]?) -> SiteRefusal? {
        guard let robotsTags, source.isRemote, let tags, let match = robotsTags.match(tags) else { return nil }
        return .robotsTag(match)
    }

    /// Whether a cached image whose original was sent `tags` can be judged: its headers were recorded, or they
    /// don't matter. One that can't (cached before they were recorded) is not served: its original is fetched again.
    func knowsRobotsTags(_ tags: [String]?) -> Bool {
        robotsTags == nil || !source.isRemote || tags != nil
    }
}

/// Where a result came from, as `-v` and `--json` report it.
public enum ResponseSource: String, Sendable {
    case memory, disk, diskOriginal = "disk-original", revalidated, network, local
}

/// A produced image and how it was produced.
public struct ImageResponse: Sendable {
    /// The encoded image and what is known about it.
    public var image: ImagePayload
    public var source: ResponseSource
    public var originalKey: String?
    public var variantKey: String?
    /// Things `-v` prints: e.g. that animation was dropped.
    public var notes: [String] = []
    /// The encoder settings given that the format has no use for, which `-v` notes too.
    public var ignoredSettings: [IgnoredSetting] = []
    /// Non-fatal problems, printed even without `-v`: e.g. that the cache could not be written.
    public var warnings: [String] = []
    /// The URL recorded by the cache entry that served it, when its query differs from the request's (the key
    /// drops the query, so the entry may be another image's); nil otherwise.
    public var recordedURL: String?
    /// Whether it was served from an entry recorded for a URL with another query (`recordedURL`).
    public var queryDiffers: Bool { recordedURL != nil }
    /// Why the disk cache could not keep what this request downloaded or made (the original or the variant: a
    /// full or read-only cache, an entry over the size limit); nil when it did or had nothing to keep. A warning
    /// says so once a run; a prefetch, whose only work is to fill the cache, fails the line.
    public var storeFailure: ImgError?
}


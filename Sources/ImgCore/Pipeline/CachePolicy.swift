import Foundation

/// How a request uses the caches (Kingfisher's options).
public struct CachePolicy: Sendable, Equatable {
    /// Download again and replace what is cached; default false.
    public var forceRefresh = false
    /// Never use the network: a miss is `ImgError.notCached`; default false.
    public var onlyFromCache = false
    /// No disk reads or writes, memory only; default false.
    public var memoryOnly = false
    /// No cache at all; default false.
    public var noCache = false
    /// The disk cache must be usable (a prefetch, whose only work is to fill it): one that can't be opened is an
    /// error, as with `onlyFromCache`, not a warning; default false.
    public var requiresDisk = false

    public init() {}

    public var usesDisk: Bool { !memoryOnly && !noCache }
    var usesMemory: Bool { !noCache }
}

/// What every request of one pipeline shares.
public struct PipelineConfiguration: Sendable {
    public var network = NetworkOptions()
    public var policy = CachePolicy()
    /// Time to live of entries written; default 7 days.
    public var ttl = TimeToLive.defaultValue
    /// Memory cache bound in bytes; default 256 MiB.
    public var memoryLimit = 256 << 20
    /// The disk cache directory; nil when the policy uses no disk.
    public var cacheDirectory: String?
    /// That directory opened already (`CacheRoot.open`: checked from `/` down, then used through its descriptor),
    /// so that the process works in the directory it checked; nil (the default): the pipeline opens (and creates)
    /// `cacheDirectory` itself.
    public var cacheRoot: CacheRoot?
    /// The disk cache's size limit, kept during a batch or prefetch as it writes; default
    /// `CacheSettings.defaultSizeLimit` (1 GiB), nil for none.
    public var sizeLimit: Int64? = CacheSettings.defaultSizeLimit
    /// Transfers at once to one host (`scheme://host:port`); nil (the default) for no limit. Idle connections are
    /// pooled per host as well, so no more than this many are ever open to one host.
    public var connectionsPerHost: Int?
    /// Requests per second per host and when to give a host up; default none of either. A `Retry-After` on a 429 or
    /// 503 pauses its host for every thread whenever a gate is in use (a rate or giving up is set).
    public var politeness = HostPoliteness()
    /// Renderings (decode, process, encode) at once across all threads; default `defaultRenderingSlots`.
    public var renderingSlots = PipelineConfiguration.defaultRenderingSlots

    /// One more than the active cores: threads waiting on the network and threads using the CPU overlap, and a
    /// rendering in a part that runs on one thread (libjpeg, libspng and libwebp each decode a file in one thread;
    /// libvips' other threads wait for its rows) leaves no core idle (docs/BENCHMARKS.md has the measurements).
    public static var defaultRenderingSlots: Int { ProcessInfo.processInfo.activeProcessorCount + 1 }
    /// Threads libvips gives each rendering's pixels (its thread pool's size for that image); nil (the default)
    /// for libvips' own number (`VIPS_CONCURRENCY`, else one per core), right for a rendering alone. A batch sets it
    /// with `threadsPerRendering(renderingsAtOnce:)`.
    public var threadsPerRendering: Int?

    /// The cores shared among `renderingsAtOnce` renderings, at least one thread each; nil when one rendering at
    /// a time (or as many cores as renderings) leaves libvips' default as it is. Renderings that each decode in one
    /// thread (libjpeg, libpng, libwebp) already fill the cores when there are more of them than cores; a second
    /// libvips thread per rendering then only waits for the decoder's rows: `make bench`'s photo workloads measure
    /// the effect (docs/BENCHMARKS.md, "one libvips thread per rendering in a batch").
    public static func threadsPerRendering(renderingsAtOnce: Int,
                                           cores: Int = ProcessInfo.processInfo.activeProcessorCount) -> Int? {
        let share = max(1, cores / max(1, renderingsAtOnce))
        return share < cores ? share : nil
    }
    /// What makes variants (decode, process, encode); default `InProcessRendering`, libvips in this process.
    /// `WarmRendering` hands them to a warm renderer process when one is running.
    public var rendering: any ImageRendering = InProcessRendering()
    /// Hears the warning when two inputs of this pipeline differ only in the query their key drops
    /// (`QueryCollisionWatch`), once per key, as soon as the second one's key is computed; nil (the default): no watch.
    public var queryCollisions: (@Sendable (QueryCollision) -> Void)?
    /// What loads originals from URLs; nil (the default) for `HTTPDataLoader` (libcurl) with `network` and
    /// `connectionsPerHost`, spooling large bodies into the entry store's `spoolDirectory`.
    public var dataLoader: (any DataLoading)?
    /// Where entries are kept across runs when the policy uses the disk; nil (the default) for a `DiskCache` in
    /// `cacheDirectory`.
    public var entryStore: (any EntryStoring)?
    /// The memory cache; nil (the default) for a `MemoryCache` of `memoryLimit` bytes.
    public var memoryCache: (any ImageCaching)?
    /// Which originals and variants memory keeps; default `KeepEverything` (a plain LRU). A batch gives
    /// `BatchMemoryPolicy`.
    public var memoryPolicy: any MemoryPolicy = KeepEverything()

    public init() {}
}

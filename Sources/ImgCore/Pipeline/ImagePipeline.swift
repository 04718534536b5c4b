import Foundation

/// The one entry point. It runs a request through its stages, none of which calls back into another: the cached
/// variant (memory, then the entry store), `OriginalFetcher` (*fetch original*: memory, store, download; publishes
/// the original and releases the download lock), `VariantMaker` (*make variant*: decode, process, encode) and
/// `VariantWriter` (*write through*). Thread-safe; equal requests in flight share one download and one rendering.
public final class ImagePipeline: Sendable {
    public let configuration: PipelineConfiguration
    let memory: any ImageCaching
    let store: (any EntryStoring)?
    let originals: OriginalFetcher
    let variants: VariantMaker
    let writer: VariantWriter
    /// Each host's robots.txt, had once a run (`--robots-txt`; asked only by a batch that honours it).
    let robots: RobotsTxtGate
    /// Asked before each redirect the pipeline's own loader follows; allows all until `judgeRedirectsByRobotsTxt`.
    private let redirectJudge = RedirectJudge()
    /// Inputs decoded once for several variants (what `SharedDecode` reuses).
    var decodedImages: DecodedImageCache { variants.decodedImages }
    /// Inputs met so far, to warn about keys that would collide (`PipelineConfiguration.queryCollisions`).
    private let collisions = QueryCollisionWatch()
    /// Keys whose cache entries were found recorded for a URL with another query, warned about once each.
    let recordedQueryWarnings = WarnedKeys()
    /// Problems found while opening the pipeline that don't stop it, e.g. a cache directory that can't be created.
    public let warnings: [String]

    /// Opens the entry store when the policy uses the disk; an unusable cache directory is `ImgError.io`.
    public init(configuration: PipelineConfiguration) throws(ImgError) {
        self.configuration = configuration
        memory = configuration.memoryCache ?? MemoryCache(limit: configuration.memoryLimit)
        var warnings: [String] = []
        if !configuration.policy.usesDisk {
            store = nil
        } else if let given = configuration.entryStore {
            store = given
        } else if let directory = configuration.cacheDirectory, configuration.policy.onlyFromCache,
                  configuration.cacheRoot == nil, !FileManager.default.fileExists(atPath: directory) {
            // Only the cache may answer, and there is none: nothing to read, and none is made.
            store = nil
        } else if let directory = configuration.cacheDirectory {
            do {
                let disk: DiskCache
                if let root = configuration.cacheRoot { disk = try DiskCache(root: root) } else { disk = try DiskCache(directory: directory) }
                // An entry larger than the size limit allows is never stored, by any command.
                if let limit = configuration.sizeLimit { disk.refuseEntries(largerThan: CacheBound.largestEntry(underLimit: limit)) }
                store = disk
            } catch {
                // Refusals (unsafe directory) always fail; an unwritable cache only where it is required.
                guard case .cacheUnavailable(let message) = error, !configuration.policy.onlyFromCache,
                      !configuration.policy.requiresDisk else { throw error }
                store = nil
                warnings.append("caching disabled: \(message)")
            }
        } else {
            store = nil
        }
        self.warnings = warnings
        // Large bodies are spooled into the store (and hashed as they arrive), so that they become entries by rename.
        var network = configuration.network
        if let store, let spool = store.spoolDirectory {
            if network.spoolDirectory == nil { network.spoolDirectory = spool }
            network.digestSpooledBodies = true
        }
        network.redirectJudge = redirectJudge
        let loader = configuration.dataLoader
            ?? HTTPDataLoader(options: network, connectionsPerHost: configuration.connectionsPerHost,
                               politeness: configuration.politeness)
        let failureWarning = CacheWriteWarning()
        originals = OriginalFetcher(configuration: configuration, memory: memory, store: store, loader: loader,
                                    spoolDirectory: network.spoolDirectory, failureWarning: failureWarning)
        variants = VariantMaker(rendering: configuration.rendering, slots: configuration.renderingSlots,
                                threadsPerRendering: configuration.threadsPerRendering,
                                cancellation: configuration.network.cancellation)
        writer = VariantWriter(configuration: configuration, memory: memory, store: store, failureWarning: failureWarning)
        robots = RobotsTxtGate(loader: loader, store: store, policy: configuration.policy, ttl: configuration.ttl,
                               userAgent: configuration.network.userAgent, cancellation: configuration.network.cancellation)
    }

    /// Judges every redirect of this pipeline's transfers by the target host's robots.txt (`--robots-txt`): a
    /// target it disallows is not requested, and the fetch fails with the site's refusal (`robots_disallowed`).
    public func judgeRedirectsByRobotsTxt() {
        let gate = robots
        redirectJudge.use { target throws(ImgError) in
            if let verdict = try gate.verdict(for: target) { throw .siteRefusal(.robotsTxt(verdict)) }
        }
    }

    /// The original key of a request (what `--shard` hashes), or nil for standard input.
    /// Every key computed here is watched for inputs that would collide (`PipelineConfiguration.queryCollisions`).
    public func originalKey(for request: ImageRequest) throws(ImgError) -> String? {
        let key = try originals.originalKey(for: request)
        if let key, let listener = configuration.queryCollisions, let warning = collisions.note(request, key: key) {
            // One warning a key: an entry found recorded for another query later says the same.
            _ = recordedQueryWarnings.firstTime(key)
            listener(warning)
        }
        return key
    }

    /// From now on (a batch or prefetch that writes as it runs), the disk cache is kept within its size limit,
    /// sparing the originals that `needed` names (the batch's pending uses).
    func keepCacheWithinLimit(sparing needed: @escaping @Sendable () -> [String]) {
        guard let store, let limit = configuration.sizeLimit else { return }
        store.keepWithin(limit: limit, sparingOriginals: needed)
    }

    /// From now on (a batch), large entries leave the page cache once written
    /// (`EntryStoring.releasePagesOfLargeEntries`).
    func releasePagesOfLargeEntries() {
        store?.releasePagesOfLargeEntries()
    }

    /// At the end of a batch: the disk cache ends at or under its size limit, its large entries' pages released.
    func settleCache() {
        store?.settle()
    }

    /// Drops the original under `key` from memory (a batch's last use of it is over).
    func forgetOriginal(_ key: String) {
        memory.remove(forKey: CacheKey.inMemory(original: key))
    }

    /// Makes sure the original of `request` is cached, in memory and on disk as the policy allows, without storing
    /// any variant (prefetch of originals). A fresh download is then validated by a small throw-away rendering
    /// (a 16-pixel thumbnail: the whole image is read, so that a corrupt or truncated one fails and is withdrawn).
    /// The response carries the original's bytes; its source says where they came from.
    public func prefetchOriginal(for request: ImageRequest) throws(ImgError) -> ImageResponse {
        try prefetchOriginal(for: request, originalKey: try self.originalKey(for: request))
    }

    /// `prefetchOriginal(for:)` with the request's original key already worked out (`originalKey(for:)`: a batch's
    /// line, once for all its outputs).
    func prefetchOriginal(for request: ImageRequest, originalKey: String?) throws(ImgError) -> ImageResponse {
        let fetched = try originals.fetch(request, key: originalKey)
        if let refusal = request.robotsRefusal(fetched.image.robotsTags) { throw .siteRefusal(refusal) }
        var image = fetched.image
        if fetched.source == .network {
            var probe = request
            probe.chain = try ProcessingChain.parse("resize(16x16)")
            probe.encoding = OutputEncoding.probe(of: fetched.image.format)
            let rendered = try makeVariant(probe, from: fetched, originalKey: originalKey, variantKey: nil).image
            if image.width == nil, let size = rendered.sourceSize { (image.width, image.height) = (size.width, size.height) }
        }
        var response = ImageResponse(image: image, source: fetched.reportedSource, originalKey: originalKey, variantKey: nil)
        response.warnings = fetched.warnings
        response.storeFailure = fetched.storeFailure
        if let originalKey { noteRecordedURL(fetched.recordedURL, for: request, originalKey: originalKey, in: &response) }
        if image.noStore, store != nil { response.notes.append(ImagePipeline.noStoreNote) }
        return response
    }

    /// Produces the image a request asks for.
    public func image(for request: ImageRequest) throws(ImgError) -> ImageResponse {
        try image(for: request, originalKey: try self.originalKey(for: request))
    }

    /// What `-v` says when a response may not be kept.
    static let noStoreNote = "not written to the disk cache: the server sent Cache-Control: no-store"
}

extension ImagePayload {
    init(entry: CacheEntryMetadata, body: EncodedBytes) {
        self.init(bytes: body, format: entry.format.flatMap(ImageFormat.init(rawValue:)), width: entry.width,
                  height: entry.height, validators: Validators(etag: entry.etag, lastModified: entry.lastModified),
                  contentType: entry.contentType)
        damage = entry.damage
        facts = entry.facts
        checkedAt = entry.checkedAt
        recordedURL = entry.url
        robotsTags = entry.robotsTags
        chosen = entry.chosen
        notes = entry.notes ?? []
        if let width = entry.sourceWidth, let height = entry.sourceHeight { sourceSize = (width, height) }
    }
}

extension CacheEntryMetadata {
    /// Whether a rendering's note stays true of its variant whatever serves it (`VariantNote`: what was read or
    /// written). Others tell of the making only (a quality or format search, whose choice `chosen` gives on a hit;
    /// the warm renderer that made it).
    static func keeps(note: String) -> Bool { VariantNote.isOne(note) }

    /// `digest` (XXH3-128) may be given when it was computed already; by default it is computed here.
    init(url: String, key: String, variant: String?, kind: Kind, body: ImagePayload, ttl: TimeToLive, digest: String? = nil) {
        let seconds: Int64? = if case .seconds(let value) = ttl { value } else { nil }
        self.init(url: url, key: key, variant: variant, kind: kind, size: body.bytes.count, xxh3: digest ?? body.bytes.integrityDigest,
                  format: body.format?.rawValue, width: body.width, height: body.height,
                  created: Date().timeIntervalSince1970, ttl: seconds, etag: body.validators?.etag,
                  lastModified: body.validators?.lastModified, contentType: body.contentType)
        facts = body.facts
        robotsTags = body.robotsTags
        chosen = body.chosen
        let kept = kind == .variant ? body.notes.filter(Self.keeps(note:)) : []
        if !kept.isEmpty { notes = kept }
        (sourceWidth, sourceHeight) = (body.sourceSize?.width, body.sourceSize?.height)
    }
}

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
        } else if let directory = configuration.cacheDirectory {
            do {
                if let root = configuration.cacheRoot { store = try DiskCache(root: root) } else { store = try DiskCache(directory: directory) }
            } catch {
                // Refusals (unsafe directory) always fail; an unwritable cache only where it is required.
                guard case .cacheUnavailable(let message) = error, !configuration.policy.onlyFromCache else { throw error }
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
            probe.encoding = OutputEncoding(format: .png)
            let rendered = try makeVariant(probe, from: fetched, originalKey: originalKey, variantKey: nil).image
            if image.width == nil, let size = rendered.sourceSize { (image.width, image.height) = (size.width, size.height) }
        }
        var response = ImageResponse(image: image, source: fetched.source, originalKey: originalKey, variantKey: nil)
        response.warnings = fetched.warnings
        if image.noStore, store != nil { response.notes.append(ImagePipeline.noStoreNote) }
        return response
    }

    /// Produces the image a request asks for.
    public func image(for request: ImageRequest) throws(ImgError) -> ImageResponse {
        try image(for: request, originalKey: try self.originalKey(for: request))
    }

    /// `image(for:)` for a request whose encoding names its format (`encodingResolved`): `original` is the original
    /// when it was fetched already (to learn the source format), else it is fetched here if the variant misses.
    func image(forResolved request: ImageRequest, originalKey: String?,
               original fetchedOriginal: OriginalFetcher.Fetched?) throws(ImgError) -> ImageResponse {
        let policy = configuration.policy
        let keys = VariantKeys(of: request, originalKey: originalKey)
        var response = ImageResponse(image: ImagePayload(data: Data(), format: nil), source: .network,
                                     originalKey: originalKey, variantKey: keys.key)

        // docs/DESIGN.md steps 1-2: the variant itself, in memory, then in the store. Under --fail-on none, a variant made
        // from a damaged input is under its own key: looked for second.
        // An expired variant is kept to be served as it is if its original turns out unchanged (a 304).
        var expiredVariant: (entry: EntryName, key: String, metadata: CacheEntryMetadata, body: EncodedBytes)?
        let candidates = keys.candidates(includingDamaged: request.decoding.failOn == .none)
        for variantKey in candidates where !policy.forceRefresh && expiredVariant == nil {
            guard let originalKey else { break }
            response.variantKey = variantKey
            if policy.usesMemory, let hit = memory.value(forKey: variantKey), request.answers(hit.facts),
               request.trustsCheck(at: hit.checkedAt), request.knowsRobotsTags(hit.robotsTags) {
                if let refusal = request.robotsRefusal(hit.robotsTags) { throw .siteRefusal(refusal) }
                response.image = hit
                response.source = .memory
                noteRecordedURL(hit.recordedURL, for: request, originalKey: originalKey, in: &response)
                return response
            }
            if let store {
                let entry = EntryName.variant(originalKey: originalKey, variantKey: variantKey)
                switch store.lookup(entry, inPlace: false) {
                case .fresh(let metadata, let body) where request.serves(metadata):
                    if let refusal = request.robotsRefusal(metadata.robotsTags) { throw .siteRefusal(refusal) }
                    store.touch(entry, ttl: metadata.ttl)
                    response.image = ImagePayload(entry: metadata, body: body)
                    response.source = .disk
                    noteRecordedURL(metadata.url, for: request, originalKey: originalKey, in: &response)
                    writer.keepInMemory(response.image, variantKey: variantKey, storeWillServe: true)
                    return response
                case .expired(let metadata, let body) where request.serves(metadata):
                    expiredVariant = (entry, variantKey, metadata, body)
                case .fresh, .expired, .missing:
                    // A variant without the facts asked for, checked at a laxer --fail-on level than this request's, or
                    // without its original's X-Robots-Tag when they matter, is rendered again from its original.
                    break
                }
            }
        }
        response.variantKey = keys.key

        // The variant must be made: the loader and the rendering get ready beside the reading or downloading of the
        // original (not with --only-from-cache, where a miss may end the run before anything is decoded, nor when
        // an expired variant is there: its original, revalidated, may well be unchanged).
        if !policy.onlyFromCache, expiredVariant == nil, fetchedOriginal == nil {
            // libcurl first: the dynamic loader opens one library at a time, and the download must not wait for libvips.
            originals.prepare(for: request)
            configuration.rendering.prepare()
        }
        let original: OriginalFetcher.Fetched
        if let fetchedOriginal { original = fetchedOriginal } else { original = try originals.fetch(request, key: originalKey) }
        // A cached original opted out (one just downloaded was refused before it was kept).
        if let refusal = request.robotsRefusal(original.image.robotsTags) { throw .siteRefusal(refusal) }
        response.source = original.source
        response.warnings = original.warnings
        if let originalKey { noteRecordedURL(original.recordedURL, for: request, originalKey: originalKey, in: &response) }

        if original.source == .revalidated, let expiredVariant, let store {
            // The original is unchanged: so is the variant made from it.
            store.touch(expiredVariant.entry, ttl: expiredVariant.metadata.ttl)
            response.image = ImagePayload(entry: expiredVariant.metadata, body: expiredVariant.body)
            response.variantKey = expiredVariant.key
            writer.keepInMemory(response.image, variantKey: expiredVariant.key, storeWillServe: true)
            return response
        }
        var (made, isOwner) = try makeVariant(request, from: original, originalKey: originalKey, variantKey: keys.key)
        made.robotsTags = original.image.robotsTags
        response.image = made
        response.notes = made.notes
        let stored = keys.stored(damaged: made.damage != nil)
        response.variantKey = stored.key
        if original.image.noStore, store != nil { response.notes.append(ImagePipeline.noStoreNote) }
        if let originalKey, let storedKey = stored.key, isOwner {
            response.warnings += writer.write(made, of: request, originalKey: originalKey,
                                              variant: (stored.identifier, storedKey), noStore: original.image.noStore)
        }
        return response
    }

    /// Runs *make variant*; when it fails on an original just downloaded, the original is withdrawn from the caches,
    /// so that nothing is cached for a request that fails.
    private func makeVariant(_ request: ImageRequest, from original: OriginalFetcher.Fetched, originalKey: String?,
                             variantKey: String?) throws(ImgError) -> (image: ImagePayload, isOwner: Bool) {
        do {
            return try variants.make(request, from: original.image, inspected: original.inspected, originalKey: originalKey,
                                     variantKey: variantKey)
        } catch {
            guard original.source == .network else { throw error }
            if let originalKey { originals.withdraw(originalKey: originalKey) }
            throw OriginalFetcher.explain(error, contentType: original.image.contentType)
        }
    }

    /// What `-v` says when a response may not be kept.
    static let noStoreNote = "not written to the disk cache: the server sent Cache-Control: no-store"
}

extension ImageRequest {
    /// Whether a cached variant with `facts` serves this request: always without `facts`; with it, when the
    /// stored facts have the BlurHash components asked for.
    func answers(_ facts: ImageFacts?) -> Bool {
        self.facts.map { $0.isAnswered(by: facts) } ?? true
    }

    /// Whether a cached variant checked at `level` may serve this request: when it was checked at least as strictly
    /// as `decoding.failOn` asks. `none` checks a variant under the plain key as `truncated` does (truncated or
    /// corrupt data puts a `none` result under the damaged variant's key), so both count as `truncated`; a variant
    /// stored before levels were recorded (nil) was checked at `truncated`.
    func trustsCheck(at level: FailOn?) -> Bool {
        max(level ?? .truncated, .truncated) >= max(decoding.failOn, .truncated)
    }

    /// Whether a cached variant's entry serves this request: the facts asked for, checked strictly enough, its
    /// original's `X-Robots-Tag` known when they matter.
    func serves(_ entry: CacheEntryMetadata) -> Bool {
        answers(entry.facts) && trustsCheck(at: entry.checkedAt) && knowsRobotsTags(entry.robotsTags)
    }
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
    }
}

extension CacheEntryMetadata {
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
    }
}

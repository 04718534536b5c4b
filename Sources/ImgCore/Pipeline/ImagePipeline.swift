import Foundation

/// The one entry point: memory cache, disk cache (variant, then original), download, decode, process, encode,
/// then write-through to both caches. Thread-safe; equal requests in flight share one download and one rendering.
public final class ImagePipeline: Sendable {
    public let configuration: PipelineConfiguration
    let memory: MemoryCache
    let disk: DiskCache?
    let originals: OriginalSource
    /// Problems found while opening the pipeline that don't stop it, e.g. a cache directory that can't be created.
    public let warnings: [String]
    private let renderings = InFlightTasks<CachedImage>()
    /// Inputs decoded once for several variants (`ImageRequest.decodedTogetherWith`), until their last use.
    let decodedImages = DecodedImageCache()
    /// The uses of originals a batch announced (`BatchRunner`): which originals and variants memory keeps meanwhile.
    let demand = OriginalDemand()
    /// Bounds renderings at once to `configuration.renderingSlots`; taken only by the thread doing the work.
    private let renderingSlots: DispatchSemaphore
    /// Inputs met so far, to warn about keys that would collide (`PipelineConfiguration.queryCollisions`).
    private let collisions = QueryCollisionWatch()
    /// Bounds the decode memory of renderings at once to `--max-decode-memory`, however many threads render.
    private let decodeBudget = DecodeMemoryBudget()

    /// Opens the disk cache when the policy uses it; an unusable cache directory is `ImgError.io`.
    public init(configuration: PipelineConfiguration) throws(ImgError) {
        self.configuration = configuration
        memory = MemoryCache(limit: configuration.memoryLimit)
        renderingSlots = DispatchSemaphore(value: max(1, configuration.renderingSlots))
        var warnings: [String] = []
        if configuration.policy.usesDisk, let directory = configuration.cacheDirectory {
            do {
                disk = try DiskCache(directory: directory)
            } catch {
                // Refusals (unsafe directory) always fail; an unwritable cache only where it is required.
                guard case .cacheUnavailable(let message) = error, !configuration.policy.onlyFromCache else { throw error }
                disk = nil
                warnings.append("caching disabled: \(message)")
            }
        } else {
            disk = nil
        }
        self.warnings = warnings
        originals = OriginalSource(configuration: configuration, memory: memory, disk: disk, demand: demand)
    }

    /// Makes the memory cache keep only what a batch will use again, from now on: an original while uses of it that
    /// the batch announced (`expectUses`) are pending, and a variant only when the disk cache won't hold it for a
    /// later line (no disk cache, or `Cache-Control: no-store`). Called once by a batch before it starts.
    /// The disk cache is kept within its size limit from then on, sparing the originals of pending uses.
    func keepOnlyWhatIsAnnounced() {
        demand.activate()
        if let disk, let limit = configuration.sizeLimit {
            disk.keepWithin(limit: limit) { [demand] in Set(demand.pendingKeys().map(DiskCache.entryFolder(originalKey:))) }
        }
    }

    /// At the end of a batch: the disk cache ends at or under its size limit.
    func settleCache() {
        disk?.settleWithinLimit()
    }

    /// Announces `count` more uses (outputs of a line read ahead) of the original under `key`.
    func expectUses(ofOriginal key: String, count: Int) {
        demand.expect(key, count: count)
    }

    /// Ends `count` announced uses of the original under `key`; after the last, it leaves the memory cache.
    func finishUses(ofOriginal key: String, count: Int) {
        if demand.finish(key, count: count) { memory.remove(forKey: CacheKey.inMemory(original: key)) }
    }

    /// Whether a variant just made or read goes into the memory cache: when the policy uses memory and, in a batch,
    /// when no disk cache entry will serve a later line naming it.
    private func keepsVariantInMemory(diskWillServe: Bool) -> Bool {
        configuration.policy.usesMemory && !(demand.isActive && diskWillServe)
    }

    /// The original key of a request (what `--shard` hashes), or nil for standard input.
    /// Every key computed here is watched for inputs that would collide (`PipelineConfiguration.queryCollisions`).
    public func originalKey(for request: ImageRequest) throws(ImgError) -> String? {
        let key = try originals.originalKey(for: request)
        if let key, let listener = configuration.queryCollisions, let warning = collisions.note(request, key: key) {
            listener(warning)
        }
        return key
    }

    /// Makes sure the original of `request` is cached, in memory and on disk as the policy allows, without storing
    /// any variant (prefetch of originals). A fresh download is first validated by a small throw-away rendering
    /// (a 16-pixel thumbnail: the whole image is read, so a corrupt or truncated one fails and nothing is cached).
    /// The response carries the original's bytes; its source says where they came from.
    public func prefetchOriginal(for request: ImageRequest) throws(ImgError) -> ImageResponse {
        let originalKey = try self.originalKey(for: request)
        let validation = try ProcessingChain.parse("resize(16x16)")
        let loaded = try originals.load(request, key: originalKey) { original throws(ImgError) in
            var probe = request
            probe.chain = validation
            probe.encoding = OutputEncoding(format: .png)
            return try self.render(probe, original: original, originalKey: nil, variantKey: nil)
        }
        var image = loaded.image
        if image.width == nil, let size = loaded.rendered?.sourceSize { (image.width, image.height) = (size.width, size.height) }
        var response = ImageResponse(data: image, source: loaded.source, originalKey: originalKey, variantKey: nil)
        response.warnings = loaded.warnings
        if image.noStore, disk != nil { response.notes.append(ImagePipeline.noStoreNote) }
        return response
    }

    /// Produces the image a request asks for.
    public func image(for request: ImageRequest) throws(ImgError) -> ImageResponse {
        let policy = configuration.policy
        let originalKey = try self.originalKey(for: request)
        let variantKey = originalKey.map { CacheKey.variant(original: $0, variantIdentifier: request.variantIdentifier) }
        var response = ImageResponse(data: CachedImage(data: Data(), format: nil), source: .network,
                                     originalKey: originalKey, variantKey: variantKey)

        // An expired variant, kept to be served as it is if its original turns out unchanged (a 304).
        var expiredVariant: (path: String, key: String, metadata: CacheEntryMetadata, body: EncodedBytes)?
        // Under --fail-on none, a variant made from a damaged input is under its own key: looked for second.
        let damagedKey = originalKey.map { CacheKey.variant(original: $0, variantIdentifier: request.damagedVariantIdentifier) }
        let candidates = [variantKey] + (request.decoding.failOn == .none ? [damagedKey] : [])
        for case let variantKey? in candidates where originalKey != nil && !policy.forceRefresh && expiredVariant == nil {
            guard let originalKey else { break }
            response.variantKey = variantKey
            if policy.usesMemory, let hit = memory.value(forKey: variantKey), request.answers(hit.facts) {
                response.data = hit
                response.source = .memory
                return response
            }
            if let disk {
                let path = disk.variantPath(originalKey: originalKey, variantKey: variantKey)
                switch disk.lookup(at: path, key: variantKey) {
                case .fresh(let metadata, let body) where request.answers(metadata.facts):
                    disk.touch(path, ttl: metadata.ttl)
                    response.data = CachedImage(entry: metadata, body: body)
                    response.source = .disk
                    if keepsVariantInMemory(diskWillServe: true) { memory.store(response.data, forKey: variantKey) }
                    return response
                case .expired(let metadata, let body) where request.answers(metadata.facts):
                    expiredVariant = (path, variantKey, metadata, body)
                case .fresh, .expired, .missing:
                    // A variant without the facts asked for is rendered again from its original.
                    break
                }
            }
        }
        response.variantKey = variantKey

        // The variant must be made: by the warm renderer when one runs (connected to only once the input is here, so
        // that a long download holds no connection), else here, with libvips loading beside the reading or
        // downloading of the original (not with --only-from-cache, where a miss may end the run before anything is
        // decoded), nor when an expired variant is there (its original, revalidated, may well be unchanged).
        if !policy.onlyFromCache, expiredVariant == nil {
            // libcurl first: the dynamic loader opens one library at a time, and the download must not wait for libvips.
            if request.source.isRemote { HTTPLoader.openLibrary() }
            configuration.renderer.prepare()
        }
        let original = try originals.load(request, key: originalKey) { original throws(ImgError) in
            // Runs while the download lock is held: render before the original is published,
            // so that nothing is cached for a request that fails.
            try self.render(request, original: original, originalKey: originalKey, variantKey: variantKey)
        }
        response.source = original.source
        response.warnings = original.warnings

        if original.source == .revalidated, let expiredVariant, let disk {
            // The original is unchanged: so is the variant made from it.
            disk.touch(expiredVariant.path, ttl: expiredVariant.metadata.ttl)
            response.data = CachedImage(entry: expiredVariant.metadata, body: expiredVariant.body)
            response.variantKey = expiredVariant.key
            if keepsVariantInMemory(diskWillServe: true) { memory.store(response.data, forKey: expiredVariant.key) }
            return response
        }
        let rendered: CachedImage
        if let alreadyRendered = original.rendered {
            rendered = alreadyRendered
        } else {
            rendered = try render(request, original: original.image, originalKey: originalKey, variantKey: variantKey)
        }
        response.data = rendered
        response.notes = rendered.notes
        let storedKey = rendered.damage == nil ? variantKey : damagedKey
        response.variantKey = storedKey
        if original.image.noStore, disk != nil { response.notes.append(ImagePipeline.noStoreNote) }
        if let originalKey, let variantKey = storedKey {
            if keepsVariantInMemory(diskWillServe: disk != nil && !original.image.noStore) {
                memory.store(rendered, forKey: variantKey)
            }
            if let disk, !original.image.noStore {
                var metadata = CacheEntryMetadata(url: request.storedURL, key: variantKey,
                                                  variant: rendered.damage == nil ? request.variantIdentifier : request.damagedVariantIdentifier,
                                                  kind: .variant, body: rendered, ttl: configuration.ttl)
                metadata.damage = rendered.damage
                do {
                    try disk.store(rendered.bytes, metadata: metadata, at: disk.variantPath(originalKey: originalKey, variantKey: variantKey))
                } catch {
                    response.warnings.append("caching failed: \(error.message)")
                }
            }
        }
        return response
    }

    /// What `-v` says when a response may not be kept.
    static let noStoreNote = "not written to the disk cache: the server sent Cache-Control: no-store"

    /// Renders once per variant key while in flight, with the configuration's renderer.
    private func render(_ request: ImageRequest, original: CachedImage, originalKey: String?,
                        variantKey: String?) throws(ImgError) -> CachedImage {
        var context = RenderingContext(cancellation: configuration.network.cancellation)
        context.decodeBudget = decodeBudget
        if request.decodedTogetherWith.count > 1, let originalKey {
            let key = "\(originalKey)#\(request.decoding.identifierSuffix)#\(request.source.isRemote)"
            context.sharedDecode = SharedDecode(cache: decodedImages, key: key, chains: request.decodedTogetherWith)
        }
        let work = { () throws(ImgError) -> CachedImage in
            self.renderingSlots.wait()
            defer { self.renderingSlots.signal() }
            if request.passesSourceBytes, let format = original.format, (request.encoding.format ?? format) == format {
                return try self.checkedSourceBytes(request, original: original, format: format, context: context)
            }
            let encoded = try self.configuration.renderer.render(request, from: original.bytes, context: context)
            var image = CachedImage(data: encoded.data, format: encoded.format, width: encoded.width, height: encoded.height)
            image.notes = encoded.notes
            image.sourceSize = encoded.sourceSize
            image.damage = encoded.damage
            image.facts = encoded.facts
            return image
        }
        guard let variantKey else { return try work() }
        return try renderings.run(key: variantKey + (request.facts.map { "#facts\($0.identifier)" } ?? ""), work).value
    }
}

extension ImageRequest {
    /// Whether a cached variant with `facts` serves this request: always without `facts`; with it, when the
    /// stored facts have the BlurHash components asked for.
    func answers(_ facts: ImageFacts?) -> Bool {
        self.facts.map { $0.isAnswered(by: facts) } ?? true
    }
}

extension ImagePipeline {
    /// The source's own bytes as the output (`ImageRequest.keepsSourceBytes`), once a small throw-away rendering has
    /// read the whole image (so a truncated or refused one fails as a rendering would).
    fileprivate func checkedSourceBytes(_ request: ImageRequest, original: CachedImage, format: ImageFormat,
                                        context: RenderingContext) throws(ImgError) -> CachedImage {
        var probe = request
        probe.keepsSourceBytes = false
        probe.chain = try ProcessingChain.parse("resize(16x16)")
        probe.encoding = OutputEncoding(format: .png)
        let checked = try configuration.renderer.render(probe, from: original.bytes, context: context)
        var image = CachedImage(bytes: original.bytes, format: format, width: checked.sourceSize?.width,
                                height: checked.sourceSize?.height)
        image.sourceSize = checked.sourceSize
        image.notes = ["unchanged: the source's own bytes, metadata included"]
        return image
    }
}

extension CachedImage {
    init(entry: CacheEntryMetadata, body: EncodedBytes) {
        self.init(bytes: body, format: entry.format.flatMap(ImageFormat.init(rawValue:)), width: entry.width,
                  height: entry.height, validators: Validators(etag: entry.etag, lastModified: entry.lastModified),
                  contentType: entry.contentType)
        damage = entry.damage
        facts = entry.facts
    }
}

extension CacheEntryMetadata {
    /// `digest` (XXH3-128) may be given when it was computed already; by default it is computed here.
    init(url: String, key: String, variant: String?, kind: Kind, body: CachedImage, ttl: TimeToLive, digest: String? = nil) {
        let seconds: Int64? = if case .seconds(let value) = ttl { value } else { nil }
        self.init(url: url, key: key, variant: variant, kind: kind, size: body.bytes.count, xxh3: digest ?? body.bytes.integrityDigest,
                  format: body.format?.rawValue, width: body.width, height: body.height,
                  created: Date().timeIntervalSince1970, ttl: seconds, etag: body.validators?.etag,
                  lastModified: body.validators?.lastModified, contentType: body.contentType)
        facts = body.facts
    }
}

import Foundation

/// Gets the original bytes of a request: memory, then disk, then one download per key (in this process, and across
/// processes through the key's lock), revalidating an expired entry that has validators.
final class OriginalSource: Sendable {
    /// An original and where it came from; `rendered` is the variant the downloader rendered before publishing.
    struct Loaded: Sendable {
        var image: CachedImage
        var source: ResponseSource
        var rendered: CachedImage?
        var warnings: [String] = []
    }

    private let configuration: PipelineConfiguration
    private let memory: MemoryCache
    private let disk: DiskCache?
    /// Which originals the memory cache keeps during a batch.
    private let demand: OriginalDemand
    private let downloads = InFlightTasks<Loaded>()
    /// Idle libcurl handles by host, so a handle's kept-alive connections stay with the host they were opened to.
    private let idleLoaders = Locked<[String: [HTTPLoader]]>([:])
    private let hosts: HostLimiter
    /// The configuration's network options, with large bodies spooled into the cache's `tmp/` and hashed as they
    /// arrive when there is a disk cache.
    private let network: NetworkOptions

    init(configuration: PipelineConfiguration, memory: MemoryCache, disk: DiskCache?, demand: OriginalDemand) {
        self.configuration = configuration
        self.memory = memory
        self.disk = disk
        self.demand = demand
        hosts = HostLimiter(limit: configuration.connectionsPerHost, politeness: configuration.politeness)
        var network = configuration.network
        if let disk {
            if network.spoolDirectory == nil { network.spoolDirectory = disk.directory + "/tmp" }
            network.digestSpooledBodies = true
        }
        self.network = network
    }

    /// The original key, or nil for standard input (never cached): `--cache-key`, else `CacheKey.original(for:)`
    /// with the credentials of the request's headers.
    func originalKey(for request: ImageRequest) throws(ImgError) -> String? {
        if let key = request.cacheKey { return key }
        return try CacheKey.original(for: request.source, query: request.query, headers: configuration.network.headers)
    }

    /// Loads the original. `renderFirst` runs on a fresh download before anything is cached.
    func load(_ request: ImageRequest, key: String?,
              renderFirst: (CachedImage) throws(ImgError) -> CachedImage) throws(ImgError) -> Loaded {
        switch request.source {
        case .standardInput:
            let bytes = try BodySpool.read(STDIN_FILENO, directory: network.spoolDirectory)
            return Loaded(image: CachedImage(bytes: bytes, format: ImageFormat.sniff(bytes.prefix(64))), source: .local)
        case .file(let path):
            guard let region = FileRegion.open(wholeFile: path) else { throw .io(LocalFileError.reason(path)) }
            // A large file is decoded where it lies, never read whole.
            if region.count > EncodedBytes.memoryLimit {
                return Loaded(image: CachedImage(bytes: .file(region), format: ImageFormat.sniff(region.prefix(64))), source: .local)
            }
            guard let data = region.readAll() else { throw .io("cannot read \(path)") }
            return Loaded(image: CachedImage(data: data, format: ImageFormat.sniff(data)), source: .local)
        case .remote(let url):
            return try loadRemote(url, key: key ?? url.absoluteString, request: request, renderFirst: renderFirst)
        }
    }

    private func loadRemote(_ url: URL, key: String, request: ImageRequest,
                            renderFirst: (CachedImage) throws(ImgError) -> CachedImage) throws(ImgError) -> Loaded {
        let policy = configuration.policy
        if policy.usesMemory, !policy.forceRefresh, let hit = memory.value(forKey: CacheKey.inMemory(original: key)) {
            return Loaded(image: hit, source: .memory)
        }
        if !policy.forceRefresh, let fresh = freshFromDisk(key) { return fresh }
        if policy.onlyFromCache { throw .notCached("not in the cache (--only-from-cache)") }

        let (loaded, isOwner) = try downloads.run(key: key) { () throws(ImgError) -> Loaded in
            let lock = disk.flatMap {
                KeyLock.acquire(directory: $0.directory, key: key, timeout: configuration.network.worstCaseSeconds)
            }
            defer { withExtendedLifetime(lock) {} }
            // Another process may have downloaded it while we waited for the lock.
            if lock != nil, !policy.forceRefresh, let fresh = freshFromDisk(key) { return fresh }
            return try download(url, key: key, request: request, renderFirst: renderFirst)
        }
        var result = loaded
        if !isOwner { result.rendered = nil }
        return result
    }

    private func freshFromDisk(_ key: String) -> Loaded? {
        guard let disk else { return nil }
        let path = disk.originalPath(originalKey: key)
        guard case .fresh(let metadata, let body) = disk.lookup(at: path, key: key, inPlace: true) else { return nil }
        disk.touch(path, ttl: metadata.ttl)
        let image = CachedImage(entry: metadata, body: body)
        keepInMemory(image, key: key)
        return Loaded(image: image, source: .diskOriginal)
    }

    private func download(_ url: URL, key: String, request: ImageRequest,
                          renderFirst: (CachedImage) throws(ImgError) -> CachedImage) throws(ImgError) -> Loaded {
        var expired: (path: String, metadata: CacheEntryMetadata, body: EncodedBytes)?
        if let disk, !configuration.policy.forceRefresh {
            let path = disk.originalPath(originalKey: key)
            if case .expired(let metadata, let body) = disk.lookup(at: path, key: key, inPlace: true), metadata.etag != nil || metadata.lastModified != nil {
                expired = (path, metadata, body)
            }
        }
        let validators = expired.map { Validators(etag: $0.metadata.etag, lastModified: $0.metadata.lastModified) }
        let host = HostLimiter.hostKey(url)
        let response = try hosts.withSlot(for: host) { () throws(ImgError) -> HTTPResponse in
            try withLoader(host: host) { loader throws(ImgError) in try loader.fetch(url, validators: validators, gate: hosts.gate(for: host)) }
        }

        if response.notModified, let expired, let disk {
            disk.touch(expired.path, ttl: expired.metadata.ttl)
            let image = CachedImage(entry: expired.metadata, body: expired.body)
            keepInMemory(image, key: key)
            return Loaded(image: image, source: .revalidated)
        }
        var image = CachedImage(bytes: response.content, format: ImageFormat.sniff(response.content.prefix(64)),
                                validators: Validators(etag: response.etag, lastModified: response.lastModified),
                                contentType: response.contentType)
        image.noStore = response.noStore
        // The digest the cache entry records is computed beside the rendering (there are two cores), not after it.
        let bytes = image.bytes
        let digest = disk == nil ? nil : BackgroundValue { bytes.integrityDigest }
        let rendered: CachedImage
        do {
            rendered = try renderFirst(image)
        } catch {
            // (A body no loader knows already says what it looks like: `not an image (text/html, …)`.)
            if case .image(let message) = error, let type = response.contentType, !type.lowercased().hasPrefix("image/"),
               !message.hasPrefix("not an image (") {
                throw .image("\(message) (Content-Type \(type))")
            }
            throw error
        }
        (image.width, image.height) = (rendered.sourceSize?.width, rendered.sourceSize?.height)
        keepInMemory(image, key: key)
        var warnings: [String] = []
        if let disk, image.noStore {
            // What an earlier reply let us keep is stale now, and this one may not be kept.
            _ = disk.removeAll(originalKey: key)
        } else if let disk {
            disk.removeVariants(originalKey: key)
            let metadata = CacheEntryMetadata(url: request.storedURL, key: key, variant: nil, kind: .original,
                                              body: image, ttl: configuration.ttl, digest: digest?.value)
            do {
                try disk.store(image.bytes, metadata: metadata, at: disk.originalPath(originalKey: key))
            } catch {
                warnings.append("caching failed: \(error.message)")
            }
        }
        return Loaded(image: image, source: .network, rendered: rendered, warnings: warnings)
    }

    /// Stores an original in the memory cache when the policy uses it and, in a batch, a later use is pending.
    private func keepInMemory(_ image: CachedImage, key: String) {
        if configuration.policy.usesMemory, demand.keepsOriginal(key) { memory.store(image, forKey: CacheKey.inMemory(original: key)) }
    }

    /// Lends an idle libcurl handle of this host (keeping its connections alive for the next URL), or makes one.
    private func withLoader<T>(host: String, _ body: (HTTPLoader) throws(ImgError) -> T) throws(ImgError) -> T {
        let idle = idleLoaders.withLock { $0[host]?.popLast() }
        let loader = if let idle { idle } else { try HTTPLoader(options: network) }
        defer { idleLoaders.withLock { $0[host, default: []].append(loader) } }
        return try body(loader)
    }
}

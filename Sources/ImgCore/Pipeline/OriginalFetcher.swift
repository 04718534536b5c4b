import Foundation

/// Stage 1, *fetch original* (docs/DESIGN.md steps 3–4), coalesced by original key: memory, then the entry store, then
/// one download per key (in this process through `InFlightTasks`, across processes through the store's download
/// lock), revalidating an expired entry that has validators. A fresh download is checked by its header
/// (`ImageRendering.inspect`) and published (memory, entry store) before the lock is released; no variant is
/// rendered under the lock. Calls nothing of the pipeline.
final class OriginalFetcher: Sendable {
    /// An original and where it came from.
    struct Fetched: Sendable {
        var image: ImagePayload
        /// Where the original really came from (a download shared in flight: `.network`, as for its owner).
        var source: ResponseSource
        /// Whether this request joined another's download in flight, sending none of its own.
        var joinedInFlight = false
        /// What the request's report says: `memory` for a download joined in flight, else `source`.
        var reportedSource: ResponseSource { joinedInFlight ? .memory : source }
        var warnings: [String] = []
        /// What the header check read from a fresh download (`ImageRendering.inspect`), passed on to *make
        /// variant* so that the bytes are not checked twice; nil for an original from a cache or a local file.
        var inspected: ImageHeader?
        /// The URL the store's entry records, for an original served (or revalidated) from the store; for a
        /// download, the URL downloaded (another request's, when it shared the download: its key the same).
        var recordedURL: String?
        /// Why the store could not keep a downloaded or renewed original (a full or read-only cache, an entry
        /// over the size limit); nil when it did, or when there was nothing to write.
        var storeFailure: ImgError?
    }

    private let configuration: PipelineConfiguration
    private let memory: any ImageCaching
    private let store: (any EntryStoring)?
    private let loader: any DataLoading
    let downloads = InFlightTasks<Fetched>()
    /// Where large bodies of standard input are spooled.
    private let spoolDirectory: String?
    /// The run's one warning for a store that can't be written.
    private let failureWarning: CacheWriteWarning

    init(configuration: PipelineConfiguration, memory: any ImageCaching, store: (any EntryStoring)?,
         loader: any DataLoading, spoolDirectory: String?, failureWarning: CacheWriteWarning = CacheWriteWarning()) {
        (self.configuration, self.memory, self.store, self.loader) = (configuration, memory, store, loader)
        (self.spoolDirectory, self.failureWarning) = (spoolDirectory, failureWarning)
    }

    /// The original key, or nil for standard input (never cached): `--cache-key`, else `CacheKey.original(for:)`
    /// with the credentials of the request's headers.
    func originalKey(for request: ImageRequest) throws(ImgError) -> String? {
        if let key = request.cacheKey { return key }
        return try CacheKey.original(for: request.source, query: request.query, headers: configuration.network.headers)
    }

    /// Gets ready to fetch `request`'s original (libcurl opens while the caches are read).
    func prepare(for request: ImageRequest) {
        if request.source.isRemote { loader.prepare() }
    }

    /// Fetches the original of `request`, whose original key is `key`.
    func fetch(_ request: ImageRequest, key: String?) throws(ImgError) -> Fetched {
        switch request.source {
        case .standardInput:
            let bytes = try BodySpool.read(STDIN_FILENO, directory: spoolDirectory)
            return Fetched(image: ImagePayload(bytes: bytes, format: ImageFormat.sniff(bytes.prefix(64))), source: .local)
        case .file(let path):
            guard let region = FileRegion.open(wholeFile: path) else { throw .io(LocalFileError.reason(path)) }
            // A large file is decoded where it lies, never read whole.
            if region.count > EncodedBytes.memoryLimit {
                return Fetched(image: ImagePayload(bytes: .file(region), format: ImageFormat.sniff(region.prefix(64))), source: .local)
            }
            guard let data = region.readAll() else { throw .io("cannot read \(path)") }
            return Fetched(image: ImagePayload(data: data, format: ImageFormat.sniff(data)), source: .local)
        case .remote(let url):
            return try fetchRemote(url, key: key ?? url.absoluteString, request: request)
        }
    }

    /// Takes back a freshly downloaded original that turned out unusable (its variant couldn't be made), so that
    /// nothing is cached for a request that fails: it leaves memory and the entry store.
    func withdraw(originalKey key: String) {
        memory.remove(forKey: CacheKey.inMemory(original: key))
        store?.remove(.original(key: key))
    }

    /// A failure to decode a body whose `Content-Type` is not an image's says what the server called it (but a
    /// body no loader knows already says what it looks like: `not an image (text/html, …)`).
    static func explain(_ error: ImgError, contentType: String?) -> ImgError {
        guard let type = contentType, !type.lowercased().hasPrefix("image/") else { return error }
        switch error {
        case .image(let message) where !message.hasPrefix("not an image ("): return .image("\(message) (Content-Type \(type))")
        case .overLimit(let limit, nil) where !limit.isTransferLimit: return .overLimit(limit, contentType: type)
        case .untrustedFormat(let loader, nil): return .untrustedFormat(loader: loader, contentType: type)
        default: return error
        }
    }

    private func fetchRemote(_ url: URL, key: String, request: ImageRequest) throws(ImgError) -> Fetched {
        let policy = configuration.policy
        if policy.usesMemory, !policy.forceRefresh, let hit = memory.value(forKey: CacheKey.inMemory(original: key)),
           request.knowsRobotsTags(hit.robotsTags) {
            return Fetched(image: hit, source: .memory, recordedURL: hit.recordedURL)
        }
        if !policy.forceRefresh, let fresh = freshFromStore(key, for: request) { return fresh }
        if policy.onlyFromCache {
            if let store, case .expired = store.lookup(.original(key: key), inPlace: true) {
                throw .notCached("expired in the cache: only a fresh entry is served without the network")
            }
            throw .notCached("not in the cache")
        }

        // A request that joined another's download in flight sent none: its report says its original came from this
        // process's memory, as a later request's would (its checks are a download's).
        let (fetched, isOwner) = try downloads.run(key: key) { () throws(ImgError) -> Fetched in
            let cancellation = configuration.network.cancellation
            let lock = store?.downloadLock(ofOriginal: key, timeout: configuration.network.worstCaseSeconds,
                                           cancellation: cancellation)
            defer { lock?.release() }
            // A signal while another process's download was waited for.
            if cancellation?.isCancelled == true { throw .network("interrupted", cause: .interrupted) }
            // Another process may have downloaded it while we waited for the lock.
            if lock != nil, !policy.forceRefresh, let fresh = freshFromStore(key, for: request) { return fresh }
            return try download(url, key: key, request: request)
        }
        guard !isOwner else { return fetched }
        var shared = fetched
        shared.joinedInFlight = true
        return shared
    }

    /// A fresh original in the store that `request` can use (with `--disallow-robots-tags`, one that records its
    /// `X-Robots-Tag` headers).
    private func freshFromStore(_ key: String, for request: ImageRequest) -> Fetched? {
        guard let store, case .fresh(let metadata, let body) = store.lookup(.original(key: key), inPlace: true),
              request.knowsRobotsTags(metadata.robotsTags) else {
            return nil
        }
        store.touch(.original(key: key), ttl: metadata.ttl)
        let image = ImagePayload(entry: metadata, body: body)
        keepInMemory(image, key: key)
        return Fetched(image: image, source: .diskOriginal, recordedURL: metadata.url)
    }

    /// Downloads (or revalidates) and publishes; runs while the download lock is held.
    private func download(_ url: URL, key: String, request: ImageRequest) throws(ImgError) -> Fetched {
        var expired: (metadata: CacheEntryMetadata, body: EncodedBytes)?
        if let store, !configuration.policy.forceRefresh,
           case .expired(let metadata, let body) = store.lookup(.original(key: key), inPlace: true),
           metadata.etag != nil || metadata.lastModified != nil, request.knowsRobotsTags(metadata.robotsTags) {
            expired = (metadata, body)
        }
        let validators = expired.map { Validators(etag: $0.metadata.etag, lastModified: $0.metadata.lastModified) }
        let response = try loader.load(url, validators: validators)

        if response.notModified, let expired, let store {
            let (image, failure) = try renewed(expired, by: response, key: key, request: request, store: store)
            keepInMemory(image, key: key)
            return Fetched(image: image, source: .revalidated, warnings: failure.map(failureWarning.warnings(for:)) ?? [],
                           recordedURL: expired.metadata.url, storeFailure: failure)
        }
        var image = ImagePayload(bytes: response.content, format: ImageFormat.sniff(response.content.prefix(64)),
                                validators: Validators(etag: response.etag, lastModified: response.lastModified),
                                contentType: response.contentType)
        image.noStore = response.noStore
        image.recordedURL = request.storedURL
        image.robotsTags = response.robotsTags
        // Opted out (`--disallow-robots-tags`): neither checked nor kept, in memory or in the store.
        if let refusal = request.robotsRefusal(response.robotsTags) { throw .siteRefusal(refusal) }
        // The digest the entry records is computed beside the header check (there are two cores), not after it.
        let bytes = image.bytes
        let digest = store == nil ? nil : BackgroundValue { bytes.integrityDigest }
        let inspected: ImageHeader?
        do {
            inspected = try configuration.rendering.inspect(image.bytes, for: request)
            if let inspected { (image.width, image.height) = (inspected.width, inspected.height) }
        } catch {
            throw Self.explain(error, contentType: response.contentType)
        }
        keepInMemory(image, key: key)
        let failure = store?.publishOriginal(image, key: key, url: request.storedURL, ttl: configuration.ttl,
                                             digest: digest?.value)
        // The URL downloaded: a request that shares this download (its key the same, its query another) says so.
        return Fetched(image: image, source: .network, warnings: failure.map(failureWarning.warnings(for:)) ?? [],
                       inspected: inspected, recordedURL: request.storedURL, storeFailure: failure)
    }

    /// The expired original a 304 answered, renewed. A 304 updates the stored response's headers (RFC 9111, 4.3.4):
    /// with `Cache-Control: no-store` the original and its variants are removed (the image is served, kept no
    /// more); an `X-Robots-Tag` it carries replaces the recorded one. Opted out now, the original and its variants
    /// are removed and the request refused; other new tags are recorded (the original written again, its variants,
    /// which recorded the old tags, removed). Without `X-Robots-Tag` the recorded tags stand and the entry is
    /// touched, or written again when it went meanwhile (another process's `clean-expired`).
    private func renewed(_ expired: (metadata: CacheEntryMetadata, body: EncodedBytes), by response: HTTPResponse,
                         key: String, request: ImageRequest, store: any EntryStoring) throws(ImgError)
        -> (image: ImagePayload, storeFailure: ImgError?) {
        var image = ImagePayload(entry: expired.metadata, body: expired.body)
        if response.noStore {
            image.noStore = true
            store.removeEverything(ofOriginal: key)
            return (image, nil)
        }
        guard !response.robotsTags.isEmpty, response.robotsTags != (image.robotsTags ?? []) else {
            if store.touch(.original(key: key), ttl: expired.metadata.ttl) { return (image, nil) }
            // Unchanged: its variants stand, and it keeps its own time to live.
            let ttl = expired.metadata.ttl.map(TimeToLive.seconds) ?? .never
            return (image, store.writeOriginal(image, key: key, url: expired.metadata.url, ttl: ttl))
        }
        image.robotsTags = response.robotsTags
        if let refusal = request.robotsRefusal(response.robotsTags) {
            store.removeEverything(ofOriginal: key)
            throw .siteRefusal(refusal)
        }
        return (image, store.publishOriginal(image, key: key, url: expired.metadata.url, ttl: configuration.ttl))
    }

    /// Stores an original in memory when the policy uses memory and the memory policy keeps it.
    private func keepInMemory(_ image: ImagePayload, key: String) {
        if configuration.policy.usesMemory, configuration.memoryPolicy.keepsOriginal(forKey: key) {
            memory.store(image, forKey: CacheKey.inMemory(original: key))
        }
    }
}

extension EntryStoring {
    /// Publishes a downloaded original (fetch's, and info's when it read the whole file): a `no-store` reply removes
    /// what an earlier one let be kept (the original and its variants); otherwise the variants of an older original
    /// go and the original is written whole (`digest` when computed already). The error when the write failed.
    func publishOriginal(_ image: ImagePayload, key: String, url: String, ttl: TimeToLive, digest: String? = nil) -> ImgError? {
        if image.noStore {
            removeEverything(ofOriginal: key)
            return nil
        }
        removeVariants(ofOriginal: key)
        return writeOriginal(image, key: key, url: url, ttl: ttl, digest: digest)
    }

    /// Writes an original whole (`digest` when computed already), its variants left as they are: a renewed
    /// original's, unchanged. The error when the write failed.
    func writeOriginal(_ image: ImagePayload, key: String, url: String, ttl: TimeToLive, digest: String? = nil) -> ImgError? {
        let metadata = CacheEntryMetadata(url: url, key: key, variant: nil, kind: .original, body: image, ttl: ttl, digest: digest)
        do {
            try store(image.bytes, metadata: metadata, as: .original(key: key))
        } catch {
            return error
        }
        return nil
    }
}

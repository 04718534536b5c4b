import Foundation

extension ImageRequest {
    /// Whether the encoding names its format, or the list `--format auto` chooses from; one that keeps the source's
    /// (`format` nil) is resolved first, so that a variant's key names the encoding it really has (`-O` and `-o x.jpg`
    /// share the entry of a JPEG result).
    var encodingResolved: Bool { encoding.format != nil || encoding.candidateFormats != nil }

    /// This request with the source's format spelled out: the format the encoder writes for it
    /// (`ImageEncoder.writableFormat`: the source's own, else PNG).
    func resolvingEncoding(sourceFormat: ImageFormat?) -> ImageRequest {
        var resolved = self
        resolved.encoding.format = ImageEncoder.writableFormat(for: sourceFormat)
        return resolved
    }
}

extension ImagePipeline {
    /// `image(for:)` with the request's original key already worked out (`originalKey(for:)`: a batch's line, once
    /// for all its outputs). A request that keeps the source format learns it from the cached original's record
    /// (no body read), else from the original it then fetches first, and is served under the resolved encoding.
    /// Whatever served it, `-v` notes the encoder settings given that its format has no use for; it has facts only
    /// when the request asks for them.
    func image(for request: ImageRequest, originalKey: String?) throws(ImgError) -> ImageResponse {
        var response = try imageResolvingEncoding(for: request, originalKey: originalKey)
        response.ignoredSettings = request.encoding.ignoredSettings(for: response.image.format)
        // A cached variant keeps the facts a run asked for: a request without facts reports none, as when it is made.
        if request.facts == nil { response.image.facts = nil }
        return response
    }

    private func imageResolvingEncoding(for request: ImageRequest, originalKey: String?) throws(ImgError) -> ImageResponse {
        if request.encodingResolved {
            return try image(forResolved: request, originalKey: originalKey, original: nil)
        }
        if let format = cachedSourceFormat(originalKey: originalKey) {
            return try image(forResolved: request.resolvingEncoding(sourceFormat: format), originalKey: originalKey, original: nil)
        }
        if !configuration.policy.onlyFromCache {
            originals.prepare(for: request)
            configuration.rendering.prepare()
        }
        let original = try originals.fetch(request, key: originalKey)
        return try image(forResolved: request.resolvingEncoding(sourceFormat: original.image.format), originalKey: originalKey,
                         original: original)
    }

    /// The format of the original under `originalKey` as memory or the store records it; nil when neither has it.
    private func cachedSourceFormat(originalKey: String?) -> ImageFormat? {
        guard let originalKey, !configuration.policy.forceRefresh else { return nil }
        if configuration.policy.usesMemory, let hit = memory.value(forKey: CacheKey.inMemory(original: originalKey)),
           let format = hit.format {
            return format
        }
        return store?.recordedMetadata(of: .original(key: originalKey))?.format.flatMap(ImageFormat.init(rawValue:))
    }

    /// Records in `response` (and warns once per key and run, through `PipelineConfiguration.queryCollisions`) that the
    /// entry serving it records `recordedURL`, when that URL's query differs from the request's and the key drops the
    /// whole query (no `--keep-query`, no `--cache-key`: there the user chose what the key keeps).
    func noteRecordedURL(_ recordedURL: String?, for request: ImageRequest, originalKey: String, in response: inout ImageResponse) {
        guard let recordedURL, request.cacheKey == nil, request.query == .none, case .remote = request.source else { return }
        let requested = request.storedURL
        guard Self.query(of: recordedURL) != Self.query(of: requested) else { return }
        response.recordedURL = recordedURL
        response.notes.append(response.source == .network
            ? "made from the download of \(recordedURL), whose query differs (the cache key drops it: one download serves both)"
            : "served from the cache entry of \(recordedURL), whose query differs (the cache key drops it)")
        guard recordedQueryWarnings.firstTime(originalKey), let listener = configuration.queryCollisions else { return }
        listener(.servedFromEntry(requested: requested, recorded: recordedURL))
    }

    private static func query(of url: String) -> String? {
        URLComponents(string: url)?.percentEncodedQuery
    }
}

/// Keys already warned about in this run, the first `capacity` of them (default 100,000) remembered.
final class WarnedKeys: Sendable {
    private let keys = Locked(Set<String>())
    private let capacity: Int

    init(capacity: Int = 100_000) { self.capacity = capacity }

    /// True the first time `key` is given (and whenever the set is full).
    func firstTime(_ key: String) -> Bool {
        keys.withLock { keys in
            guard !keys.contains(key) else { return false }
            if keys.count < capacity { keys.insert(key) }
            return true
        }
    }
}

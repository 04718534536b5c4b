import Foundation

/// The variant path of a request whose encoding is resolved: the variant from memory or the entry store, else its
/// original fetched (or revalidated) and the variant made and written through.
extension ImagePipeline {
    /// An expired variant entry, kept to be served as it is if its original turns out unchanged (a 304).
    private struct ExpiredVariant {
        let entry: EntryName
        let key: String
        let metadata: CacheEntryMetadata
        let body: EncodedBytes
    }

    /// Renews the expired variant of an original a 304 found unchanged (`response.image` is it): touched, or written
    /// again when its entry went meanwhile; with `noStore` (the 304 said `no-store`: the entries are gone) kept in
    /// memory only, and said.
    private func renew(_ expired: ExpiredVariant, of request: ImageRequest, originalKey: String, noStore: Bool,
                       store: any EntryStoring, response: inout ImageResponse) {
        if noStore {
            response.notes.append(ImagePipeline.noStoreNote)
            writer.keepInMemory(response.image, variantKey: expired.key, storeWillServe: false)
        } else if store.touch(expired.entry, ttl: expired.metadata.ttl) {
            writer.keepInMemory(response.image, variantKey: expired.key, storeWillServe: true)
        } else if let failure = writer.write(response.image, of: request, originalKey: originalKey,
                                             variant: (expired.metadata.variant ?? "", expired.key), noStore: false) {
            response.warnings += writer.failureWarning.warnings(for: failure)
            response.storeFailure = response.storeFailure ?? failure
        }
    }

    /// `image(for:)` for a request whose encoding names its format (`encodingResolved`): `original` is the original
    /// when it was fetched already (to learn the source format), else it is fetched here if the variant misses.
    func image(forResolved request: ImageRequest, originalKey: String?,
               original fetchedOriginal: OriginalFetcher.Fetched?) throws(ImgError) -> ImageResponse {
        let policy = configuration.policy
        let keys = VariantKeys(of: request, originalKey: originalKey)
        var response = ImageResponse(image: ImagePayload(data: Data(), format: nil), source: .network,
                                     originalKey: originalKey, variantKey: keys.key)
        var expiredVariant: ExpiredVariant?
        if let originalKey, !policy.forceRefresh,
           let served = try cachedVariant(request, keys: keys, originalKey: originalKey, response: response,
                                          expired: &expiredVariant) {
            return served
        }

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
        response.source = original.reportedSource
        response.warnings = original.warnings
        response.storeFailure = original.storeFailure
        if let originalKey { noteRecordedURL(original.recordedURL, for: request, originalKey: originalKey, in: &response) }

        if original.source == .revalidated, let expiredVariant, let originalKey, let store {
            // The original is unchanged: so is the variant made from it.
            response.image = ImagePayload(entry: expiredVariant.metadata, body: expiredVariant.body)
            // The tags the 304 brought (its variants, recording the old ones, went with them).
            response.image.robotsTags = original.image.robotsTags
            response.variantKey = expiredVariant.key
            renew(expiredVariant, of: request, originalKey: originalKey, noStore: original.image.noStore,
                  store: store, response: &response)
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
            if let failure = writer.write(made, of: request, originalKey: originalKey,
                                          variant: (stored.identifier, storedKey), noStore: original.image.noStore) {
                response.warnings += writer.failureWarning.warnings(for: failure)
                response.storeFailure = response.storeFailure ?? failure
            }
        }
        return response
    }

    /// docs/DESIGN.md steps 1-2: the variant itself, in memory, then in the store; under --fail-on none, a variant
    /// made from a damaged input is under its own key, looked for second. Returns the response a hit makes; an
    /// expired entry that may serve is kept in `expired`. A variant without the facts asked for, checked at a laxer
    /// --fail-on level than this request's, or without its original's X-Robots-Tag when they matter, is no hit.
    private func cachedVariant(_ request: ImageRequest, keys: VariantKeys, originalKey: String, response: ImageResponse,
                               expired: inout ExpiredVariant?) throws(ImgError) -> ImageResponse? {
        var response = response
        for variantKey in keys.candidates(includingDamaged: request.decoding.failOn == .none) where expired == nil {
            response.variantKey = variantKey
            if configuration.policy.usesMemory, let hit = memory.value(forKey: variantKey), request.answers(hit.facts),
               request.trustsCheck(at: hit.checkedAt), request.knowsRobotsTags(hit.robotsTags) {
                if let refusal = request.robotsRefusal(hit.robotsTags) { throw .siteRefusal(refusal) }
                (response.image, response.notes) = (hit, hit.notes.filter(CacheEntryMetadata.keeps(note:)))
                response.source = .memory
                noteRecordedURL(hit.recordedURL, for: request, originalKey: originalKey, in: &response)
                return response
            }
            guard let store else { continue }
            let entry = EntryName.variant(originalKey: originalKey, variantKey: variantKey)
            switch store.lookup(entry, inPlace: false) {
            case .fresh(let metadata, let body) where request.serves(metadata):
                if let refusal = request.robotsRefusal(metadata.robotsTags) { throw .siteRefusal(refusal) }
                store.touch(entry, ttl: metadata.ttl)
                response.image = ImagePayload(entry: metadata, body: body)
                response.notes = response.image.notes
                response.source = .disk
                noteRecordedURL(metadata.url, for: request, originalKey: originalKey, in: &response)
                writer.keepInMemory(response.image, variantKey: variantKey, storeWillServe: true)
                return response
            case .expired(let metadata, let body) where request.serves(metadata):
                expired = ExpiredVariant(entry: entry, key: variantKey, metadata: metadata, body: body)
            case .fresh, .expired, .missing:
                break
            }
        }
        return nil
    }

    /// Runs *make variant*; when it fails on an original just downloaded, the original is withdrawn from the caches,
    /// so that nothing is cached for a request that fails. One the size filter refused is kept: it is sound.
    func makeVariant(_ request: ImageRequest, from original: OriginalFetcher.Fetched, originalKey: String?,
                     variantKey: String?) throws(ImgError) -> (image: ImagePayload, isOwner: Bool) {
        do {
            return try variants.make(request, from: original.image, inspected: original.inspected, originalKey: originalKey,
                                     variantKey: variantKey)
        } catch {
            if original.source != .network { throw error }
            if case .filtered = error { throw error }
            if let originalKey { originals.withdraw(originalKey: originalKey) }
            throw OriginalFetcher.explain(error, contentType: original.image.contentType)
        }
    }
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

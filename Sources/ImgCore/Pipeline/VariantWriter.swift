/// Stage 3, *write through* (docs/DESIGN.md step 7), run once per rendering (by the caller that owned it, so with the
/// variant key's coalescing): the variant goes into the entry store, unless the server said `no-store`, and into
/// memory when the memory policy keeps it. Calls nothing of the pipeline.
struct VariantWriter: Sendable {
    let configuration: PipelineConfiguration
    let memory: any ImageCaching
    let store: (any EntryStoring)?
    /// The run's one warning for a store that can't be written.
    let failureWarning: CacheWriteWarning

    /// Writes a variant just made under `variant`'s identifier and key (`VariantKeys.stored`: for a damaged one,
    /// the damaged input's); returns why the store could not keep it, nil when it did (or was not to).
    func write(_ image: ImagePayload, of request: ImageRequest, originalKey: String,
               variant: (identifier: String, key: String), noStore: Bool) -> ImgError? {
        let variantKey = variant.key
        var image = image
        image.recordedURL = request.storedURL
        keepInMemory(image, variantKey: variantKey, storeWillServe: store != nil && !noStore)
        guard let store, !noStore else { return nil }
        // A variant made under --fail-on none from a damaged input says so, under its own identifier.
        var metadata = CacheEntryMetadata(url: request.storedURL, key: variantKey, variant: variant.identifier,
                                          kind: .variant, body: image, ttl: configuration.ttl)
        metadata.damage = image.damage
        metadata.checkedAt = image.checkedAt
        do {
            try store.store(image.bytes, metadata: metadata, as: .variant(originalKey: originalKey, variantKey: variantKey))
        } catch {
            return error
        }
        return nil
    }

    /// Puts a variant into memory when the policy uses memory and the memory policy keeps it.
    func keepInMemory(_ image: ImagePayload, variantKey: String, storeWillServe: Bool) {
        if configuration.policy.usesMemory, configuration.memoryPolicy.keepsVariant(diskWillServe: storeWillServe) {
            memory.store(image, forKey: variantKey)
        }
    }
}

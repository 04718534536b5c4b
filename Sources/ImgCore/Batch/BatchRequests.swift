/// The requests of a batch's outputs: the shared options (`template`) with each line's source and, per variant, its
/// chain after them; and the key each output is cached under, which the manifest records and `--resume` compares.
struct BatchRequests: Sendable {
    /// The shared processing, encoding and decoding options (its source is replaced per output).
    let template: ImageRequest
    let variants: [BatchVariant]
    /// A prefetch of originals only: an output's key is its original key.
    let originalsOnly: Bool

    /// The variants of every line in order: `[nil]` without `--variant`.
    var positions: [BatchVariant?] { variants.isEmpty ? [nil] : variants }

    /// The request for one output; `format` is the one the line's second column names, if any.
    func request(for source: ImageSource, variant: BatchVariant?, format: ImageFormat? = nil) -> ImageRequest {
        var request = template
        request.source = source
        if let format { request.encoding.format = format }
        if let variant {
            request.chain = template.chain |> variant.chain
            // Variants of this input that load it alike load it once (with the bytes each gets alone).
            request.decodedTogetherWith = variants.map { template.chain |> $0.chain }
        }
        return request
    }

    /// The key one output is asked under: its variant key (`CacheKey.variant`), or for a prefetch the original key.
    func outputKey(originalKey: String, source: ImageSource, variant: BatchVariant?, format: ImageFormat?) -> String {
        if originalsOnly { return originalKey }
        let request = request(for: source, variant: variant, format: format)
        return CacheKey.variant(original: originalKey, variantIdentifier: request.variantIdentifier)
    }
}

import Dispatch

/// Stage 2, *make variant* (docs/DESIGN.md steps 5–6), coalesced by variant key: decodes an original, runs the
/// request's processors and encodes, with the configuration's rendering, at most `renderingSlots` at once. Inputs
/// decoded together for several variants (`ImageRequest.decodedTogetherWith`) share one load until its last use.
/// Calls nothing of the pipeline.
final class VariantMaker: Sendable {
    private let rendering: any ImageRendering
    private let cancellation: Cancellation?
    let renderings = InFlightTasks<ImagePayload>()
    /// Inputs decoded once for several variants, until their last use.
    let decodedImages = DecodedImageCache()
    /// Bounds the decode memory of renderings at once to `--max-decode-memory`, however many threads render.
    private let decodeBudget = DecodeMemoryBudget()
    /// Bounds renderings at once; taken only by the thread doing the work.
    private let slots: DispatchSemaphore
    /// libvips threads per rendering (`PipelineConfiguration.threadsPerRendering`); nil for libvips' default.
    private let threadsPerRendering: Int?

    init(rendering: any ImageRendering, slots: Int, threadsPerRendering: Int? = nil, cancellation: Cancellation?) {
        (self.rendering, self.cancellation) = (rendering, cancellation)
        self.slots = DispatchSemaphore(value: max(1, slots))
        self.threadsPerRendering = threadsPerRendering
    }

    /// Makes `request`'s variant from `original`; equal variant keys (and facts asked for) in flight share one
    /// rendering (`isOwner` is true for the caller that did it). Without a variant key (standard input), nothing is
    /// shared. `inspected`: what the fetch stage's header check read from these bytes (the rendering need not check
    /// it again); nil (the default) when nothing was checked.
    func make(_ request: ImageRequest, from original: ImagePayload, inspected: ImageHeader? = nil, originalKey: String?,
              variantKey: String?) throws(ImgError) -> (image: ImagePayload, isOwner: Bool) {
        var context = RenderingContext(cancellation: cancellation)
        context.decodeBudget = decodeBudget
        context.inspected = inspected
        context.threadsPerRendering = threadsPerRendering
        if request.decodedTogetherWith.count > 1, let originalKey {
            let key = "\(originalKey)#\(request.decoding.identifierSuffix)#\(request.source.isRemote)"
            context.sharedDecode = SharedDecode(cache: decodedImages, key: key, chains: request.decodedTogetherWith)
        }
        let work = { () throws(ImgError) -> ImagePayload in
            self.slots.wait()
            defer { self.slots.signal() }
            if request.passesSourceBytes, let format = original.format, (request.encoding.format ?? format) == format {
                var image = try self.checkedSourceBytes(request, original: original, format: format, context: context)
                image.checkedAt = request.decoding.failOn
                return image
            }
            let encoded = try self.rendering.render(request, from: original.bytes, context: context)
            var image = ImagePayload(data: encoded.data, format: encoded.format, width: encoded.width, height: encoded.height)
            image.notes = encoded.notes
            image.sourceSize = encoded.sourceSize
            image.damage = encoded.damage
            image.facts = encoded.facts
            image.chosen = encoded.chosen
            image.checkedAt = request.decoding.failOn
            return image
        }
        guard let variantKey else { return (try work(), true) }
        // A rendering with facts is not shared with one without (the facts don't enter the variant key).
        let (image, isOwner) = try renderings.run(key: variantKey + (request.facts.map { "#facts\($0.identifier)" } ?? ""), work)
        return (image, isOwner)
    }

    /// The source's own bytes as the output (`ImageRequest.keepsSourceBytes`), once a small throw-away rendering has
    /// read the whole image (so a truncated or refused one fails as a rendering would).
    private func checkedSourceBytes(_ request: ImageRequest, original: ImagePayload, format: ImageFormat,
                                    context: RenderingContext) throws(ImgError) -> ImagePayload {
        var probe = request
        probe.keepsSourceBytes = false
        // With --facts, the facts of the image as it is: the probe decodes it whole (its output is thrown away).
        probe.chain = request.facts == nil ? try ProcessingChain.parse("resize(16x16)") : ProcessingChain()
        probe.encoding = OutputEncoding.probe(of: format)
        // The bytes keep their orientation tag, so they are displayed upright: their size and facts are the upright
        // image's, whatever the request says of turning a rendering.
        probe.decoding.autorotate = true
        let checked = try rendering.render(probe, from: original.bytes, context: context)
        var image = ImagePayload(bytes: original.bytes, format: format, width: checked.sourceSize?.width,
                                height: checked.sourceSize?.height)
        image.sourceSize = checked.sourceSize
        image.facts = checked.facts
        // Under --fail-on none, a damaged source passed through is as damaged as a rendering of it: it is marked, and
        // stored under the damaged variant's own key, never served at a stricter level.
        image.damage = checked.damage
        image.notes = [VariantNote.sourceBytes]
        return image
    }
}

import CVips
import Foundation

/// Decodes once, applies the chain in order, and encodes: the only way the pipeline touches libvips.
public enum Rendering {
    /// What one rendering makes of its input: `chain` in order, then `encoding`, within `decoding`'s limits;
    /// `isRemote` restricts the loaders to the trusted ones; with `facts`, the result carries the facts of the
    /// processed image (default none).
    public struct Job: Sendable {
        public var isRemote: Bool
        public var chain: ProcessingChain
        public var encoding: OutputEncoding
        public var decoding: DecodeOptions
        public var facts: FactsRequest?

        public init(isRemote: Bool, chain: ProcessingChain, encoding: OutputEncoding, decoding: DecodeOptions,
                    facts: FactsRequest? = nil) {
            (self.isRemote, self.chain, self.encoding, self.decoding, self.facts) = (isRemote, chain, encoding, decoding, facts)
        }

        /// The rendering `request` asks for.
        public init(_ request: ImageRequest) {
            self.init(isRemote: request.source.isRemote, chain: request.chain, encoding: request.encoding,
                      decoding: request.decoding, facts: request.facts)
        }
    }

    /// Renders encoded bytes as `job` says. Bytes in a file region are decoded from the file: never held whole in
    /// memory. From `context`: with `sharedDecode` (several variants of one input), variants that load the input
    /// alike load it once, each variant's bytes the same as when it is rendered alone; with `decodeBudget`, the
    /// decode waits until its estimated memory fits beside the renderings running (`--max-decode-memory`); with
    /// `inspected` (what `InProcessRendering.inspect` read from these bytes), its integrity check's finding and header are
    /// used instead of scanning the bytes and opening the header again; with `threadsPerRendering`, libvips computes
    /// the pixels on that many threads (`DecodedImage.limitingThreads`), nil for libvips' own number. A failure's
    /// message is this rendering's own (`VipsErrorScope`), and a rendering past `--max-render-time` is stopped. With
    /// `stop`, the rendering ends as soon as it is stopped (its result is then a failure, to be dropped). With
    /// `job.facts`, the facts come from a small shrink of the processed image kept in memory for the encoder (no
    /// second decode), flattened onto the background as the encoder flattens it for a format without alpha.
    public static func render(_ bytes: EncodedBytes, job: Job, context: RenderingContext = RenderingContext(),
                              stop: RenderStop? = nil) throws(ImgError) -> EncodedImage {
        var attempts = 0
        return try VipsErrorScope.run({ () throws(ImgError) -> EncodedImage in
            attempts += 1
            // Run again alone, a variant decodes by itself: the same bytes, as `SharedDecode` guarantees.
            var once = context
            if attempts > 1 { once.sharedDecode = nil }
            return try renderOnce(bytes, job: job, context: once, stop: stop)
        }, rerunnable: { !RenderClock.isExpiry($0) && stop?.isStopped != true })
    }

    /// `render(_:job:context:stop:)` with the job's parts and the context's as arguments of their own (each nil or
    /// default as there).
    public static func render(_ bytes: EncodedBytes, isRemote: Bool, chain: ProcessingChain, encoding: OutputEncoding,
                              decoding: DecodeOptions, shared: SharedDecode? = nil,
                              budget: DecodeMemoryBudget? = nil, facts: FactsRequest? = nil,
                              checked: ImageHeader? = nil, stop: RenderStop? = nil,
                              threads: Int? = nil) throws(ImgError) -> EncodedImage {
        var context = RenderingContext(sharedDecode: shared)
        (context.decodeBudget, context.inspected, context.threadsPerRendering) = (budget, checked, threads)
        let job = Job(isRemote: isRemote, chain: chain, encoding: encoding, decoding: decoding, facts: facts)
        return try render(bytes, job: job, context: context, stop: stop)
    }

    /// `job`, deciding on the first frame or page only when its output keeps no animation: only that frame is
    /// decoded (a strip of all frames resized as one mixed rows across frames; a multi-page file whose later pages
    /// differ was refused), as vipsthumbnail reads one. The frames are still counted against `--max-frames`.
    private static func stillOutputsDecodingOneFrame(_ job: Job, sourceFormat: ImageFormat?) -> Job {
        guard !job.decoding.firstFrame, !job.encoding.keepsFrames(ofSource: sourceFormat) else { return job }
        var job = job
        job.decoding.firstFrame = true
        return job
    }

    private static func renderOnce(_ bytes: EncodedBytes, job: Job, context: RenderingContext,
                                   stop: RenderStop?) throws(ImgError) -> EncodedImage {
        let job = stillOutputsDecodingOneFrame(job, sourceFormat: ImageFormat.sniff(bytes.prefix(64)))
        let decoding = job.decoding
        let render = { (input: inout VipsInput) throws(ImgError) -> EncodedImage in
            // Every variant checks the header (it reads no pixels), so each fails as it would alone; the integrity
            // scan (it reads every byte) only when these bytes were not scanned already, and the header's opening only
            // when it was not read already.
            let header = try ImageDecoder.checkHeader(&input, isRemote: job.isRemote, options: decoding,
                                                      earlier: context.inspected?.decoded, decodeFollows: true)
            try OutputGeometry.check(job.chain, header: header, options: decoding)
            let input = input
            let work = { () throws(ImgError) -> EncodedImage in
                let clock = RenderClock(seconds: decoding.maxRenderTime, stop: stop)
                defer { clock.end() }
                let guardStops = PNGTailGuard.stops
                let outcome = Result { () throws(ImgError) in
                    try decodeProcessEncode(input, header: header, job: job, context: context, clock: clock)
                }
                // A rendering that ran past its time fails even when it ended (libjpeg reads a progressive JPEG's
                // scans in one call, where the stop is not looked at): what comes of it came too late.
                if clock.expired { throw clock.expiredError }
                // A decode that failed, or ran while the tail guard stopped one (this one or another at the same
                // time, which may have let it through), has its PNG data checked whole: a bomb is refused as such.
                if (try? outcome.get()) == nil || PNGTailGuard.stops != guardStops,
                   let refusal = PNGTailGuard.refusal(input: input, format: header.format, options: decoding) {
                    throw refusal
                }
                return try outcome.get()
            }
            guard let budget = context.decodeBudget else { return try work() }
            return try budget.admitting(header.decodeMemory.bytes, limit: decoding.maxDecodeMemory, work)
        }
        // A rendering of its own ends with all its images: it reads bytes in memory where they lie. One decode shared
        // by several variants outlives it, so it reads a copy.
        guard context.sharedDecode != nil else { return try VipsInput.borrowing(bytes, render) }
        var input = VipsInput(bytes)
        return try render(&input)
    }

    private static func decodeProcessEncode(_ input: VipsInput, header: ImageDecoder.Header, job: Job,
                                            context: RenderingContext, clock: RenderClock) throws(ImgError) -> EncodedImage {
        let (chain, encoding, decoding, facts) = (job.chain, job.encoding, job.decoding, job.facts)
        let (shared, threads) = (context.sharedDecode, context.threadsPerRendering)
        var image: DecodedImage
        var remaining: ArraySlice<any ImageProcessing>
        // Every later step and the encoder's sink inherit the thread limit (libvips copies fields down a pipeline).
        if let shared, let decoded = try shared.decode(input, header: header, chain: chain, options: decoding) {
            (image, remaining) = decoded
            image = image.timed(by: clock)
            // Made from a decode other variants read too: the limit goes on a copy.
            if let threads { image = try image.limitingThreads(threads) }
        } else {
            (image, remaining) = try ImageDecoder.decode(input, header: header, chain: chain, options: decoding, clock: clock)
            // This rendering's own: it takes the limit itself.
            if let threads { image.limitThreads(threads) }
        }
        for step in remaining {
            image = try step.process(image)
        }
        if facts != nil {
            // The input is read once, in order: the processed image is kept in memory for both the encoder and the
            // sample (it is usually a thumbnail by now).
            image = try image.derive("facts: processed image in memory") { imgf_copy_memory($0, $1) }
        }
        var encoded = try AutoEncoder.encode(image, encoding: encoding, sourceFormat: header.format)
        if let facts {
            // Of the image written: flattened onto --background as the encoder flattened it for a format without alpha.
            let written = try ImageEncoder.flattenedIfNeeded(image, for: encoded.format, onto: encoding.background)
            encoded.facts = ImageFacts(pixels: try written.factPixels(), blurhashComponents: (facts.blurhashX, facts.blurhashY))
        }
        encoded.sourceSize = header.orientedSize(autorotate: decoding.autorotate)
        if header.framesInFile > 1, header.format?.supportsAnimation != true {
            encoded.notes.append(VariantNote.firstPage(of: header.framesInFile))
        } else if header.framesInFile > 1, !encoded.format.supportsAnimation {
            encoded.notes.append(VariantNote.firstFrame(in: encoded.format, of: header.framesInFile))
        }
        if let damage = header.damage {
            // Let through by --fail-on: a warning is a note; truncated or corrupt data (under `none`) marks the result.
            if damage.severity == .warning { encoded.notes.append("warning: \(damage.message)") } else { encoded.damage = damage.message }
        }
        if header.pagesInFileWhenTheyDiffer > 0 {
            encoded.notes.append(VariantNote.firstOfPagesThatDiffer(header.pagesInFileWhenTheyDiffer))
        }
        return encoded
    }

    /// Reads the size and format of encoded bytes from the header only (for tests and `--json`).
    public static func probe(_ data: Data) throws(ImgError) -> (format: ImageFormat?, width: Int, height: Int, frames: Int) {
        var options = DecodeOptions()
        options.maxPixels = .max
        options.maxFrames = .max
        options.maxDecodeMemory = .max
        return try VipsErrorScope.run { () throws(ImgError) -> (format: ImageFormat?, width: Int, height: Int, frames: Int) in
            var input = VipsInput.buffer(PinnedBytes(data))
            let header = try ImageDecoder.checkHeader(&input, isRemote: false, options: options)
            return (header.format, header.width, header.frameHeight, header.frames)
        }
    }
}

import CVips
import Foundation

/// Decodes once, applies the chain in order, and encodes: the only way the pipeline touches libvips.
public enum ImageRenderer {
    /// Renders encoded bytes through `chain` into `encoding`. `isRemote` restricts the loaders to the trusted ones.
    /// Bytes in a file region are decoded from the file: never held whole in memory.
    /// With `shared` (several variants of one input), variants that load the input alike load it once; each
    /// variant's bytes are the same as when it is rendered alone. With `budget`, the decode waits until its
    /// estimated memory fits beside the renderings running (`--max-decode-memory`). A failure's message is this
    /// rendering's own (`VipsErrorScope`), and a rendering past `--max-render-time` is stopped. With `facts`, the
    /// result carries the facts of the processed image, from a small shrink of it made just before encoding (no
    /// second decode). With `checked` (what `VipsRenderer.inspect` read from these bytes), its integrity check's
    /// finding is used instead of scanning the bytes again, and its header instead of opening it again. With `stop`, the
    /// rendering ends as soon as it is stopped (its result is then a failure, to be dropped). With `threads`, libvips
    /// computes this rendering's pixels on that many threads (`DecodedImage.limitingThreads`); nil (the default) for
    /// libvips' own number.
    public static func render(_ bytes: EncodedBytes, isRemote: Bool, chain: ProcessingChain, encoding: OutputEncoding,
                              decoding: DecodeOptions, shared: SharedDecode? = nil,
                              budget: DecodeMemoryBudget? = nil, facts: FactsRequest? = nil,
                              checked: ImageHeader? = nil, stop: RenderStop? = nil,
                              threads: Int? = nil) throws(ImgError) -> EncodedImage {
        var attempts = 0
        return try VipsErrorScope.run({ () throws(ImgError) -> EncodedImage in
            attempts += 1
            // Run again alone, a variant decodes by itself: the same bytes, as `SharedDecode` guarantees.
            return try renderOnce(bytes, isRemote: isRemote, chain: chain, encoding: encoding, decoding: decoding,
                                  shared: attempts == 1 ? shared : nil, budget: budget, facts: facts,
                                  checked: checked, stop: stop, threads: threads)
        }, rerunnable: { !RenderClock.isExpiry($0) && stop?.isStopped != true })
    }

    private static func renderOnce(_ bytes: EncodedBytes, isRemote: Bool, chain: ProcessingChain, encoding: OutputEncoding,
                                   decoding: DecodeOptions, shared: SharedDecode?,
                                   budget: DecodeMemoryBudget?, facts: FactsRequest?,
                                   checked: ImageHeader?, stop: RenderStop?, threads: Int?) throws(ImgError) -> EncodedImage {
        let render = { (input: inout VipsInput) throws(ImgError) -> EncodedImage in
            // Every variant checks the header (it reads no pixels), so each fails as it would alone; the integrity
            // scan (it reads every byte) only when these bytes were not scanned already, and the header's opening only
            // when it was not read already.
            let header = try ImageDecoder.checkHeader(&input, isRemote: isRemote, options: decoding,
                                                      earlier: checked?.decoded)
            try OutputGeometry.check(chain, header: header, options: decoding)
            let input = input
            let work = { () throws(ImgError) -> EncodedImage in
                let clock = RenderClock(seconds: decoding.maxRenderTime, stop: stop)
                defer { clock.end() }
                do throws(ImgError) {
                    return try decodeProcessEncode(input, header: header, chain: chain, encoding: encoding,
                                                   decoding: decoding, shared: shared, clock: clock, facts: facts,
                                                   threads: threads)
                } catch {
                    throw clock.expired ? clock.expiredError : error
                }
            }
            guard let budget else { return try work() }
            return try budget.admitting(header.decodeMemory.bytes, limit: decoding.maxDecodeMemory, work)
        }
        // A rendering of its own ends with all its images: it reads bytes in memory where they lie. One decode shared
        // by several variants outlives it, so it reads a copy.
        guard shared != nil else { return try VipsInput.borrowing(bytes, render) }
        var input = VipsInput(bytes)
        return try render(&input)
    }

    private static func decodeProcessEncode(_ input: VipsInput, header: ImageDecoder.Header, chain: ProcessingChain,
                                            encoding: OutputEncoding, decoding: DecodeOptions, shared: SharedDecode?,
                                            clock: RenderClock, facts: FactsRequest?, threads: Int?) throws(ImgError) -> EncodedImage {
        var image: DecodedImage
        var remaining: ArraySlice<any ImageProcessing>
        if let shared, let decoded = try shared.decode(input, header: header, chain: chain, options: decoding) {
            (image, remaining) = decoded
            image = image.timed(by: clock)
        } else {
            (image, remaining) = try ImageDecoder.decode(input, header: header, chain: chain, options: decoding, clock: clock)
        }
        // Every later step and the encoder's sink inherit the limit (libvips copies fields down a pipeline).
        if let threads { image = try image.limitingThreads(threads) }
        for step in remaining {
            image = try step.process(image)
        }
        var imageFacts: ImageFacts?
        if let facts {
            // The input is read once, in order: the processed image is kept in memory for both the sample and the
            // encoder (it is usually a thumbnail by now).
            image = try image.derive("facts: processed image in memory") { imgf_copy_memory($0, $1) }
            imageFacts = ImageFacts(pixels: try image.factPixels(), blurhashComponents: (facts.blurhashX, facts.blurhashY))
        }
        var encoded = try AutoEncoder.encode(image, encoding: encoding, sourceFormat: header.format)
        encoded.facts = imageFacts
        encoded.sourceSize = (header.width, header.frameHeight)
        if let damage = header.damage {
            // Let through by --fail-on: a warning is a note; truncated or corrupt data (under `none`) marks the result.
            if damage.severity == .warning { encoded.notes.append("warning: \(damage.message)") } else { encoded.damage = damage.message }
        }
        if header.pagesInFileWhenTheyDiffer > 0 {
            encoded.notes.append("the pages differ in size: read the first of \(header.pagesInFileWhenTheyDiffer) pages")
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

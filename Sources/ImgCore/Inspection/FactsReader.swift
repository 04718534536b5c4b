import Foundation

/// `info --facts`: the facts of an image as `fetch --facts` computes them for it unchanged — decoded (oriented,
/// in sRGB), then one small shrink (`factPixels`) — with no output encoded.
enum FactsReader {
    /// The facts, and the header check (fetch's: limits, integrity) the decode was made on.
    static func facts(of bytes: EncodedBytes, isRemote: Bool, decoding: DecodeOptions,
                      request: FactsRequest) throws(ImgError) -> (facts: ImageFacts, header: ImageDecoder.Header) {
        try VipsErrorScope.run({ () throws(ImgError) -> (facts: ImageFacts, header: ImageDecoder.Header) in
            // Every image of the decode ends with the call: the bytes are read where they lie.
            try VipsInput.borrowing(bytes) { input throws(ImgError) -> (facts: ImageFacts, header: ImageDecoder.Header) in
                let header = try ImageDecoder.checkHeader(&input, isRemote: isRemote, options: decoding)
                let clock = RenderClock(seconds: decoding.maxRenderTime)
                defer { clock.end() }
                do throws(ImgError) {
                    let (image, _) = try ImageDecoder.decode(input, header: header, chain: ProcessingChain(),
                                                             options: decoding, clock: clock)
                    let facts = ImageFacts(pixels: try image.factPixels(), blurhashComponents: (request.blurhashX, request.blurhashY))
                    return (facts, header)
                } catch {
                    throw clock.expired ? clock.expiredError : error
                }
            }
        }, rerunnable: { !RenderClock.isExpiry($0) })
    }
}

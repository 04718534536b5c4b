import Foundation

/// `info --facts`: the facts of an image as `fetch --facts` computes them for it unchanged — decoded (oriented,
/// in sRGB), then one small shrink (`factPixels`) — with no output encoded. The header is read once, by the check
/// the decode needs (fetch's: integrity, limits), and the report is made from the image it opened.
enum FactsReader {
    /// What `info --facts` read of an image.
    struct Read {
        /// The header's report, as `HeaderReader` makes it (without `facts`).
        var info: ImageInfo
        var facts: ImageFacts
        /// The header check the decode was made on.
        var header: ImageDecoder.Header
    }

    /// Reads `bytes`' header, report and facts. `headerRefused` is set when the failure thrown is the header
    /// check's, not the decode's.
    static func read(_ bytes: EncodedBytes, isRemote: Bool, decoding: DecodeOptions, request: FactsRequest,
                     headerRefused: inout Bool) throws(ImgError) -> Read {
        try VipsErrorScope.run({ () throws(ImgError) -> Read in
            headerRefused = false
            // Every image of the decode ends with the call: the bytes are read where they lie.
            return try VipsInput.borrowing(bytes) { input throws(ImgError) -> Read in
                let format = ImageFormat.sniff(input.head)
                var info: ImageInfo?
                let header: ImageDecoder.Header
                do throws(ImgError) {
                    header = try ImageDecoder.checkHeader(&input, isRemote: isRemote, options: decoding) { image, allPages in
                        info = HeaderReader.info(of: image, format: format, allPages: allPages)
                    }
                } catch {
                    headerRefused = true
                    throw error
                }
                guard let info else { throw .internalFailure("the header check opened no image") }
                let clock = RenderClock(seconds: decoding.maxRenderTime)
                defer { clock.end() }
                do throws(ImgError) {
                    let (image, _) = try ImageDecoder.decode(input, header: header, chain: ProcessingChain(),
                                                             options: decoding, clock: clock)
                    let facts = ImageFacts(pixels: try image.factPixels(), blurhashComponents: (request.blurhashX, request.blurhashY))
                    return Read(info: info, facts: facts, header: header)
                } catch {
                    throw clock.expired ? clock.expiredError : error
                }
            }
        }, rerunnable: { !RenderClock.isExpiry($0) })
    }
}

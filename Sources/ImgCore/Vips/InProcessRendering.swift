/// Renders with libvips in this process (`Rendering.render`): the default `ImageRendering`.
public struct InProcessRendering: ImageRendering {
    public init() {}

    /// Starts loading libvips on another thread, so that it is ready when the original is.
    public func prepare() {
        VipsRuntime.startInBackground()
    }

    public func inspect(_ original: EncodedBytes, for request: ImageRequest) throws(ImgError) -> ImageHeader? {
        // A size filter judges the rendering, not the download: a filtered original is still kept.
        var options = request.decoding
        options.sizeFilter = nil
        return try VipsErrorScope.run { () throws(ImgError) -> ImageHeader? in
            let header = try VipsInput.borrowing(original) { input throws(ImgError) in
                try ImageDecoder.checkHeader(&input, isRemote: request.source.isRemote, options: options,
                                             decodeFollows: true)
            }
            var inspected = ImageHeader(format: header.format, width: header.width, height: header.frameHeight)
            inspected.decoded = header
            return inspected
        }
    }

    /// A cancellation (SIGINT, SIGTERM) stops the rendering as `--max-render-time` would: libvips ends at the next
    /// part of the image it computes, and the rendering fails with the interruption.
    public func render(_ request: ImageRequest, from original: EncodedBytes, context: RenderingContext) throws(ImgError)
        -> EncodedImage {
        let stop = context.cancellation.map { _ in RenderStop() }
        let waiting = stop.flatMap { stop in context.cancellation?.whenCancelled { stop.stop() } }
        defer { context.cancellation?.forget(waiting) }
        do throws(ImgError) {
            return try Rendering.render(original, job: Rendering.Job(request), context: context, stop: stop)
        } catch {
            if stop?.isStopped == true { throw .network("interrupted", cause: .interrupted) }
            throw error
        }
    }
}

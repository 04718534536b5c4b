/// Hands renderings of in-memory inputs to a running warm renderer (`RendererClient`), and renders everything else
/// (no renderer listening, an input in a file, variants decoded together, a renderer that failed) with `fallback`.
public struct WarmRendering: ImageRendering {
    public let client: RendererClient
    /// Default: libvips in this process.
    public let fallback: any ImageRendering

    public init(client: RendererClient, fallback: any ImageRendering = VipsRenderer()) {
        (self.client, self.fallback) = (client, fallback)
    }

    /// Starts the fallback (libvips) only when no renderer listens.
    public func prepare() {
        if !client.isListening() { fallback.prepare() }
    }

    /// With a renderer listening, nil (libvips isn't loaded here for a header); else the fallback's.
    public func inspect(_ original: EncodedBytes, for request: ImageRequest) throws(ImgError) -> ImageHeader? {
        client.isListening() ? nil : try fallback.inspect(original, for: request)
    }

    public func render(_ request: ImageRequest, from original: EncodedBytes, context: RenderingContext) throws(ImgError)
        -> EncodedImage {
        if context.sharedDecode == nil, case .memory(let input) = original, let connection = client.connect(),
           let remote = try connection.render(input, job: RenderJob(request), cancellation: context.cancellation) {
            return remote
        }
        return try fallback.render(request, from: original, context: context)
    }
}

import ImgCore

/// ImgCore's `ImageRendering` for the opt-in warm renderer, which the CLI plugs into the pipeline only with
/// `--renderer auto`: hands renderings of in-memory inputs to a running renderer (`RendererClient`), and renders
/// everything else (no renderer listening, an input in a file, variants decoded together, `--facts`) with `fallback`. So does
/// it when the renderer can't be used (another user's, gone, stopped, squatted, broken, a reply that is not the
/// image it says): at most `RendererClient.patience` seconds later, with a note for `-v` that says why.
///
/// A fetch connects to the renderer once, for its rendering: whether one runs (so that neither libvips nor a
/// header check is started here) is read from the renderer's lock (`RendererClient.isRunning`), not by
/// connecting, so `prepare` and `inspect` cost no connection of the renderer's.
public struct WarmRendering: ImageRendering {
    public let client: RendererClient
    /// Default: libvips in this process.
    public let fallback: any ImageRendering

    public init(client: RendererClient, fallback: any ImageRendering = InProcessRendering()) {
        (self.client, self.fallback) = (client, fallback)
    }

    /// Starts the fallback (libvips) only when no renderer runs.
    public func prepare() {
        if !client.isRunning() { fallback.prepare() }
    }

    /// With a renderer running, nil (libvips isn't loaded here for a header); else the fallback's.
    public func inspect(_ original: EncodedBytes, for request: ImageRequest) throws(ImgError) -> ImageHeader? {
        client.isRunning() ? nil : try fallback.inspect(original, for: request)
    }

    public func render(_ request: ImageRequest, from original: EncodedBytes, context: RenderingContext) throws(ImgError)
        -> EncodedImage {
        var why: String?
        if context.sharedDecode == nil, request.facts == nil, case .memory(let input) = original, let connection = client.connect() {
            switch try connection.render(input, job: WireJob(request), cancellation: context.cancellation) {
            case .rendered(let image): return image
            case .unusable(let reason): why = "the warm renderer (pid \(connection.serverProcess)) \(reason): rendered in this process"
            }
        }
        var image = try fallback.render(request, from: original, context: context)
        if let why { image.notes.append(why) }
        return image
    }
}

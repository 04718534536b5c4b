/// Makes a variant from an original's bytes: decode, run the request's processors in order, encode. The pipeline's
/// *make variant* stage (`VariantMaker`) calls it; `InProcessRendering` (libvips in this process) is the default
/// (`PipelineConfiguration.rendering`). Implementations are called from many threads at once, at most
/// `PipelineConfiguration.renderingSlots` at a time, and never call back into the pipeline.
public protocol ImageRendering: Sendable {
    /// Gets ready for a rendering that will probably follow, while the original is still being loaded (the
    /// in-process rendering starts loading libvips on another thread). Called at most once per request, before its
    /// original is loaded, and not when the request will likely need no rendering (`--only-from-cache`, an expired
    /// variant that a 304 may renew). Default: nothing.
    func prepare()

    /// Reads an original's header (no pixels): its format and the size of one frame. The *fetch original* stage
    /// checks a fresh download with it before publishing it to the caches, so it throws as `render` would for bytes
    /// that are no image `request` accepts (empty, unknown, untrusted, over `request.decoding`'s limits). Nil when
    /// the header can't be read here (nothing is checked; the entry then records no size). Default: nil.
    func inspect(_ original: EncodedBytes, for request: ImageRequest) throws(ImgError) -> ImageHeader?

    /// Renders `request`'s variant from the bytes of its original: `request.chain` in order, then
    /// `request.encoding`, with `request.decoding`'s limits; `request.source.isRemote` restricts the decoders to
    /// the trusted ones. Bytes in a file region (a large original) should be decoded from the file, not read whole.
    /// Throws what the rendering failed with (`ImgError.image` for an image that can't be decoded or processed).
    func render(_ request: ImageRequest, from original: EncodedBytes, context: RenderingContext) throws(ImgError)
        -> EncodedImage
}

extension ImageRendering {
    public func prepare() {}
    public func inspect(_ original: EncodedBytes, for request: ImageRequest) throws(ImgError) -> ImageHeader? { nil }
}

/// What an image's header says.
public struct ImageHeader: Sendable, Equatable {
    /// Nil for a format imgfetch has no name for.
    public var format: ImageFormat?
    /// The width and the height of one frame (a page of an animation), before any orientation is applied.
    public var width: Int, height: Int
    /// The whole header the in-process decoder read, with what the integrity check found in the bytes
    /// (`InProcessRendering.inspect` sets it), so that rendering these bytes neither scans them nor opens their header
    /// again; nil: not read in this process.
    var decoded: ImageDecoder.Header?

    public init(format: ImageFormat?, width: Int, height: Int) {
        (self.format, self.width, self.height) = (format, width, height)
    }
}

/// What a rendering may use besides its request and bytes.
public struct RenderingContext: Sendable {
    /// Several variants of this input decoded once (batch `--variant`); nil (the default) when rendered alone.
    /// Each variant's bytes are the same with it or without it, so a rendering that can't use it renders as if nil.
    public var sharedDecode: SharedDecode?
    /// Cancelled on an interrupt (SIGINT, SIGTERM): a rendering that waits (e.g. on another process) stops waiting
    /// and throws; nil (the default) for none.
    public var cancellation: Cancellation?
    /// Shared by the renderings of one pipeline, so that together they decode within `--max-decode-memory`; nil
    /// (the default) for a rendering on its own.
    public var decodeBudget: DecodeMemoryBudget?
    /// What `inspect` read from these very bytes, when the *fetch original* stage checked them (a fresh download):
    /// a rendering need not check again what it found (the in-process rendering does not scan the bytes for
    /// truncation a second time). Nil (the default): nothing was checked.
    public var inspected: ImageHeader?
    /// Threads libvips gives this rendering's pixels (`PipelineConfiguration.threadsPerRendering`); nil (the
    /// default) for libvips' own number. The bytes rendered are the same either way.
    public var threadsPerRendering: Int?

    public init(sharedDecode: SharedDecode? = nil, cancellation: Cancellation? = nil) {
        (self.sharedDecode, self.cancellation) = (sharedDecode, cancellation)
    }
}

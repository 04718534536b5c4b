/// Limits and choices that apply while an image is decoded.
public struct DecodeOptions: Sendable, Hashable {
    /// Refuse images with more pixels than this over all frames, from the header; default 100,000,000.
    public var maxPixels: Int64 = 100_000_000
    /// Refuse animations with more frames than this; default 1000.
    public var maxFrames: Int = 1000
    /// Refuse inputs whose decoding needs more memory than this at once, estimated from the header
    /// (`DecodeMemory`); renderings of one pipeline together stay within it too; default 256 MiB.
    public var maxDecodeMemory: Int64 = 256 << 20
    /// Stop a rendering (decode, process, encode) that takes longer than this many seconds; default 60.
    public var maxRenderTime: Double = 60
    /// Allow SVG, PDF and other loaders libvips marks untrusted for input from the network; default false.
    public var allowUntrustedFormats = false
    /// Apply the EXIF orientation; default true.
    public var autorotate = true
    /// Take only the first frame of an animation; default false.
    public var firstFrame = false
    /// How damaged an input may be and still be decoded (`--fail-on`); default `truncated`. Not in the variant
    /// key: a result differs only when a damaged input is let through, and then the pipeline keys it apart.
    public var failOn = FailOn.standard
    /// Refuse an image whose size (its orientation applied when `autorotate`) this filter refuses, from the header,
    /// before any pixel is decoded (`ImgError.filtered`); default nil (none). Not in the variant key: it changes no
    /// result, only whether one is made.
    public var sizeFilter: SizeFilter?

    public init() {}

    /// The parts that change the output bytes, for the variant key: empty with the defaults.
    var identifierSuffix: String {
        (autorotate ? "" : ",no-autorotate") + (firstFrame ? ",first-frame" : "")
    }
}

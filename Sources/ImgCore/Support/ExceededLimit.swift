/// Which limit an input went over, and the values: the structured cause of `ImgError.overLimit`. Library wording
/// names the limit by what it bounds; the CLI front names the option that set it.
public enum ExceededLimit: Sendable, Equatable, Codable {
    /// The body is larger than `NetworkOptions.maxBytes` (`limit` bytes).
    case bodyBytes(limit: Int64)
    /// The transfer was redirected more often than `NetworkOptions.maxRedirects` (`limit`) allows.
    case redirects(limit: Int)
    /// The image has `count` frames, more than `DecodeOptions.maxFrames` (`limit`).
    case frames(count: Int, limit: Int)
    /// The image is `width` × `height` (one frame) × `frames` = `pixels`, more than `DecodeOptions.maxPixels`.
    case pixels(width: Int, height: Int, frames: Int, pixels: Int64, limit: Int64)
    /// A step of the chain (`step`, its identifier) would make `width` × `height` × `frames` = `pixels`, more than
    /// `DecodeOptions.maxPixels` (`limit`).
    case outputPixels(step: String, width: Int, height: Int, frames: Int, pixels: Int64, limit: Int64)
    /// Decoding the `width` × `height` image needs about `bytes` at once (`what` needs them: "progressive JPEG";
    /// nil for a streaming decode), more than `DecodeOptions.maxDecodeMemory` (`limit`).
    case decodeMemory(width: Int, height: Int, what: String?, bytes: Int64, limit: Int64)
    /// The rendering took longer than `DecodeOptions.maxRenderTime` (`seconds`) and was stopped.
    case renderTime(seconds: Double)

    /// A limit of the transfer (the body, redirects) rather than of the image.
    public var isTransferLimit: Bool {
        switch self {
        case .bodyBytes, .redirects: true
        case .frames, .pixels, .outputPixels, .decodeMemory, .renderTime: false
        }
    }

    /// The image's size as messages show it: `WxH`, or `WxHxN frames` for an animation.
    public var imageSize: String? {
        guard case .pixels(let width, let height, let frames, _, _) = self else { return nil }
        return "\(width)x\(height)\(frames > 1 ? "x\(frames) frames" : "")"
    }

    /// What was over the limit, before the limit is named: `a 9999x9999 progressive JPEG needs about 346 MiB to
    /// decode`, `resize(30000x30000,fill) would make 30000x30000 = 900000000 pixels`; nil for the other limits.
    public var excess: String? {
        switch self {
        case .outputPixels(let step, let width, let height, let frames, let pixels, _):
            "\(step) would make \(width)x\(height)\(frames > 1 ? "x\(frames) frames" : "") = \(pixels) pixels"
        case .decodeMemory(let width, let height, let what, let bytes, _):
            "a \(width)x\(height) \(what ?? "image") needs about \(DecodeMemory.describe(bytes)) to decode"
        default: nil
        }
    }

    /// The limit as messages show it, exactly as given: `256 MiB` or `1000 bytes` for sizes, `60s` for render time,
    /// else the number.
    public var limitText: String {
        switch self {
        case .bodyBytes(let limit): ByteSize.exact(limit)
        case .redirects(let limit): "\(limit)"
        case .frames(_, let limit): "\(limit)"
        case .pixels(_, _, _, _, let limit), .outputPixels(_, _, _, _, _, let limit): "\(limit)"
        case .decodeMemory(_, _, _, _, let limit): ByteSize.exact(limit)
        case .renderTime(let seconds): NumberText.seconds(seconds)
        }
    }

    /// In library terms, e.g. "body is over the limit of 1 MiB", "over the pixel limit: 17000x17000 = 289 MP > 100 MP".
    public var message: String {
        switch self {
        case .bodyBytes: "body is over the limit of \(limitText)"
        case .redirects(let limit): "too many redirects (the limit is \(limit))"
        case .frames(let count, let limit): "\(count) frames is over the limit of \(limit) frames"
        case .pixels(_, _, _, let pixels, let limit):
            "over the pixel limit: \(imageSize ?? "") = \(RefusalMessage.megapixels(pixels)) > \(RefusalMessage.megapixels(limit))"
        case .outputPixels(_, _, _, _, _, let limit): "\(excess ?? ""), over the limit of \(limit) pixels"
        case .decodeMemory: "\(excess ?? ""), over the limit of \(limitText)"
        case .renderTime: "rendering stopped after the time limit of \(limitText)"
        }
    }
}

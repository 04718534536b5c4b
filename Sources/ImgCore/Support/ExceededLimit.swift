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

    /// A limit of the transfer (the body, redirects) rather than of the image.
    public var isTransferLimit: Bool {
        switch self {
        case .bodyBytes, .redirects: true
        case .frames, .pixels: false
        }
    }

    /// The image's size as messages show it: `WxH`, or `WxHxN frames` for an animation.
    public var imageSize: String? {
        guard case .pixels(let width, let height, let frames, _, _) = self else { return nil }
        return "\(width)x\(height)\(frames > 1 ? "x\(frames) frames" : "")"
    }

    /// In library terms, e.g. "body is over the limit of 1 MiB", "over the pixel limit: 17000x17000 = 289 MP > 100 MP".
    public var message: String {
        switch self {
        case .bodyBytes(let limit): "body is over the limit of \(ByteSize.format(limit))"
        case .redirects(let limit): "too many redirects (the limit is \(limit))"
        case .frames(let count, let limit): "\(count) frames is over the limit of \(limit) frames"
        case .pixels(_, _, _, let pixels, let limit):
            "over the pixel limit: \(imageSize ?? "") = \(RefusalMessage.megapixels(pixels)) > \(RefusalMessage.megapixels(limit))"
        }
    }
}

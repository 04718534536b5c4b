import Foundation

/// What `--facts` reports of an image: placeholders, the dominant colour and a perceptual hash, all computed from one
/// small shrink of the image already decoded for the output.
public struct ImageFacts: Sendable, Equatable, Codable {
    /// BlurHash with the components asked for (4 x 3 by default).
    public var blurhash: String
    /// ThumbHash bytes in base64.
    public var thumbhash: String
    /// `#rrggbb`.
    public var dominantColor: String
    /// 16 hex digits.
    public var phash: String

    /// The longest side of the shrink the facts are computed from: ThumbHash's largest input.
    public static let sampleSide = ThumbHash.maximumSide

    /// The facts of `pixels`, a shrink whose sides are at most `sampleSide`.
    public init(pixels: FactPixels, blurhashComponents: (x: Int, y: Int) = BlurHash.defaultComponents) {
        blurhash = BlurHash.encode(pixels, componentsX: blurhashComponents.x, componentsY: blurhashComponents.y) ?? ""
        thumbhash = ThumbHash.encode(pixels).map { Data($0).base64EncodedString() } ?? ""
        dominantColor = DominantColor.compute(pixels)
        phash = PerceptualHash.hex(PerceptualHash.compute(pixels))
    }
}

import Foundation

/// The perceptual distance between two images of one size, from libjxl's Butteraugli API (`jxl/butteraugli.h`):
/// 0 for identical pixels, about 1 at the threshold of a visible difference, larger for larger ones. The images are
/// 8-bit sRGB (`MetricPixels`), compared in linear light (`ButteraugliReference`); the distance is Butteraugli's
/// 3-norm over the difference map (what libjxl's `butteraugli_main` prints as "3-norm"), steadier on a thumbnail
/// than the map's single worst pixel.
public enum ButteraugliDistance {
    /// The norm taken over Butteraugli's difference map: 3.
    public static let norm: Float = 3

    /// The distance of `distorted` from `reference`; both must be of one size and neither empty. A search that
    /// measures many images against one reference prepares it once instead (`ButteraugliReference`).
    public static func between(_ reference: MetricPixels, _ distorted: MetricPixels) throws(ImgError) -> Double {
        try ButteraugliReference(reference).distance(to: distorted)
    }
}

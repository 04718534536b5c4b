import Foundation

/// Where `QualitySearch` starts for a format and a target distance, and how fast it expects the distance to fall: the
/// quality that photographs' 200 px thumbnails needed for distance 1.1 on the median (measured on `make bench`'s photo
/// set, each format in its searched coding, `ImageEncoder.searchedOptions`), moved by `slope` qualities per halving or
/// doubling of the distance. JPEG needed 88 at 1.1 and 58 at 1.95 on the median, WebP 91 and 70, AVIF 82 and 58; the
/// slopes make the search's first probe (one step below the prediction) the quality that took fewest encodes at 1.95
/// (JPEG 58, WebP 64, AVIF 58). A good start saves encodes (2 when it is within one step of the answer); a bad one
/// costs at most the bound of 6, never the result: the search ends at the same boundary from any start where the
/// distances fall as the quality rises. HEIC's and JPEG XL's figures were measured at 4:2:0 by an earlier search.
enum QualityPrediction {
    /// The distance `atMeasuredDistance` was measured at: 1.1.
    static let measuredAt = 1.1
    /// The median quality for distance `measuredAt`, per format.
    static let atMeasuredDistance: [ImageFormat: Int] = [.jpeg: 88, .webp: 91, .avif: 82, .heic: 58, .jxl: 76]
    /// Qualities given up per doubling of the distance (and added per halving).
    static let slope: [ImageFormat: Double] = [.jpeg: 33, .webp: 29, .avif: 25, .heic: 22, .jxl: 20]
    /// The relative fall of the distance per quality step that took fewest encodes (`QualitySearch.lowest`'s
    /// `falling`): 3.5 % for JPEG and WebP (the median near distance 1.95 is 4 %), 6 % for AVIF and HEIC, whose
    /// distance falls in larger jumps.
    static let fall: [ImageFormat: Double] = [.jpeg: 0.035, .webp: 0.035, .avif: 0.06, .heic: 0.06, .jxl: 0.035]

    /// The predicted quality, within 7...100; nil for a format without a quality.
    static func quality(for format: ImageFormat, distance: Double) -> Int? {
        guard let base = atMeasuredDistance[format], let slope = slope[format] else { return nil }
        let moved = Double(base) - slope * log2(distance / measuredAt)
        return min(100, max(7, Int(moved.rounded())))
    }
}

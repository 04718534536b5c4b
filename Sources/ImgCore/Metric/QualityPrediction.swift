import Foundation

/// Where `QualitySearch` starts for a format and a target distance, and how fast it expects the distance to fall: the
/// quality that was the median answer for distance 2 over photographs' 200 px thumbnails (`make bench`'s photo set,
/// each format in its searched coding, `ImageEncoder.searchedOptions`), moved by `slope` qualities per halving or
/// doubling of the distance. At distance 2 JPEG's median answer was 58 and WebP's 70; AVIF's answers cluster at 58
/// and 64, and a start from 64 took fewest encodes. With these, the search took 2.7 encodes on average for JPEG, 2.7
/// for WebP and 2.6 for AVIF. A good start saves encodes (2 when the answer is the prediction or the step below it); a
/// bad one costs at most the bound of 6, never the result: the search ends at the same boundary from any start where
/// the distances fall as the quality rises. HEIC's and JPEG XL's figures were converted from an earlier measurement at
/// distance 1.1 by their slopes.
enum QualityPrediction {
    /// The distance `atMeasuredDistance` was measured at: 2.
    static let measuredAt = 2.0
    /// The median quality for distance `measuredAt`, per format.
    static let atMeasuredDistance: [ImageFormat: Int] = [.jpeg: 58, .webp: 70, .avif: 64, .heic: 39, .jxl: 59]
    /// Qualities given up per doubling of the distance (and added per halving).
    static let slope: [ImageFormat: Double] = [.jpeg: 33, .webp: 29, .avif: 25, .heic: 22, .jxl: 20]
    /// The relative fall of the distance per quality step (`QualitySearch.qualities`) that took fewest encodes
    /// (`QualitySearch.lowest`'s `falling`): 7.7 % for JPEG (its median near distance 2 is 7.9 %), 6 % for WebP,
    /// 13 % for AVIF, whose distance falls in larger jumps, and HEIC, converted as its prediction was.
    static let fall: [ImageFormat: Double] = [.jpeg: 0.077, .webp: 0.06, .avif: 0.13, .heic: 0.12, .jxl: 0.07]

    /// The predicted quality, within 10...100; nil for a format without a quality.
    static func quality(for format: ImageFormat, distance: Double) -> Int? {
        guard let base = atMeasuredDistance[format], let slope = slope[format] else { return nil }
        let moved = Double(base) - slope * log2(distance / measuredAt)
        return min(100, max(10, Int(moved.rounded())))
    }
}

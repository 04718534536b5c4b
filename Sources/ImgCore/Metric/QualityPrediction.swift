import Foundation

/// Where `QualitySearch` starts for a format and a target distance: the quality that photographs' 200 px thumbnails
/// needed for distance 1.1 on the median (measured on `make bench`'s photo set), moved by `slope` quality steps per halving
/// or doubling of the distance. A good start saves encodes (2 when it is within one step of the answer); a bad one
/// costs at most the bound of 6, never the result: the search ends at the same boundary from any start where the
/// distances fall as the quality rises.
enum QualityPrediction {
    /// The distance `atMeasuredDistance` was measured at: 1.1.
    static let measuredAt = 1.1
    /// The median quality for distance `measuredAt`, per format.
    static let atMeasuredDistance: [ImageFormat: Int] = [.jpeg: 82, .webp: 82, .avif: 58, .heic: 58, .jxl: 76]
    /// Qualities given up per doubling of the distance (and added per halving).
    static let slope: [ImageFormat: Double] = [.jpeg: 20, .webp: 20, .avif: 22, .heic: 22, .jxl: 20]

    /// The predicted quality, within 7...100; nil for a format without a quality.
    static func quality(for format: ImageFormat, distance: Double) -> Int? {
        guard let base = atMeasuredDistance[format], let slope = slope[format] else { return nil }
        let moved = Double(base) - slope * log2(distance / measuredAt)
        return min(100, max(7, Int(moved.rounded())))
    }
}

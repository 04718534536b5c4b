/// An image in 8-bit sRGB without alpha, row by row (`width * height * 3` bytes): what a perceptual distance is
/// measured on. Transparent pixels are flattened onto the output's background first, as a viewer would see them.
public struct MetricPixels: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// RGB bytes, row by row.
    public let rgb: [UInt8]

    /// `rgb` must hold `width * height * 3` bytes.
    public init(width: Int, height: Int, rgb: [UInt8]) {
        precondition(width >= 0 && height >= 0 && rgb.count == width * height * 3,
                     "MetricPixels: \(rgb.count) bytes for \(width)x\(height)")
        self.width = width
        self.height = height
        self.rgb = rgb
    }
}

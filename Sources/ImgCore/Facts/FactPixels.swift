/// A small decoded image in 8-bit sRGB with alpha, row by row (`width * height * 4` bytes, not premultiplied): what
/// every fact is computed from. Made from a shrink of the image already decoded for the output.
public struct FactPixels: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// RGBA bytes, row by row.
    public let rgba: [UInt8]

    /// `rgba` must hold `width * height * 4` bytes; a width or height under 1 is an empty image.
    public init(width: Int, height: Int, rgba: [UInt8]) {
        precondition(rgba.count == max(0, width) * max(0, height) * 4, "FactPixels: \(rgba.count) bytes for \(width)x\(height)")
        self.width = max(0, width)
        self.height = max(0, height)
        self.rgba = rgba
    }

    /// Whether any pixel is less than opaque.
    public var hasTransparency: Bool {
        stride(from: 3, to: rgba.count, by: 4).contains { rgba[$0] < 255 }
    }

    /// The image scaled to `width` x `height` by averaging the source area each output pixel covers (a box filter,
    /// exact for shrinking), in grey (Rec. 601 luma of RGB composited over white by alpha), as 0...255 values.
    public func grey(width outWidth: Int, height outHeight: Int) -> [Double] {
        guard width > 0, height > 0 else { return [Double](repeating: 255, count: outWidth * outHeight) }
        var luma = [Double](repeating: 0, count: width * height)
        for index in 0..<(width * height) {
            let j = index * 4
            let alpha = Double(rgba[j + 3]) / 255
            let over = { (value: UInt8) in Double(value) * alpha + 255 * (1 - alpha) }
            luma[index] = 0.299 * over(rgba[j]) + 0.587 * over(rgba[j + 1]) + 0.114 * over(rgba[j + 2])
        }
        var result = [Double](repeating: 0, count: outWidth * outHeight)
        let scaleX = Double(width) / Double(outWidth), scaleY = Double(height) / Double(outHeight)
        for oy in 0..<outHeight {
            let y0 = Double(oy) * scaleY, y1 = y0 + scaleY
            for ox in 0..<outWidth {
                let x0 = Double(ox) * scaleX, x1 = x0 + scaleX
                var sum = 0.0, weight = 0.0
                var y = Int(y0)
                while Double(y) < y1, y < height {
                    let wy = min(y1, Double(y + 1)) - max(y0, Double(y))
                    var x = Int(x0)
                    while Double(x) < x1, x < width {
                        let w = (min(x1, Double(x + 1)) - max(x0, Double(x))) * wy
                        sum += luma[y * width + x] * w
                        weight += w
                        x += 1
                    }
                    y += 1
                }
                result[oy * outWidth + ox] = weight > 0 ? sum / weight : 255
            }
        }
        return result
    }
}

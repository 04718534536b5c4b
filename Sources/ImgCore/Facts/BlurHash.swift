import Foundation

/// BlurHash (woltapp/blurhash): a placeholder of `componentsX` x `componentsY` cosine terms in base 83.
/// Alpha is ignored, as in the reference encoder.
public enum BlurHash {
    /// Components across and down; each 1...9. Default 4 x 3, as the reference examples use.
    public static let defaultComponents = (x: 4, y: 3)

    /// The hash of `pixels`; nil when a count is outside 1...9 or the image is empty.
    public static func encode(_ pixels: FactPixels, componentsX: Int = defaultComponents.x,
                              componentsY: Int = defaultComponents.y) -> String? {
        guard (1...9).contains(componentsX), (1...9).contains(componentsY), pixels.width > 0, pixels.height > 0 else {
            return nil
        }
        let width = pixels.width, height = pixels.height
        var linear = [Double](repeating: 0, count: width * height * 3)
        for index in 0..<(width * height) {
            for band in 0..<3 { linear[index * 3 + band] = SRGB.toLinear(pixels.rgba[index * 4 + band]) }
        }
        var factors: [(Double, Double, Double)] = []
        for j in 0..<componentsY {
            for i in 0..<componentsX {
                let normalisation: Double = (i == 0 && j == 0) ? 1 : 2
                var r = 0.0, g = 0.0, b = 0.0
                for y in 0..<height {
                    let basisY = cos(Double.pi * Double(j) * Double(y) / Double(height))
                    for x in 0..<width {
                        let basis = normalisation * cos(Double.pi * Double(i) * Double(x) / Double(width)) * basisY
                        let p = (y * width + x) * 3
                        r += basis * linear[p]; g += basis * linear[p + 1]; b += basis * linear[p + 2]
                    }
                }
                let scale = 1 / Double(width * height)
                factors.append((r * scale, g * scale, b * scale))
            }
        }
        var hash = Base83.encode((componentsX - 1) + (componentsY - 1) * 9, length: 1)
        let ac = factors.dropFirst()
        let maximum: Double
        if ac.isEmpty {
            maximum = 1
            hash += Base83.encode(0, length: 1)
        } else {
            let actual = ac.map { max(abs($0.0), abs($0.1), abs($0.2)) }.max() ?? 0
            let quantised = Int(max(0, min(82, (actual * 166 - 0.5).rounded(.down))))
            maximum = Double(quantised + 1) / 166
            hash += Base83.encode(quantised, length: 1)
        }
        let dc = factors[0]
        hash += Base83.encode((SRGB.fromLinear(dc.0) << 16) + (SRGB.fromLinear(dc.1) << 8) + SRGB.fromLinear(dc.2), length: 4)
        for factor in ac {
            let quantise = { (value: Double) in
                Int(max(0, min(18, (signedPower(value / maximum, 0.5) * 9 + 9.5).rounded(.down))))
            }
            hash += Base83.encode(quantise(factor.0) * 19 * 19 + quantise(factor.1) * 19 + quantise(factor.2), length: 2)
        }
        return hash
    }

    private static func signedPower(_ value: Double, _ exponent: Double) -> Double {
        (value < 0 ? -1 : 1) * pow(abs(value), exponent)
    }
}

/// BlurHash's base-83 digits.
enum Base83 {
    private static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")

    /// `value` in `length` digits, most significant first.
    static func encode(_ value: Int, length: Int) -> String {
        var result = ""
        var divisor = 1
        for _ in 1..<max(1, length) { divisor *= 83 }
        for _ in 0..<length {
            result.append(digits[(value / divisor) % 83])
            divisor = max(1, divisor / 83)
        }
        return result
    }
}

/// sRGB transfer curve conversions.
enum SRGB {
    static func toLinear(_ value: UInt8) -> Double {
        let v = Double(value) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// A linear value 0...1 (clamped) as an 8-bit sRGB value.
    static func fromLinear(_ value: Double) -> Int {
        let v = max(0, min(1, value))
        return v <= 0.0031308 ? Int(v * 12.92 * 255 + 0.5) : Int((1.055 * pow(v, 1 / 2.4) - 0.055) * 255 + 0.5)
    }
}

import Foundation

/// ThumbHash (evanw/thumbhash): a placeholder that also keeps the aspect ratio and alpha, in about 25 bytes.
/// Written from the format's description: luminance, two chroma channels and alpha as DCT terms, quantised to 4 bits.
public enum ThumbHash {
    /// The largest side the encoder takes; larger images are refused by the format (`nil`).
    public static let maximumSide = 100

    /// The hash bytes of `pixels` (RGB not premultiplied); nil for an empty image or one over 100 px on a side.
    public static func encode(_ pixels: FactPixels) -> [UInt8]? {
        let w = pixels.width, h = pixels.height
        guard w > 0, h > 0, w <= maximumSide, h <= maximumSide else { return nil }
        let count = w * h
        let average = averageColour(pixels)
        let hasAlpha = average.a < Double(count)
        let luminanceLimit = hasAlpha ? 5.0 : 7.0
        let longest = Double(max(w, h))
        let lx = max(1, Int(roundHalfUp(luminanceLimit * Double(w) / longest)))
        let ly = max(1, Int(roundHalfUp(luminanceLimit * Double(h) / longest)))
        // Composited over the average colour, then split into luminance, yellow-blue, red-green and alpha.
        var l = [Double](repeating: 0, count: count), p = l, q = l, a = l
        for i in 0..<count {
            let j = i * 4
            let alpha = Double(pixels.rgba[j + 3]) / 255
            let r = average.r * (1 - alpha) + alpha / 255 * Double(pixels.rgba[j])
            let g = average.g * (1 - alpha) + alpha / 255 * Double(pixels.rgba[j + 1])
            let b = average.b * (1 - alpha) + alpha / 255 * Double(pixels.rgba[j + 2])
            l[i] = (r + g + b) / 3
            p[i] = (r + g) / 2 - b
            q[i] = r - g
            a[i] = alpha
        }
        let luminance = Channel(l, width: w, height: h, nx: max(3, lx), ny: max(3, ly))
        let yellowBlue = Channel(p, width: w, height: h, nx: 3, ny: 3)
        let redGreen = Channel(q, width: w, height: h, nx: 3, ny: 3)
        let alphaChannel = hasAlpha ? Channel(a, width: w, height: h, nx: 5, ny: 5) : nil

        let isLandscape = w > h
        let header24 = Int(roundHalfUp(63 * luminance.dc))
            | Int(roundHalfUp(31.5 + 31.5 * yellowBlue.dc)) << 6
            | Int(roundHalfUp(31.5 + 31.5 * redGreen.dc)) << 12
            | Int(roundHalfUp(31 * luminance.scale)) << 18
            | (hasAlpha ? 1 << 23 : 0)
        let header16 = (isLandscape ? ly : lx)
            | Int(roundHalfUp(63 * yellowBlue.scale)) << 3
            | Int(roundHalfUp(63 * redGreen.scale)) << 9
            | (isLandscape ? 1 << 15 : 0)
        var hash: [UInt8] = [UInt8(header24 & 255), UInt8((header24 >> 8) & 255), UInt8((header24 >> 16) & 255),
                             UInt8(header16 & 255), UInt8((header16 >> 8) & 255)]
        if let alphaChannel {
            hash.append(UInt8(Int(roundHalfUp(15 * alphaChannel.dc)) | Int(roundHalfUp(15 * alphaChannel.scale)) << 4))
        }
        let start = hash.count
        let terms = [luminance, yellowBlue, redGreen].flatMap(\.ac) + (alphaChannel?.ac ?? [])
        hash.append(contentsOf: [UInt8](repeating: 0, count: (terms.count + 1) / 2))
        for (index, term) in terms.enumerated() {
            hash[start + index / 2] |= UInt8(Int(roundHalfUp(15 * term))) << ((index & 1) * 4)
        }
        return hash
    }

    /// The alpha-weighted average colour (0...1 a channel) and the sum of the alphas (the pixels' count when opaque).
    private static func averageColour(_ pixels: FactPixels) -> (r: Double, g: Double, b: Double, a: Double) {
        var average = (r: 0.0, g: 0.0, b: 0.0, a: 0.0)
        for i in 0..<(pixels.width * pixels.height) {
            let j = i * 4
            let alpha = Double(pixels.rgba[j + 3]) / 255
            average.r += alpha / 255 * Double(pixels.rgba[j])
            average.g += alpha / 255 * Double(pixels.rgba[j + 1])
            average.b += alpha / 255 * Double(pixels.rgba[j + 2])
            average.a += alpha
        }
        if average.a > 0 {
            average.r /= average.a; average.g /= average.a; average.b /= average.a
        }
        return average
    }

    /// JavaScript's `Math.round`, which the reference encoder uses: halves go up.
    private static func roundHalfUp(_ value: Double) -> Double { (value + 0.5).rounded(.down) }

    /// One channel's DC term, its AC terms (normalised to 0...1 around 0.5) and their scale.
    private struct Channel {
        var dc = 0.0
        var ac: [Double] = []
        var scale = 0.0

        init(_ values: [Double], width: Int, height: Int, nx: Int, ny: Int) {
            var fx = [Double](repeating: 0, count: width)
            for cy in 0..<ny {
                var cx = 0
                while cx * ny < nx * (ny - cy) {
                    for x in 0..<width { fx[x] = cos(Double.pi / Double(width) * Double(cx) * (Double(x) + 0.5)) }
                    var f = 0.0
                    for y in 0..<height {
                        let fy = cos(Double.pi / Double(height) * Double(cy) * (Double(y) + 0.5))
                        for x in 0..<width { f += values[x + y * width] * fx[x] * fy }
                    }
                    f /= Double(width * height)
                    if cx > 0 || cy > 0 {
                        ac.append(f)
                        scale = max(scale, abs(f))
                    } else {
                        dc = f
                    }
                    cx += 1
                }
            }
            if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
        }
    }
}

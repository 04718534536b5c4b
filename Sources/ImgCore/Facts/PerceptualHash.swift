import Foundation

/// A 64-bit DCT perceptual hash (pHash, as the `imagehash` package computes it): the image in grey at 32 x 32, its
/// 2-D DCT, and one bit per term of the 8 x 8 lowest frequencies, set when the term is above their median.
public enum PerceptualHash {
    /// The hash of `pixels`, most significant bit first (row by row over the 8 x 8 terms).
    public static func compute(_ pixels: FactPixels) -> UInt64 {
        compute(grey32: pixels.grey(width: 32, height: 32))
    }

    /// The hash of a 32 x 32 grey image given row by row.
    public static func compute(grey32 values: [Double]) -> UInt64 {
        precondition(values.count == 32 * 32)
        // DCT-II (unnormalised, as scipy's default) down the columns, then along the rows; only 8 x 8 terms kept.
        var columns = [Double](repeating: 0, count: 8 * 32) // [k][x]: term k of column x
        for k in 0..<8 {
            for x in 0..<32 {
                var sum = 0.0
                for y in 0..<32 { sum += values[y * 32 + x] * basis[k][y] }
                columns[k * 32 + x] = 2 * sum
            }
        }
        var terms = [Double](repeating: 0, count: 64)
        for k in 0..<8 {
            for l in 0..<8 {
                var sum = 0.0
                for x in 0..<32 { sum += columns[k * 32 + x] * basis[l][x] }
                terms[k * 8 + l] = 2 * sum
            }
        }
        let sorted = terms.sorted()
        let median = (sorted[31] + sorted[32]) / 2
        return terms.reduce(UInt64(0)) { ($0 << 1) | ($1 > median ? 1 : 0) }
    }

    /// The hash as 16 lower-case hex digits.
    public static func hex(_ hash: UInt64) -> String {
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// Bits that differ between two hashes.
    public static func distance(_ a: UInt64, _ b: UInt64) -> Int { (a ^ b).nonzeroBitCount }

    /// cos(pi * k * (2n + 1) / 64) for the 8 lowest k over n in 0..<32.
    private static let basis: [[Double]] = (0..<8).map { k in
        (0..<32).map { n in cos(Double.pi * Double(k) * Double(2 * n + 1) / 64) }
    }
}

import Foundation

/// Whether an embedded ICC profile describes sRGB itself, so that converting through it to sRGB would leave every
/// 8-bit value as it is (the converting costs lcms a transform per image: 2 % of a thumbnail batch's CPU, most of it
/// for profiles like these): a matrix/TRC profile (no lookup tables, which a perceptual conversion would use) from
/// RGB to XYZ whose colorants are sRGB's (D50-adapted, as ICC stores them, within 0.0015) and whose three curves are
/// the sRGB curve (a parametric curve with its parameters, or a table within 1/1024 of it at every entry).
/// The sRGB profiles photos carry pass: HP's `sRGB IEC61966-2.1`, the ICC's `black scaled` one, Elle Stone's
/// `sRGB-elle-V2-srgbtrc`; Adobe RGB, Display P3, Apple's Generic RGB and gamma curves do not.
enum StandardRGBProfile {
    /// sRGB's red, green and blue colorants adapted to D50 (IEC 61966-2-1 with the Bradford transform).
    static let colorants: [String: [Double]] = [
        "rXYZ": [0.4361, 0.2225, 0.0139], "gXYZ": [0.3851, 0.7169, 0.0971], "bXYZ": [0.1431, 0.0606, 0.7141],
    ]

    static func matches(_ profile: Data) -> Bool {
        guard let table = ICCTagTable(profile), table.colourSpace == "RGB ", table.connectionSpace == "XYZ ",
              !table.tags.keys.contains(where: { $0.hasPrefix("A2B") }) else { return false }
        for (tag, expected) in colorants {
            guard let range = table.tags[tag], range.count >= 20, table.signature(at: range.lowerBound) == "XYZ " else {
                return false
            }
            for (index, value) in expected.enumerated() {
                guard let stored = table.fixed(at: range.lowerBound + 8 + 4 * index), abs(stored - value) <= 0.0015 else {
                    return false
                }
            }
        }
        return ["rTRC", "gTRC", "bTRC"].allSatisfy { table.tags[$0].map { isStandardCurve(table, $0) } ?? false }
    }

    /// The sRGB curve: linear light for an encoded value 0...1.
    static func standardCurve(_ encoded: Double) -> Double {
        encoded <= 0.04045 ? encoded / 12.92 : pow((encoded + 0.055) / 1.055, 2.4)
    }

    /// A `curv` table within 1/1024 of the sRGB curve at each of its (at least 16) entries, or a `para` curve of
    /// type 3 or 4 with sRGB's parameters (type 4's offsets zero).
    private static func isStandardCurve(_ table: ICCTagTable, _ range: Range<Int>) -> Bool {
        let start = range.lowerBound
        switch table.signature(at: start) {
        case "curv":
            guard let count = table.uint32(at: start + 8), count >= 16, start + 12 + 2 * count <= range.upperBound else {
                return false
            }
            return (0..<count).allSatisfy { index in
                guard let stored = table.uint16(at: start + 12 + 2 * index) else { return false }
                return abs(Double(stored) / 65535 - standardCurve(Double(index) / Double(count - 1))) <= 1.0 / 1024
            }
        case "para":
            guard let type = table.uint16(at: start + 8), type == 3 || type == 4 else { return false }
            let expected = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045] + (type == 4 ? [0, 0] : [])
            guard start + 12 + 4 * expected.count <= range.upperBound else { return false }
            return expected.enumerated().allSatisfy { index, value in
                table.fixed(at: start + 12 + 4 * index).map { abs($0 - value) <= 0.001 } ?? false
            }
        default:
            return false
        }
    }
}

import Foundation
import Testing
@testable import ImgCore

/// The dominant colour groups pictures: one picture gives the same colour at any size, from 640 to 4200 px, and it is
/// the colour that covers the most of it, even when that colour is a gradient k-means splits into several clusters.
@Suite("dominant colour across sizes")
struct DominantColourLadderTests {
    /// A landscape `width` px wide (3:2): the top 70 % a sky graded from (64, 128, 208) to (192, 224, 255), the rest
    /// flat ground (40, 90, 40); every pixel with noise of up to ±8 a channel, as a camera's.
    static func landscape(width: Int, to path: String) throws {
        let height = width * 2 / 3, horizon = height * 7 / 10
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func noise() -> Double {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Double(Int(state >> 59) - 16) / 2
        }
        try StoredPNG.write(width: width, height: height, to: path) { y in
            let base: SIMD3<Double> = y < horizon
                ? SIMD3(64, 128, 208) + SIMD3(128, 96, 47) * (Double(y) / Double(horizon))
                : SIMD3(40, 90, 40)
            var row = [UInt8](repeating: 0, count: 3 * width)
            for x in 0..<width {
                for channel in 0..<3 {
                    row[3 * x + channel] = UInt8(max(0, min(255, (base[channel] + noise()).rounded())))
                }
            }
            return row
        }
    }

    static func rgb(_ hex: String) throws -> SIMD3<Int> {
        let value = try #require(Int(hex.dropFirst(), radix: 16), "\(hex)")
        return SIMD3(value >> 16, value >> 8 & 0xFF, value & 0xFF)
    }

    static func expectClose(_ colours: [String], within tolerance: Int, _ what: String) throws {
        let values = try colours.map(rgb)
        for value in values {
            let difference = value &- values[0]
            let largest = max(abs(difference.x), abs(difference.y), abs(difference.z))
            #expect(largest <= tolerance, "\(what): \(colours)")
        }
    }

    @Test func aLandscapeIsItsSkyAtEverySize() throws {
        let work = try TemporaryDirectory()
        var colours: [String] = []
        for width in [640, 1600, 4200] {
            let path = work.file("landscape-\(width).png")
            try Self.landscape(width: width, to: path)
            colours.append(try ImageInspection.facts(try Data(contentsOf: URL(fileURLWithPath: path))).dominantColor)
        }
        for colour in colours {
            let value = try Self.rgb(colour)
            #expect(value.z > 200 && value.z > value.x + 40, "the sky covers 70 %, the ground 30 %: \(colours)")
        }
        try Self.expectClose(colours, within: 3, "one landscape at 640, 1600 and 4200 px")
    }

    /// Real photos thumbnailed by imgfetch to 640 px and enlarged to 1600 and 4200 px keep their colour.
    @Test(arguments: ["plane.jpg", "grass.jpg"])
    func aPhotoKeepsItsColourAcrossSizes(photo: String) throws {
        let work = try TemporaryDirectory()
        var colours: [String] = []
        for width in [640, 1600, 4200] {
            let output = work.file("\(width).jpg")
            let made = try Imgfetch.runInProcess([Paths.images + "/photos/" + photo, "--no-cache", "--resize", "\(width)x",
                                         "--upscale", "-o", output])
            #expect(made.status == 0, "\(made.stderr)")
            colours.append(try ImageInspection.facts(try Data(contentsOf: URL(fileURLWithPath: output))).dominantColor)
        }
        try Self.expectClose(colours, within: 4, "\(photo) at 640, 1600 and 4200 px")
    }
}

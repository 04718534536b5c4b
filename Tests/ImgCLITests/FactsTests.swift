import Foundation
import Testing
@testable import ImgCore

/// BlurHash, ThumbHash, dominant colour and perceptual hash: known vectors from the reference implementations, and
/// the properties the facts promise on real photos.
@Suite("Image facts")
struct FactsTests {
    /// A deterministic test pattern: red across, green down, a blue ripple, and optional varying alpha.
    static func pattern(width: Int, height: Int, alpha: Bool) -> FactPixels {
        var rgba: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                rgba += [UInt8(x * 255 / max(1, width - 1)), UInt8(y * 255 / max(1, height - 1)),
                         UInt8((x + y) * 37 % 256), alpha ? UInt8((x * 7 + y * 3) % 256) : 255]
            }
        }
        return FactPixels(width: width, height: height, rgba: rgba)
    }

    /// The vectors were computed from the same patterns by the reference encoders on PyPI (`blurhash` 1.1.4, the
    /// woltapp algorithm, and `thumbhash` 0.1.2, evanw's), and the pHash by `imagehash` 4.3's `phash`.
    @Test(arguments: [
        (40, 30, "L$HetS2o$4X8l{WVjtf7gIfjfPfj", "HwgKNZpwd3dweHh3d3eHd4CACPh4"),
        (100, 64, "L%HV9x2Z$4Sehpayjrf8gcfPfRfS", "3/cJPJpwd4dwh4h3iHeAgAj4dw=="),
        (1, 1, "L00000fQfQfQfQfQfQfQfQfQfQfQ", "AAgCBwAAAAAAAAAAAAAAAAAAAAAAAAAA"),
    ])
    func placeholdersMatchTheReferenceEncoders(width: Int, height: Int, blurhash: String, thumbhash: String) {
        let facts = ImageFacts(pixels: Self.pattern(width: width, height: height, alpha: false))
        #expect(facts.blurhash == blurhash)
        #expect(facts.thumbhash == thumbhash)
    }

    @Test func blurhashTakesOtherComponentCounts() throws {
        let pixels = Self.pattern(width: 40, height: 30, alpha: false)
        let hash = try #require(BlurHash.encode(pixels, componentsX: 9, componentsY: 1))
        #expect(hash.count == 4 + 2 * 9)
        #expect(hash.first == "8") // (9 - 1) + (1 - 1) * 9 = 8
        #expect(BlurHash.encode(pixels, componentsX: 0, componentsY: 3) == nil)
        #expect(BlurHash.encode(pixels, componentsX: 4, componentsY: 10) == nil)
    }

    /// An image with transparency sets ThumbHash's alpha flag (bit 23 of the header) and carries an alpha byte.
    @Test func thumbhashKeepsAlphaAndAspect() throws {
        let bytes = try #require(ThumbHash.encode(Self.pattern(width: 30, height: 50, alpha: true)))
        #expect(bytes[2] & 0x80 != 0)
        let opaque = try #require(ThumbHash.encode(Self.pattern(width: 50, height: 30, alpha: false)))
        #expect(opaque[2] & 0x80 == 0)
        #expect(opaque[4] & 0x80 != 0, "landscape flag")
        #expect(ThumbHash.encode(Self.pattern(width: 101, height: 10, alpha: false)) == nil)
    }

    @Test func perceptualHashMatchesImagehash() {
        var grey: [Double] = []
        for y in 0..<32 {
            for x in 0..<32 { grey.append(Double((x * 13 + y * y * 3 + (x * y) % 17) % 256)) }
        }
        #expect(PerceptualHash.hex(PerceptualHash.compute(grey32: grey)) == "8e098d4e494b5e5f")
        #expect(PerceptualHash.distance(0b1011, 0b0110) == 3)
    }

    /// Two thirds of the pixels pure green, one third pure red: the dominant colour is the green, where the mean
    /// would be a muddy olive.
    @Test func dominantColourIsTheLargestClusterNotTheMean() {
        var rgba: [UInt8] = []
        for index in 0..<(30 * 30) { rgba += index % 3 == 0 ? [230, 20, 20, 255] : [20, 200, 40, 255] }
        #expect(DominantColor.compute(FactPixels(width: 30, height: 30, rgba: rgba)) == "#14c828")
        let transparent = FactPixels(width: 2, height: 1, rgba: [255, 0, 0, 0, 0, 255, 0, 255])
        #expect(DominantColor.compute(transparent) == "#00ff00", "transparent pixels are left out")
    }

    /// One photo thumbnailed at 500 and 700 px keeps its perceptual hash within 6 bits; two different photos are
    /// at least 16 bits apart. Thumbnails made by imgfetch itself.
    @Test func perceptualHashTellsPhotosApart() throws {
        let work = try TemporaryDirectory()
        func thumbnail(_ photo: String, _ width: Int) throws -> Data {
            let output = work.file("\(width)-\(photo).png")
            let result = try Imgfetch.runInProcess([Paths.images + "/photos/" + photo, "--no-cache", "--resize", "\(width)x",
                                           "-o", output])
            #expect(result.status == 0, "\(result.stderr)")
            return try Data(contentsOf: URL(fileURLWithPath: output))
        }
        var hashes: [String: UInt64] = [:]
        for photo in ["plane.jpg", "grass.jpg"] {
            let small = try ImageInspection.facts(try thumbnail(photo, 500))
            let large = try ImageInspection.facts(try thumbnail(photo, 700))
            let a = try #require(UInt64(small.phash, radix: 16)), b = try #require(UInt64(large.phash, radix: 16))
            #expect(PerceptualHash.distance(a, b) <= 6, "\(photo): \(small.phash) vs \(large.phash)")
            hashes[photo] = a
        }
        #expect(PerceptualHash.distance(hashes["plane.jpg"]!, hashes["grass.jpg"]!) >= 16)
    }

    /// The sample the facts come from: at most 100 px a side, RGBA, from the first frame only.
    @Test func sampleIsSmallRGBAOfTheFirstFrame() throws {
        let photo = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/photos/grass.jpg"))
        let pixels = try ImageInspection.factPixels(photo)
        #expect(pixels.width == 100 && pixels.height == 75)
        #expect(pixels.rgba.count == 100 * 75 * 4)
        let animation = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/cogs.gif"))
        let frame = try ImageInspection.factPixels(animation)
        #expect(max(frame.width, frame.height) <= 100 && frame.width > 0)
    }
}

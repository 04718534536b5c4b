import Foundation
import Testing
@testable import ImgCore

/// `resize(WxH,pad[=COLOR])`: the image fitted in the box (enlarged if need be) and centred on a canvas of the
/// box, white by default (img2dataset's `border`), in every band layout and on every frame.
@Suite("Resize pad: fitted and centred on a canvas of the box")
struct ResizePadTests {
    /// The chain rendered from the fixture `name` as PNG, decoded again: its size and its pixels (raw, interleaved).
    static func rendered(_ name: String, _ chain: String) throws -> (image: EncodedImage, pixels: [UInt8], bands: Int) {
        try rendered(try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/" + name)), chain)
    }

    static func rendered(_ input: Data, _ chain: String) throws -> (image: EncodedImage, pixels: [UInt8], bands: Int) {
        let made = try Rendering.render(.memory(input), isRemote: false, chain: try ProcessingChain.parse(chain),
                                        encoding: OutputEncoding(format: .png), decoding: DecodeOptions())
        let work = try TemporaryDirectory()
        try made.data.write(to: URL(fileURLWithPath: work.file("out.png")))
        let decoded = try DecodedFixture.decoded(work.file("out.png"))
        return (made, try DecodedFixture.pixels(decoded), decoded.bands)
    }

    /// The bytes of pixel (x, y) of an image `width` wide with `bytesPerPixel` bytes a pixel.
    static func pixel(_ pixels: [UInt8], x: Int, y: Int, width: Int, bytesPerPixel: Int) -> [UInt8] {
        let start = (y * width + x) * bytesPerPixel
        return Array(pixels[start..<start + bytesPerPixel])
    }

    @Test func aPhotoIsFittedAndCentredOnTheColour() throws {
        // 290x442 fits 100x100 as 66x100: 17 columns of canvas on the left, 17 on the right.
        let white = try Self.rendered("sample.jpg", "resize(100x100,pad)")
        #expect(white.image.width == 100 && white.image.height == 100 && white.bands == 3)
        #expect(Self.pixel(white.pixels, x: 0, y: 50, width: 100, bytesPerPixel: 3) == [255, 255, 255])
        #expect(Self.pixel(white.pixels, x: 99, y: 50, width: 100, bytesPerPixel: 3) == [255, 255, 255])
        #expect(Self.pixel(white.pixels, x: 50, y: 50, width: 100, bytesPerPixel: 3) != [255, 255, 255])
        let black = try Self.rendered("sample.jpg", "resize(100x100,pad=black)")
        #expect(Self.pixel(black.pixels, x: 16, y: 0, width: 100, bytesPerPixel: 3) == [0, 0, 0])
        #expect(Self.pixel(black.pixels, x: 50, y: 50, width: 100, bytesPerPixel: 3)
                == Self.pixel(white.pixels, x: 50, y: 50, width: 100, bytesPerPixel: 3), "the image itself is the same")
        // Enlarged when smaller than the box: 290x442 fits 1000x500 as 328x500.
        let large = try Self.rendered("sample.jpg", "resize(1000x500,pad)")
        #expect(large.image.width == 1000 && large.image.height == 500)
    }

    @Test func greyAndAlphaImagesGetTheirOwnCanvas() throws {
        // A grey image (one band) gets the colour's grey: 40x20 fits 50x50 as 50x25, 12 rows of canvas above.
        let work = try TemporaryDirectory()
        let made = try Imgfetch.run(["black", work.file("grey.png"), "40", "20"], program: "/usr/bin/vips")
        #expect(made.status == 0, "\(made.stderr)")
        let grey = try Self.rendered(try Data(contentsOf: URL(fileURLWithPath: work.file("grey.png"))), "resize(50x50,pad=#ff0000)")
        #expect(grey.bands == 1 && grey.image.width == 50 && grey.image.height == 50)
        #expect(grey.pixels[0] == 54 && grey.pixels[25 * 50 + 25] == 0, "red's grey above, the black image in the middle")
        // An image with alpha, padded with transparent: the canvas is transparent.
        let clear = try Self.rendered("rgba.png", "resize(100x50,pad=transparent)")
        #expect(clear.bands == 4 && Self.pixel(clear.pixels, x: 0, y: 25, width: 100, bytesPerPixel: 4)[3] == 0)
        // An opaque image padded with a colour that is not opaque gets an alpha band.
        let added = try Self.rendered("sample.jpg", "resize(100x100,pad=#ff000080)")
        #expect(added.bands == 4 && Self.pixel(added.pixels, x: 0, y: 50, width: 100, bytesPerPixel: 4) == [255, 0, 0, 128])
        #expect(Self.pixel(added.pixels, x: 50, y: 50, width: 100, bytesPerPixel: 4)[3] == 255)
    }

    @Test func everyFrameOfAnAnimationIsPadded() throws {
        let input = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/cogs.gif"))
        let animated = try Rendering.render(.memory(input), isRemote: false, chain: try ProcessingChain.parse("resize(100x100,pad)"),
                                            encoding: OutputEncoding(format: .webp), decoding: DecodeOptions())
        #expect(animated.width == 100 && animated.height == 100 && animated.frames == 5)
    }

    @Test func theIdentifierNamesTheColourAndABadOneIsRefused() throws {
        #expect(try ProcessingChain.parse("resize(100x100,pad)").identifier == "resize(100x100,pad=#ffffff)")
        #expect(try ProcessingChain.parse("resize(100x100,pad=white)").identifier == "resize(100x100,pad=#ffffff)")
        #expect(try ProcessingChain.parse("resize(100x100,pad=#000)").identifier == "resize(100x100,pad=#000000)")
        #expect(throws: ImgError.self) { try ProcessingChain.parse("resize(100x100,pad=nocolour)") }
        #expect(throws: ImgError.self) { try ProcessingChain.parse("resize(100x,pad)") }
    }
}

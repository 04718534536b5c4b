import Foundation
import Testing
@testable import ImgCore

/// vipsthumbnail's and ImageMagick's size syntax, flips and rotations by any multiple of 90 (issue #13).
@Suite("Geometry")
struct GeometryTests {
    /// rotation/0.png is 290x442, like libvips' own test image.
    static let source = Paths.images + "/rotation/0.png"

    static func size(after chain: String) throws -> (Int, Int) {
        let data = try Data(contentsOf: URL(fileURLWithPath: source))
        let image = try Rendering.render(.memory(data), isRemote: false, chain: ProcessingChain.parse(chain),
                                             encoding: OutputEncoding(format: .png), decoding: DecodeOptions())
        return (image.width, image.height)
    }

    @Test(arguments: [
        ("200x200>", 131, 200), ("1000x1000<", 656, 1000), ("100x100^", 100, 152), ("50%", 145, 221),
        ("50%x25%", 145, 111), ("100x100!", 100, 100), ("200x200", 131, 200), ("1000x1000>", 290, 442),
        ("100x100<", 290, 442), ("1000x1000^", 1000, 1524), ("200%", 580, 884),
    ])
    func theGeometryTable(size: String, width: Int, height: Int) throws {
        #expect(try Self.size(after: "resize(\(size))") == (width, height), "resize(\(size))")
        // As the --resize option gives the step (the size, then the modes after ':').
        let step = try ProcessingChain.step(named: "resize", arguments: [size])
        #expect(step.identifier == (try ProcessingChain.parse("resize(\(size))").identifier))
    }

    @Test func equalResultsHaveOneIdentifier() throws {
        func id(_ text: String) throws -> String { try ProcessingChain.parse(text).identifier }
        #expect(try id("resize(200x200>)") == id("resize(200x200)"))
        #expect(try id("resize(200x200>)") == "resize(200x200,fit)")
        #expect(try id("resize(100x100!)") == id("resize(100x100,exact)"))
        #expect(try id("resize(100x100^)") == id("resize(100x100,cover)"))
        #expect(try id("resize(50%x50%)") == "resize(50%)")
        #expect(try id("resize(1000x1000<)") == "resize(1000x1000,fit,enlarge-only)")
        #expect(try id("rotate(-90)") == "rotate(270)")
        #expect(try id("rotate(-270)") == id("rotate(90)"))
        #expect(try id("rotate(540)") == id("rotate(180)"))
        #expect(try id("rotate(360)|>grayscale") == id("grayscale"))
        #expect(try id("flip()|>flop") == "flip|>flop")
    }

    /// `upscale` is refused where it would do nothing (a resize that enlarges as it says: it was dropped silently).
    @Test(arguments: ["resize(200x200!,fill)", "resize(50%,fit)", "resize(200x200>,upscale)", "resize(x%)", "rotate(45)", "flip(1)",
                      "resize(200x200,fill,upscale)", "resize(50%,upscale)", "resize(200x200^,upscale)", "resize(9x9,pad,upscale)"])
    func contradictionsAreUsageErrors(chain: String) {
        #expect(throws: ImgError.self) { try ProcessingChain.parse(chain) }
    }

    @Test func flipFlopAndRotateMoveTheCorners() throws {
        // The top-left corner moves to the top right (flop), the bottom left (flip and rotate(-90)).
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.source))
        func render(_ chain: String) throws -> EncodedImage {
            try Rendering.render(.memory(data), isRemote: false, chain: ProcessingChain.parse(chain),
                                     encoding: OutputEncoding(format: .png), decoding: DecodeOptions())
        }
        let plain = try render("resize(29x44,exact)"), flopped = try render("resize(29x44,exact)|>flop")
        let flipped = try render("resize(29x44,exact)|>flip"), turned = try render("resize(29x44,exact)|>rotate(-90)")
        #expect((turned.width, turned.height) == (44, 29))
        let corner = try ImageInspection.pixel(plain.data, x: 0, y: 0)
        #expect(try ImageInspection.pixel(flopped.data, x: 28, y: 0) == corner)
        #expect(try ImageInspection.pixel(flipped.data, x: 0, y: 43) == corner)
        #expect(try ImageInspection.pixel(turned.data, x: 0, y: 28) == corner)
        #expect(try ImageInspection.pixel(plain.data, x: 28, y: 43) != corner)
    }
}

import Foundation
import Testing
@testable import ImgCore

/// Formats, animation, orientation and colour, checked on the bytes the binary writes.
@Suite("Formats, animation, orientation and colour")
struct FormatTests {
    let work: TemporaryDirectory

    init() throws {
        work = try TemporaryDirectory()
    }

    /// Runs imgfetch on a bundled image without any cache and returns the output bytes.
    func render(_ image: String, _ arguments: [String], verbose: Bool = false) throws -> (Data, CommandResult) {
        let output = work.file(UUID().uuidString)
        let result = try Imgfetch.runInProcess([Paths.images + "/" + image, "--no-cache", "-o", output] + arguments + (verbose ? ["-v"] : []))
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return (FileManager.default.contents(atPath: output) ?? Data(), result)
    }

    @Test(arguments: ImageFormat.writable)
    func everyOutputFormatRoundTrips(format: ImageFormat) throws {
        let (data, _) = try render("sample.jpg", ["--resize", "64x", "--format", format.rawValue])
        #expect(ImageFormat.sniff(data) == format)
        let probe = try Rendering.probe(data)
        #expect(probe.width == 64 && probe.height == 98)
        let (byExtension, _) = try render("sample.jpg", ["--resize", "32x32:fill", "-o", work.file("x.\(format.fileExtension)")])
        _ = byExtension
        let written = try #require(FileManager.default.contents(atPath: work.file("x.\(format.fileExtension)")))
        #expect(ImageFormat.sniff(written) == format)
    }

    @Test(arguments: ["1.webp", "sample.tif", "avif-orientation-6.avif", "cogs.gif", "indexed.png", "big-height.webp", "looks-like-svg.webp"])
    func everyInputFormatDecodes(name: String) throws {
        let (data, _) = try render(name, ["--resize", "50x50:fill", "--format", "png"])
        let probe = try Rendering.probe(data)
        #expect(probe.width == 50 && probe.height == 50)
    }

    @Test(arguments: [
        ["--resize", "40x40"], ["--resize", "40x40:fill"], ["--resize", "30x50:exact"], ["--crop", "30x30"],
        ["--round", "6"], ["--circle"], ["--blur", "1"], ["--overlay", "red:0.3"], ["--grayscale"], ["--rotate", "90"],
    ])
    func animationSurvivesEveryProcessor(arguments: [String]) throws {
        let source = try ImageInspection.animation(try #require(FileManager.default.contents(atPath: Paths.images + "/cogs.gif")))
        #expect(source.frames == 5)
        let (webp, _) = try render("cogs.gif", arguments + ["--format", "webp"])
        let animation = try ImageInspection.animation(webp)
        #expect(animation.frames == source.frames)
        #expect(animation.delays.count == source.frames)
        #expect(Array(animation.delays.dropFirst()) == Array(source.delays.dropFirst()))
        #expect(animation.loop == source.loop)
    }

    @Test func gifToWebpAndBackKeepsTheAnimation() throws {
        let (webp, _) = try render("dispose-background.gif", ["--resize", "60x", "--format", "webp"])
        let path = work.file("cramps.webp")
        try webp.write(to: URL(fileURLWithPath: path))
        let back = try Imgfetch.runInProcess([path, "--no-cache", "--format", "gif", "-o", work.file("back.gif")])
        #expect(back.status == 0)
        let original = try ImageInspection.animation(try #require(FileManager.default.contents(atPath: Paths.images + "/dispose-background.gif")))
        let roundTrip = try ImageInspection.animation(try #require(FileManager.default.contents(atPath: work.file("back.gif"))))
        #expect(original.frames > 1 && roundTrip.frames == original.frames)
    }

    @Test func stillFormatsGetTheFirstFrameAndSaySo() throws {
        let (png, result) = try render("cogs.gif", ["--format", "png"], verbose: true)
        #expect(try ImageInspection.animation(png).frames == 1)
        #expect(result.stderr.contains("first of 5 frames"))
        let (first, _) = try render("cogs.gif", ["--first-frame", "--format", "webp"])
        #expect(try ImageInspection.animation(first).frames == 1)
        let limited = try Imgfetch.runInProcess([Paths.images + "/cogs.gif", "--no-cache", "--max-frames", "3", "-o", work.file("f.webp")])
        #expect(limited.status == 5 && limited.stderr.contains("--max-frames"))
        // The frames are counted with --first-frame too (the man page says so; it was let through).
        let counted = try Imgfetch.runInProcess([Paths.images + "/cogs.gif", "--no-cache", "--max-frames", "4", "--first-frame",
                                                 "-o", work.file("g.png")])
        #expect(counted.status == 5 && counted.stderr.contains("--max-frames"), "\(counted.stderr)")
    }

    /// A still output of an animation is its first frame made alone, the same bytes as `--first-frame` makes (all
    /// frames were resized as one strip, which mixed rows of the second frame into the first's last rows).
    @Test func aStillOutputOfAnAnimationIsItsFirstFrameAlone() throws {
        for name in ["cogs.gif", "dispose-background.gif", "big-height.webp"] {
            let (still, _) = try render(name, ["--resize", "7x7", "--format", "png"])
            let (first, _) = try render(name, ["--resize", "7x7", "--format", "png", "--first-frame"])
            #expect(still == first, "\(name)")
        }
        // A multi-page TIFF whose second page differs from the first (not in size) is read as its first page.
        let (page, result) = try render("multipage/compression.tif", ["--format", "png"])
        let frames = try Rendering.probe(page).frames
        #expect(result.status == 0 && frames == 1, "\(result.stderr)")
    }

    @Test func orientationIsAppliedOnceAndUpright() throws {
        let (reference, _) = try render("rotation/1.jpg", ["--resize", "100x133:exact", "--format", "png"])
        let (upsideDown, _) = try render("rotation/3.jpg", ["--no-autorotate", "--resize", "100x133:exact", "--format", "png"])
        let wrong = try ImageInspection.difference(upsideDown, reference, rows: 20)
        for number in 1...8 {
            let (plain, _) = try render("rotation/\(number).jpg", ["--format", "png"])
            let probe = try Rendering.probe(plain)
            let expected = number <= 4 ? (308, 410) : (231, 308)
            #expect(probe.width == expected.0 && probe.height == expected.1, "\(number).jpg")
            let (scaled, _) = try render("rotation/\(number).jpg", ["--resize", "100x133:exact", "--format", "png"])
            let difference = try ImageInspection.difference(scaled, reference, rows: 20)
            #expect(difference * 3 < wrong, "\(number).jpg differs by \(difference), a wrong rotation by \(wrong)")
            let (kept, _) = try render("rotation/\(number).jpg", ["--keep-metadata", "--format", "jpeg"])
            #expect(try ImageInspection.orientation(kept) == 1)
        }
        let (avif, _) = try render("avif-orientation-6.avif", ["--resize", "300x", "--format", "jpeg"])
        let avifProbe = try Rendering.probe(avif)
        #expect(avifProbe.height > avifProbe.width)
    }

    /// Orientation is settled at decode: a resize later in the chain neither turns the image again nor turns it
    /// despite `--no-autorotate` (it did: thumbnail_image read the tag that was still there).
    @Test func aLaterResizeKeepsTheOrientationChoice() throws {
        for (arguments, expected) in [(["--no-autorotate"], (100, 75)), ([], (100, 133))] {
            for chain in ["resize(100x)", "grayscale|>resize(100x)", "blur(1)|>resize(100x)|>resize(100x)"] {
                let (png, _) = try render("rotation/6.jpg", arguments + ["-p", chain, "--format", "png"])
                let probe = try Rendering.probe(png)
                #expect(probe.width == expected.0 && probe.height == expected.1, "\(arguments) \(chain)")
            }
        }
    }

    @Test func coloursComeOutInEightBitSRGB() throws {
        let (fromCMYK, _) = try render("generated/cmyk.jpg", ["--format", "jpeg"])
        #expect(try ImageInspection.bands(fromCMYK).count == 3)
        let original = try ImageInspection.statistics(try #require(FileManager.default.contents(atPath: Paths.images + "/sample.jpg")), band: 0)
        let converted = try ImageInspection.statistics(fromCMYK, band: 0)
        #expect(abs(original.mean - converted.mean) < 25)
        let (sixteen, _) = try render("sample.png", ["--format", "png"])
        #expect(try ImageInspection.statistics(sixteen, band: 0).mean < 256)
        let (flattened, _) = try render("rgba.png", ["--format", "jpeg", "--background", "#00ff00"])
        let corner = try ImageInspection.pixel(flattened, x: 0, y: 0)
        #expect(corner.count == 3 && corner[1] > 200 && corner[0] < 60 && corner[2] < 60)
        let (kept, _) = try render("rgba.png", ["--format", "webp", "--lossless"])
        #expect(try ImageInspection.pixel(kept, x: 64, y: 64) == [137, 135, 139, 255])
    }

    @Test func variantIdentifiersCoverWhatChangesTheBytes() {
        var base = OutputEncoding(format: .webp)
        let plain = base.identifier()
        #expect(plain == OutputEncoding(format: .webp, quality: 80).identifier())
        base.lossless = true
        #expect(base.identifier() != plain)
        var jpeg = OutputEncoding(format: .jpeg)
        let white = jpeg.identifier()
        jpeg.background = Color(red: 0, green: 0, blue: 0)
        #expect(jpeg.identifier() != white)
        var png = OutputEncoding(format: .png)
        let pngWhite = png.identifier()
        png.background = Color(red: 0, green: 0, blue: 0)
        #expect(png.identifier() == pngWhite)
        var decoding = DecodeOptions()
        decoding.firstFrame = true
        #expect(OutputEncoding(format: .webp).identifier(decoding: decoding) != plain)
        decoding = DecodeOptions()
        decoding.autorotate = false
        #expect(OutputEncoding(format: .webp).identifier(decoding: decoding) != plain)
        decoding = DecodeOptions()
        decoding.maxPixels = 5
        #expect(OutputEncoding(format: .webp).identifier(decoding: decoding) == plain)
    }
}

extension FormatTests {
    @Test func unsupportedVariantsOfKnownFormatsAreImageErrors() throws {
        let result = try Imgfetch.runInProcess([Paths.images + "/subsampled.tif", "--no-cache", "-o", work.file("s.png")])
        #expect(result.status == 5 && result.stderr.contains("subsampled"))
    }
}

extension FormatTests {
    /// A multi-page file whose pages differ in size is read, first page only, and -v says so (it was refused:
    /// "tiff2vips: page 1 differs from page 0", exit 5, unless --first-frame).
    @Test(arguments: [ImageFormat.png, .jpeg, .webp, .gif])
    func pagesOfDifferentSizesGiveTheFirstPage(format: ImageFormat) throws {
        let (data, result) = try render("generated/multi-size-pages.tif", ["--format", format.rawValue], verbose: true)
        let probe = try Rendering.probe(data)
        #expect(probe.width == 48 && probe.height == 73 && probe.frames == 1)
        #expect(result.stderr.contains("first of 2 pages"), "\(result.stderr)")
        let (resized, _) = try render("generated/multi-size-pages.tif", ["--resize", "24x", "--rotate", "90", "--format", format.rawValue])
        let resizedProbe = try Rendering.probe(resized)
        #expect((36...37).contains(resizedProbe.width) && resizedProbe.height == 24)
        let (first, quiet) = try render("generated/multi-size-pages.tif", ["--first-frame", "--format", format.rawValue], verbose: true)
        #expect(try Rendering.probe(first).width == 48 && !quiet.stderr.contains("differ in size"))
    }

    /// Whether the pages differ is read from the pages' sizes, never from libvips' message (which, shared by
    /// concurrent renderings, may be another image's).
    @Test func onlyPagesOfDifferentSizesFallBackToTheFirstPage() throws {
        try VipsRuntime.start()
        let differing = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/generated/multi-size-pages.tif"))
        #expect(try ImageDecoder.pagesDifferingInSize(.buffer(PinnedBytes(differing))) == 2)
        let single = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.tif"))
        #expect(try ImageDecoder.pagesDifferingInSize(.buffer(PinnedBytes(single))) == nil)
        // The same from the TIFF's IFD chain, read in one pass (`TIFFPages`).
        #expect(try ImageDecoder.pagesDifferingInSize(.buffer(PinnedBytes(differing)), format: .tiff) == 2)
        #expect(try ImageDecoder.pagesDifferingInSize(.buffer(PinnedBytes(single)), format: .tiff) == nil)
    }
}

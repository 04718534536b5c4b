import Foundation
import Testing
@testable import ImgCore

/// What the encoder writes besides the pixels: metadata, quality, background; checked on the binary's output.
@Suite("Encoding: metadata, quality and background")
struct EncodingTests {
    let work: TemporaryDirectory

    init() throws {
        work = try TemporaryDirectory()
    }

    /// Runs imgfetch on a bundled image without any cache and returns the output bytes and the result.
    func render(_ image: String, _ arguments: [String]) throws -> (Data, CommandResult) {
        let output = work.file(UUID().uuidString)
        let result = try Imgfetch.runInProcess([Paths.images + "/" + image, "--no-cache", "-o", output] + arguments)
        #expect(result.status == 0, "\(image) \(arguments): \(result.stderr)")
        return (FileManager.default.contents(atPath: output) ?? Data(), result)
    }

    /// The metadata fields of `data` that carry the source's EXIF, XMP, IPTC or ICC data, and an orientation
    /// other than upright.
    func metadata(_ data: Data, format: ImageFormat) throws -> [String] {
        let fields = try ImageInspection.fieldNames(data)
        var found = fields.filter { ["exif-data", "xmp-data", "iptc-data", "photoshop-data"].contains($0) }
        // libvips' JPEG XL loader makes a profile from the codestream's colour encoding: not stored metadata.
        if format != .jxl, fields.contains("icc-profile-data") { found.append("icc-profile-data") }
        let orientation = try ImageInspection.orientation(data)
        if orientation != 1 { found.append("orientation \(orientation)") }
        return found
    }

    /// sample.jpg has EXIF, XMP and an ICC profile; rotation/6.jpg has orientation 6 (kept with --no-autorotate).
    @Test(arguments: ImageFormat.writable)
    func metadataIsStrippedInEveryFormat(format: ImageFormat) throws {
        let source = try #require(FileManager.default.contents(atPath: Paths.images + "/sample.jpg"))
        #expect(try metadata(source, format: .jpeg).count == 3)
        let (plain, _) = try render("sample.jpg", ["--format", format.rawValue])
        #expect(try metadata(plain, format: format) == [], "\(format)")
        let (turned, _) = try render("rotation/6.jpg", ["--no-autorotate", "--resize", "100x", "--format", format.rawValue])
        #expect(try metadata(turned, format: format) == [], "\(format) --no-autorotate")
        let (round, _) = try render("sample.jpg", ["--resize", "60x", "--round", "8", "--format", format.rawValue])
        #expect(try metadata(round, format: format) == [], "\(format) with alpha")
    }

    @Test(arguments: [ImageFormat.jpeg, .webp])
    func keepMetadataKeepsIt(format: ImageFormat) throws {
        let (kept, _) = try render("sample.jpg", ["--keep-metadata", "--format", format.rawValue])
        let fields = try ImageInspection.fieldNames(kept)
        #expect(fields.contains("exif-data") && fields.contains("xmp-data"), "\(fields)")
    }

    @Test func animatedWebPLosesItsMetadataButNotItsFrames() throws {
        let (webp, _) = try render("cogs.gif", ["--format", "webp"])
        #expect(try ImageInspection.animation(webp).frames == 5)
        #expect(try metadata(webp, format: .webp) == [])
    }

    /// `--quality` applies to the formats that have one (GIF failed with "no property named 'Q'" and exit 5): a format
    /// named that has none is refused before anything is read or written, `--lossless` likewise in a format with no
    /// lossless mode; PNG and TIFF take `--lossless` as given. With the source's format the setting is ignored, and
    /// `-v` says so.
    @Test(arguments: [ImageFormat.gif, .png, .tiff])
    func aQualityIsRefusedForAFormatNamedThatHasNone(format: ImageFormat) throws {
        let output = work.file(UUID().uuidString)
        let refused = try Imgfetch.runInProcess([Paths.images + "/sample.jpg", "--no-cache", "-o", output, "--quality", "10",
                                                 "--format", format.rawValue])
        #expect(refused.status == 2 && refused.stderr == "imgfetch: --quality doesn't apply to \(format.rawValue): it has no "
                + "quality setting\n", "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(OutputEncoding(format: format, quality: 10).identifier() == OutputEncoding(format: format).identifier())
        let lossless = try Imgfetch.runInProcess([Paths.images + "/sample.jpg", "--no-cache", "-o", output + ".x",
                                                  "--lossless", "--format", format.rawValue])
        #expect(lossless.status == (format == .gif ? 2 : 0), "\(lossless.stderr)")
    }

    /// `--lossless` in JPEG and AVIF, `--quality` with lossless WebP: refused when the format is named.
    @Test func losslessIsRefusedForAFormatNamedThatHasNoLosslessMode() throws {
        for (arguments, message) in [(["-o", work.file("a.jpg"), "--lossless"], "--lossless doesn't apply to jpeg"),
                                     (["--format", "avif", "-o", work.file("a"), "--lossless"], "--lossless doesn't apply to avif"),
                                     (["-o", work.file("a.webp"), "--lossless", "--quality", "50"],
                                      "--quality and --lossless contradict each other: lossless webp has no quality setting")] {
            let result = try Imgfetch.runInProcess([Paths.images + "/sample.jpg", "--no-cache"] + arguments)
            #expect(result.status == 2 && result.stderr.hasPrefix("imgfetch: " + message), "\(arguments): \(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).isEmpty, "nothing written")
    }

    @Test func qualityStillCountsWhereTheFormatHasOne() throws {
        let (animated, _) = try render("cogs.gif", ["--quality", "10"])
        #expect(ImageFormat.sniff(animated) == .gif)
        for format in [ImageFormat.jpeg, .webp] {
            let (low, _) = try render("sample.jpg", ["--quality", "10", "--format", format.rawValue])
            let (high, _) = try render("sample.jpg", ["--quality", "95", "--format", format.rawValue])
            #expect(low.count * 2 < high.count, "\(format)")
            #expect(OutputEncoding(format: format, quality: 10).identifier() != OutputEncoding(format: format).identifier())
        }
    }
}

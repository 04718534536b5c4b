import Foundation
import Testing
@testable import ImgCore

/// Truncation is decided from pixel data (issue #13): each quirk that libjpeg, libpng, giflib and libwebp read is
/// read, each form of missing pixel data is refused, the same way on every run (libvips' thread pool made earlier
/// checks intermittent, so every case is rendered many times).
@Suite("Decode fidelity")
struct DecodeFidelityTests {
    /// Inputs that are whole, with the quirk each has: read, at the default level, every run.
    static func tolerated() throws -> [(String, Data)] {
        let jpeg = try FixtureBytes.image("sample.jpg"), progressive = try FixtureBytes.image("generated/progressive.jpg")
        let png = try FixtureBytes.image("sample.png"), interlaced = try FixtureBytes.image("generated/interlaced.png")
        let gif = try FixtureBytes.image("trans-x.gif"), animation = try FixtureBytes.image("cogs.gif"), webp = try FixtureBytes.image("1.webp")
        let endOfPNG = png.count - 12
        let cases: [(String, Data)] = [
            ("JPEG without its end marker", jpeg.dropLast(2)),
            ("progressive JPEG without its end marker", progressive.dropLast(2)),
            ("JPEG with junk after its end marker", jpeg + Data("trailing junk".utf8)),
            ("PNG without IEND", png.prefix(endOfPNG)),
            ("interlaced PNG without IEND", interlaced.prefix(interlaced.count - 12)),
            ("PNG with junk after IEND", png + Data(repeating: 0x42, count: 100)),
            ("PNG whose IEND is cut", png.prefix(endOfPNG + 5)),
            ("PNG with a bad ancillary checksum", FixtureBytes.png(interlaced, changing: "pHYs") { $0[$0.count - 1] ^= 0xFF }),
            ("GIF without its trailer", gif.dropLast()),
            ("GIF with a stray byte before its trailer", gif.dropLast() + Data([0x00, 0x3B])),
            ("GIF with garbage after its last frame", animation.dropLast() + Data("garbage after the last frame".utf8)),
            ("WebP with bytes after its RIFF chunk", webp + Data(repeating: 0, count: 64)),
        ]
        return cases.map { ($0.0, Data($0.1)) }
    }

    /// Inputs whose pixel data is cut, with the row the message must name (nil: any).
    static func truncated() throws -> [(String, Data, String)] {
        let jpeg = try FixtureBytes.image("sample.jpg"), progressive = try FixtureBytes.image("generated/progressive.jpg")
        let png = try FixtureBytes.image("sample.png"), interlaced = try FixtureBytes.image("generated/interlaced.png")
        let animation = try FixtureBytes.image("cogs.gif"), webp = try FixtureBytes.image("1.webp")
        let cases: [(String, Data, String)] = [
            ("baseline JPEG cut in its scan", jpeg.prefix(jpeg.count / 2), "of 442"),
            ("progressive JPEG cut in its last scan", progressive.dropLast(200), "of 442"),
            ("PNG cut in its image data", png.prefix(png.count / 2), "of 442"),
            ("PNG missing only the end of its zlib stream", png.prefix(png.count - 12 - 6), "of 442"),
            ("interlaced PNG cut", interlaced.prefix(interlaced.count / 2), "of 120"),
            ("GIF cut in a frame", animation.prefix(animation.count / 3), "of 77"),
            ("WebP cut", webp.prefix(webp.count - 100), "the WebP file declares"),
            ("truncated.jpg", try FixtureBytes.image("truncated.jpg"), "pixel data ends at row"),
            ("truncated.gif", try FixtureBytes.image("truncated.gif"), "pixel data ends at row"),
        ]
        return cases.map { ($0.0, Data($0.1), $0.2) }
    }

    static func render(_ data: Data, failOn: FailOn = .standard) throws(ImgError) -> EncodedImage {
        var decoding = DecodeOptions()
        decoding.failOn = failOn
        return try Rendering.render(.memory(data), isRemote: true, chain: ProcessingChain.parse("resize(64x64)"),
                                        encoding: OutputEncoding(format: .png), decoding: decoding)
    }

    @Test func wholeInputsWithQuirksAreReadEveryTime() throws {
        for (name, data) in try Self.tolerated() {
            for _ in 0..<25 {
                do {
                    let image = try Self.render(data)
                    #expect(image.width > 0 && image.damage == nil, "\(name)")
                } catch {
                    Issue.record("\(name): \(error.message)")
                    break
                }
            }
        }
    }

    @Test func missingPixelDataIsRefusedEveryTimeAndSaysWhere() throws {
        var rescuedCount = 0
        for (name, data, wording) in try Self.truncated() {
            for _ in 0..<25 {
                do {
                    _ = try Self.render(data)
                    Issue.record("\(name) was read")
                    break
                } catch {
                    #expect(error.message.hasPrefix("truncated: ") && error.message.contains(wording), "\(name): \(error.message)")
                    #expect(!error.message.contains("\n"))
                }
            }
            // Under `none` the same input is decoded as far as it goes, and the result says so (a cut WebP and a
            // cut interlaced PNG are beyond libwebp and libpng, as they are for vipsthumbnail).
            if let rescued = try? Self.render(data, failOn: .none) {
                rescuedCount += 1
                #expect(rescued.damage?.hasPrefix("truncated: ") == true, "\(name)")
            }
        }
        #expect(rescuedCount >= 6)
    }

    /// A GIF frame whose LZW data holds a code that can't be is corrupt, found from the bytes: refused at the default
    /// level every run (libvips' loader fails the frame, but its thread pool lost that now and then), and under
    /// `none` the frames before it are decoded, never the one libvips fails.
    @Test func aGIFFrameWithAnInvalidCodeIsCorruptAndOnlyTheFramesBeforeItAreRead() throws {
        let data = try FixtureBytes.image("invalid_multiframe.gif")
        let damage = try #require(try IntegrityCheck.damage(in: VipsInput(.memory(data)), format: .gif))
        #expect(damage == .invalidGIFCode(row: 7, of: 9, frame: 3))
        #expect(damage.severity == .corrupt && damage.wholeFrames == 3 && !damage.refused(at: .none))
        #expect(DataDamage.invalidGIFCode(row: 7, of: 9, frame: 0).refused(at: .none), "no whole frame to decode")
        var rescue = DecodeOptions()
        rescue.failOn = .none
        for _ in 0..<20 {
            #expect(throws: ImgError.image("corrupt gif data: an invalid LZW code at row 7 of 9 of frame 4")) { try Self.render(data) }
            let animation = try Rendering.render(.memory(data), isRemote: true, chain: ProcessingChain(),
                                                     encoding: OutputEncoding(format: .gif), decoding: rescue)
            #expect(animation.frames == 3 && animation.damage == damage.message)
        }
    }

    /// A bad IDAT checksum on an image without interlace whose data still inflates whole (its zlib stream ends,
    /// Adler-32 right) is a warning, as libvips reads it at its default level (issue #38 item 10). On data that
    /// doesn't inflate whole, on an interlaced image, on IHDR, it stays corrupt (vipsthumbnail fails those too).
    /// On an ancillary chunk it is a warning.
    @Test func checksumsAreWarningsWhileTheImageDataInflatesWhole() throws {
        let plain = try FixtureBytes.image("sample.png"), interlaced = try FixtureBytes.image("generated/interlaced.png")
        let badIDAT = FixtureBytes.png(plain, changing: "IDAT") { $0[$0.count - 1] ^= 0xFF }
        let read = try Self.render(badIDAT)
        #expect(read.damage == nil && read.notes.contains { $0.contains("png IDAT chunk fails its checksum") }, "\(read.notes)")
        #expect(throws: ImgError.self) { try Self.render(badIDAT, failOn: .warning) }
        // A flipped byte inside the image data: its checksum fails, and so does its zlib stream (Adler-32 or data).
        let garbled = FixtureBytes.png(plain, changing: "IDAT") { $0[$0.count / 2] ^= 0xFF }
        #expect(throws: ImgError.image("corrupt png data: the IDAT chunk fails its checksum")) { try Self.render(garbled) }
        let badInterlaced = FixtureBytes.png(interlaced, changing: "IDAT") { $0[$0.count - 1] ^= 0xFF }
        #expect(throws: ImgError.image("corrupt png data: the IDAT chunk fails its checksum")) { try Self.render(badInterlaced) }
        let badHeader = FixtureBytes.png(plain, changing: "IHDR") { $0[$0.count - 1] ^= 0xFF }
        #expect(throws: ImgError.image("corrupt png data: the IHDR chunk fails its checksum")) { try Self.render(badHeader) }
        let badPHYs = FixtureBytes.png(interlaced, changing: "pHYs") { $0[$0.count - 1] ^= 0xFF }
        #expect(try Self.render(badPHYs).notes.contains { $0.contains("pHYs chunk fails its checksum") })
        #expect(throws: ImgError.self) { try Self.render(badPHYs, failOn: .warning) }
    }

    /// Bytes checked once are not scanned again: the damage an earlier check found is the one judged, at the level
    /// asked.
    @Test func aGivenIntegrityVerdictIsUsedInsteadOfAScan() throws {
        let whole = try FixtureBytes.image("generated/interlaced.png")
        func scanned() throws(ImgError) -> ImageDecoder.Header {
            var input = VipsInput(.memory(whole))
            return try ImageDecoder.checkHeader(&input, isRemote: true, options: DecodeOptions())
        }
        func header(_ damage: DataDamage, failOn: FailOn = .standard) throws(ImgError) -> ImageDecoder.Header {
            var earlier = try scanned()
            earlier.damage = damage
            var input = VipsInput(.memory(whole))
            var options = DecodeOptions()
            options.failOn = failOn
            return try ImageDecoder.checkHeader(&input, isRemote: true, options: options, earlier: earlier)
        }
        #expect(try scanned().damage == nil, "scanned: the file is whole")
        let noted = DataDamage(severity: .warning, message: "warning: from the earlier check")
        #expect(try header(noted).damage == noted)
        #expect(throws: ImgError.image(noted.message)) { try header(noted, failOn: .warning) }
        let cut = DataDamage.truncated(row: 3, of: 10)
        #expect(throws: ImgError.image(cut.message)) { try header(cut) }
        #expect(try header(cut, failOn: .none).damage == cut)
    }

    @Test func refusedImagesSayWhatIsWrongInOneLine() throws {
        #expect(throws: ImgError.overLimit(.pixels(width: 17000, height: 17000, frames: 1, pixels: 289_000_000, limit: 100_000_000))) {
            try Self.render(FixtureBytes.image("17000x17000.avif"))
        }
        let page = Data("<html><body>Sign in to see this picture</body></html>".utf8)
        #expect(throws: ImgError.image("not an image (text/html, \(page.count) bytes: '<html><body>Sign in …')")) {
            try Self.render(page)
        }
        #expect(ExceededLimit.pixels(width: 4000, height: 3000, frames: 1, pixels: 12_000_000, limit: 1_000_000).message
                == "over the pixel limit: 4000x3000 = 12 MP > 1.0 MP")
        #expect(ExceededLimit.pixels(width: 17000, height: 17000, frames: 1, pixels: 289_000_000, limit: 100_000_000).message
                == "over the pixel limit: 17000x17000 = 289 MP > 100 MP")
    }
}

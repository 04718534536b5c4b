import CVips
import Foundation
import Testing
@testable import ImgCore

/// `ThumbnailDecode` builds a JPEG's thumbnail of fewer libvips objects than `vips_thumbnail_buffer`: its pixels must
/// be libvips' thumbnail's own, for every JPEG of the fixtures (grey, colour, CMYK, progressive, every orientation,
/// with profiles and odd markers), every resize mode, with and without autorotation.
@Suite("Thumbnails of fewer libvips objects")
struct ThumbnailDecodeTests {
    static let jpegs: [String] = {
        let names = FileManager.default.enumerator(atPath: Paths.fixtures)?.compactMap { $0 as? String } ?? []
        return names.filter { $0.lowercased().hasSuffix(".jpg") || $0.lowercased().hasSuffix(".jpeg") }.sorted()
    }()
    static let resizes = ["resize(64x64)", "resize(200x200,fill)", "resize(150x100,exact)", "resize(120x300,cover)",
                          "resize(300x50,fill)", "resize(50%)", "resize(40x40,pad)", "resize(1000x1000<)",
                          "resize(400x400,upscale)"]

    /// Whether `ThumbnailDecode` resizes `input` itself (`imgf_thumbnail_plain`): a JPEG loaded as it loads it
    /// converts nothing and is not turned.
    func takesThePlainPath(_ input: VipsInput, header: ImageDecoder.Header, resize: ImageProcessors.Resize,
                           options: DecodeOptions) throws -> Bool {
        guard header.loader == "jpeg", header.frames == 1, !(options.autorotate && header.orientation != 1) else { return false }
        let factor = SharedDecode.jpegShrink(resize, header: header, autorotate: options.autorotate)
        let loaded = DecodedImage(taking: try #require(input.open(options: "access=sequential,shrink=\(factor)")))
        return imgf_thumbnail_is_plain(loaded.pointer) != 0
    }

    /// The image libvips' thumbnail makes of `input` with `resize`'s arguments, in 8-bit sRGB as a rendering has it.
    func libvipsThumbnail(_ input: VipsInput, header: ImageDecoder.Header, resize: ImageProcessors.Resize,
                          options: DecodeOptions) throws -> DecodedImage {
        let upright = header.orientedSize(autorotate: options.autorotate)
        let arguments = resize.thumbnailArguments(imageWidth: upright.width, imageHeight: upright.height)
        var output: UnsafeMutablePointer<VipsImage>?
        let status = input.thumbnail(&output, width: arguments.width, height: arguments.height, size: arguments.size,
                                     crop: arguments.crop, noRotate: options.autorotate ? 0 : 1,
                                     options: ImageDecoder.loadOptions(header, options: options))
        return DecodedImage(taking: try #require(status == 0 ? output : nil), source: input.owner)
    }

    @Test func itsPixelsAreLibvipsThumbnails() throws {
        try VipsRuntime.start()
        var compared = 0, plain = 0
        for name in Self.jpegs {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: Paths.fixtures + "/" + name))
            for autorotate in [true, false] {
                var options = DecodeOptions()
                options.autorotate = autorotate
                options.failOn = .none
                var input = VipsInput.buffer(PinnedBytes(bytes))
                guard let header = try? ImageDecoder.checkHeader(&input, isRemote: false, options: options) else { continue }
                for chain in Self.resizes {
                    let resize = try #require(try ProcessingChain.parse(chain).steps.first as? ImageProcessors.Resize)
                    let expected = try? libvipsThumbnail(input, header: header, resize: resize, options: options)
                    let made = try? ThumbnailDecode.decode(input, header: header, resize: resize, options: options, clock: nil)
                    guard let expected, let made else {
                        #expect((expected == nil) == (made == nil), "\(name) \(chain): one of them failed")
                        continue
                    }
                    let (ours, theirs) = (try DecodedFixture.pixels(made), try DecodedFixture.pixels(expected))
                    #expect(ours == theirs && made.width == expected.width && made.height == expected.height
                            && imgf_bands(made.pointer) == imgf_bands(expected.pointer), "\(name) \(chain) autorotate \(autorotate)")
                    compared += 1
                    if try takesThePlainPath(input, header: header, resize: resize, options: options) { plain += 1 }
                }
            }
        }
        #expect(Self.jpegs.count > 40 && compared > 500 && plain > 300, "\(Self.jpegs.count) files, \(compared) compared, \(plain) plain")
    }

    /// A crop decodes the whole input while it is built: a JPEG that fails there is said to be corrupt, as
    /// `vips_thumbnail_buffer` said it (not "resize failed").
    @Test func aJPEGThatFailsWhileCroppedIsCorrupt() throws {
        try VipsRuntime.start()
        var options = DecodeOptions()
        options.failOn = .none
        var input = VipsInput.buffer(PinnedBytes(try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/truncated.jpg"))))
        let header = try ImageDecoder.checkHeader(&input, isRemote: false, options: options)
        options.failOn = .warning
        let resize = try #require(try ProcessingChain.parse("resize(64x64,fill)").steps.first as? ImageProcessors.Resize)
        #expect(throws: ImgError.self) { try ThumbnailDecode.decode(input, header: header, resize: resize, options: options, clock: nil) }
        do {
            _ = try ThumbnailDecode.decode(input, header: header, resize: resize, options: options, clock: nil)
        } catch {
            #expect(error.message.hasPrefix("corrupt or unsupported image: "), "\(error)")
        }
    }
}

import CVips
import Foundation
import Testing
@testable import ImgCore

/// `ThumbnailDecode` builds a JPEG's or PNG's thumbnail of fewer libvips objects than `vips_thumbnail_buffer`: its
/// pixels must be libvips' thumbnail's own, for every JPEG of the fixtures (grey, colour, CMYK, progressive, every
/// orientation, with profiles and odd markers) and every PNG (PngSuite's bit depths, palettes, alpha, interlacing,
/// gamma and profiles), every resize mode, with and without autorotation. The libvips work runs in a
/// `VipsErrorScope`, as a rendering's does: the fixtures' decoder warnings must not reach the messages of the
/// renderings other tests run at the same time (`ErrorAttributionTests`).
@Suite("Thumbnails of fewer libvips objects")
struct ThumbnailDecodeTests {
    static let fixtureNames = FileManager.default.enumerator(atPath: Paths.fixtures)?.compactMap { $0 as? String } ?? []
    static let jpegs = fixtureNames.filter { $0.lowercased().hasSuffix(".jpg") || $0.lowercased().hasSuffix(".jpeg") }.sorted()
    /// PngSuite's every kind of PNG and a quarter of Pillow's (larger ones, mostly 8-bit colour: the plain ones).
    static let pngs = fixtureNames.filter { $0.lowercased().hasSuffix(".png") }.sorted().enumerated()
        .filter { !$0.element.hasPrefix("pillow/") || $0.offset % 4 == 0 }.map(\.element)
    static let pngResizes = ["resize(64x64)", "resize(200x200,fill)", "resize(50%)", "resize(16x16,cover)"]
    static let resizes = ["resize(64x64)", "resize(200x200,fill)", "resize(150x100,exact)", "resize(120x300,cover)",
                          "resize(300x50,fill)", "resize(50%)", "resize(40x40,pad)", "resize(1000x1000<)",
                          "resize(400x400,upscale)"]

    /// What one comparison found.
    struct Comparison {
        var compared = 0
        var plain = 0
        /// Of the plain ones, those whose reduces were built alone (`imgf_thumbnail_reduced_alone`).
        var reducedAlone = 0
        var mismatches: [String] = []
        /// The counts, for a failed expectation's message.
        var summary: String { "\(compared) compared, \(plain) plain, \(reducedAlone) reduced alone" }
    }

    /// Whether `ThumbnailDecode` resizes `input` itself (`imgf_thumbnail_plain`): a JPEG or PNG loaded as it loads
    /// it converts nothing and is not turned.
    static func takesThePlainPath(_ input: VipsInput, header: ImageDecoder.Header, resize: ImageProcessors.Resize,
                                  options: DecodeOptions) throws(ImgError) -> Bool {
        guard let loadOptions = ThumbnailDecode.loadOptions(header, resize: resize, options: options),
              !(options.autorotate && header.orientation != 1) else { return false }
        guard let opened = input.open(options: loadOptions) else {
            throw .internalFailure("cannot open: \(VipsRuntime.takeError())")
        }
        return imgf_thumbnail_is_plain(DecodedImage(taking: opened).pointer) != 0
    }

    /// The image libvips' thumbnail makes of `input` with `resize`'s arguments.
    static func libvipsThumbnail(_ input: VipsInput, header: ImageDecoder.Header, resize: ImageProcessors.Resize,
                                 options: DecodeOptions) -> DecodedImage? {
        let upright = header.orientedSize(autorotate: options.autorotate)
        let arguments = resize.thumbnailArguments(imageWidth: upright.width, imageHeight: upright.height)
        var output: UnsafeMutablePointer<VipsImage>?
        let status = input.thumbnail(&output, width: arguments.width, height: arguments.height, size: arguments.size,
                                     crop: arguments.crop, noRotate: options.autorotate ? 0 : 1,
                                     options: ImageDecoder.loadOptions(header, options: options))
        return status == 0 ? output.map { DecodedImage(taking: $0, source: input.owner) } : nil
    }

    /// Every image's pixels (libvips' raw memory format), or nil when they can't be computed.
    static func pixels(_ image: DecodedImage) -> [UInt8]? {
        var length = 0
        guard let block = imgf_write_to_memory(image.pointer, &length) else { return nil }
        defer { g_free(block) }
        return [UInt8](UnsafeRawBufferPointer(start: block, count: length))
    }

    /// The image written as an encoder writes it, strip by strip on one thread (libvips' disc sink, as a batch's
    /// renderings run): lossless PNG bytes, or nil. Which parts of the image libvips computes at once, and in what
    /// order, must not change a pixel either.
    static func written(_ image: DecodedImage) -> [UInt8]? {
        guard let single = try? image.limitingThreads(1) else { return nil }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard imgf_write_to_buffer(single.pointer, ".png[compression=1]", &buffer, &length) == 0, let buffer else { return nil }
        defer { g_free(buffer) }
        return [UInt8](UnsafeRawBufferPointer(start: buffer, count: length))
    }

    /// Compares the two thumbnails of the image `name` for every resize, with and without autorotation.
    static func compare(_ name: String, resizes: [String], into found: inout Comparison) throws(ImgError) {
        guard let bytes = FileManager.default.contents(atPath: Paths.fixtures + "/" + name) else {
            throw .internalFailure("cannot read \(name)")
        }
        for autorotate in [true, false] {
            var options = DecodeOptions()
            options.autorotate = autorotate
            options.failOn = .none
            var input = VipsInput.buffer(PinnedBytes(bytes))
            guard let header = try? ImageDecoder.checkHeader(&input, isRemote: false, options: options) else { continue }
            for chain in resizes {
                guard let resize = try ProcessingChain.parse(chain).steps.first as? ImageProcessors.Resize else {
                    throw .internalFailure("\(chain) is no resize")
                }
                let expected = libvipsThumbnail(input, header: header, resize: resize, options: options)
                let reduced = imgf_thumbnail_reduced_alone()
                let made = try? ThumbnailDecode.decode(input, header: header, resize: resize, options: options, clock: nil)
                if imgf_thumbnail_reduced_alone() > reduced { found.reducedAlone += 1 }
                let shown = "\(name) \(chain) autorotate \(autorotate)"
                guard let expected, let made else {
                    if (expected == nil) != (made == nil) { found.mismatches.append("\(shown): one of them failed") }
                    continue
                }
                let (ours, theirs) = (pixels(made), pixels(expected))
                if ours == nil || ours != theirs || written(made) != written(expected)
                    || made.width != expected.width || made.height != expected.height
                    || imgf_bands(made.pointer) != imgf_bands(expected.pointer) {
                    found.mismatches.append(shown)
                }
                found.compared += 1
                if try takesThePlainPath(input, header: header, resize: resize, options: options) { found.plain += 1 }
            }
        }
    }

    /// Compares every thumbnail of `names`.
    static func compareAll(_ names: [String], resizes: [String]) throws -> Comparison {
        var found = Comparison()
        for name in names {
            try VipsErrorScope.run({ () throws(ImgError) in try Self.compare(name, resizes: resizes, into: &found) },
                                   rerunnable: { _ in false })
        }
        return found
    }

    @Test func itsPixelsAreLibvipsThumbnails() throws {
        let found = try Self.compareAll(Self.jpegs, resizes: Self.resizes)
        #expect(found.mismatches.isEmpty, "\(found.mismatches.prefix(5))")
        #expect(Self.jpegs.count > 40 && found.compared > 500 && found.plain > 300 && found.reducedAlone > 200,
                "\(Self.jpegs.count) files, \(found.summary)")
    }

    @Test func aPNGsPixelsAreLibvipsThumbnails() throws {
        let found = try Self.compareAll(Self.pngs, resizes: Self.pngResizes)
        #expect(found.mismatches.isEmpty, "\(found.mismatches.prefix(5))")
        #expect(Self.pngs.count > 200 && found.compared > 1500 && found.plain > 1000 && found.reducedAlone > 600,
                "\(Self.pngs.count) files, \(found.summary)")
    }

    /// A crop decodes the whole input while it is built: a JPEG that fails there is said to be corrupt, as
    /// `vips_thumbnail_buffer` said it (not "resize failed").
    @Test func aJPEGThatFailsWhileCroppedIsCorrupt() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/truncated.jpg"))
        let resize = try #require(try ProcessingChain.parse("resize(64x64,fill)").steps.first as? ImageProcessors.Resize)
        let failure = Result { () throws(ImgError) in
            try VipsErrorScope.run({ () throws(ImgError) in
                var options = DecodeOptions()
                options.failOn = .none
                var input = VipsInput.buffer(PinnedBytes(bytes))
                let header = try ImageDecoder.checkHeader(&input, isRemote: false, options: options)
                options.failOn = .warning
                _ = try ThumbnailDecode.decode(input, header: header, resize: resize, options: options, clock: nil)
            }, rerunnable: { _ in false })
        }
        guard case .failure(let error) = failure else { Issue.record("the truncated JPEG was decoded"); return }
        #expect(error.message.hasPrefix("corrupt or unsupported image: "), "\(error)")
    }
}

import CVips
import Foundation

/// Turns encoded bytes into a decoded image, refusing what is unsafe before any pixel is decoded.
enum ImageDecoder {
    /// The libvips loaders trusted for input from the network; others need `--allow-untrusted-formats`.
    static let trustedLoaders = ["jpeg", "png", "gif", "webp", "heif", "tiff", "jxl"]
    /// Formats whose loaders and savers live in libvips' modules, loaded on first need.
    static let moduleFormats: Set<ImageFormat> = [.avif, .heic, .jxl, .pdf]
    /// The loaders that accept `n=-1` (all frames).
    static let multiFrameLoaders = ["gif", "webp", "heif", "tiff", "pdf", "magick"]

    /// What the header says, read without decoding pixels.
    struct Header: Equatable {
        var loader: String
        var format: ImageFormat?
        var width: Int
        var frameHeight: Int
        var frames: Int
        /// The EXIF orientation, 1 when there is none.
        var orientation = 1
        /// The pages of a multi-page file (TIFF, HEIF) differ in size, so only the first is read; 0 otherwise,
        /// else the number of pages in the file.
        var pagesInFileWhenTheyDiffer = 0
        /// What the integrity check found and the `--fail-on` level let through: a warning, or (under `none`)
        /// truncated or corrupt data decoded as far as it goes.
        var damage: DataDamage?
        /// The memory decoding needs at once, estimated from the header.
        var decodeMemory = DecodeMemory(bytes: 0, what: nil)
        /// The header was opened with all frames (`n=-1` or the whole frames before a corrupt one), as a decode
        /// that does not ask for the first frame only opens it.
        var allFramesOpened = false
        /// The frames or pages in the file when only the first was opened (`n-pages`, judged by the limit); else 0.
        var framesInFile = 0

        /// Width and height once the orientation is applied (when `autorotate`).
        func orientedSize(autorotate: Bool) -> (width: Int, height: Int) {
            autorotate && (5...8).contains(orientation) ? (frameHeight, width) : (width, frameHeight)
        }
    }

    /// The name of the libvips loader that reads `input`: asked again with the module loaders (PDF, ImageMagick's)
    /// loaded when no built-in one reads it, and from memory when `input` is a file region of a format no loader
    /// reads from a source (`input` is then that buffer). Nil when none reads it; libvips' error buffer is left clear.
    static func findLoader(_ input: inout VipsInput, sniffed: ImageFormat?) throws(ImgError) -> String? {
        if let sniffed, moduleFormats.contains(sniffed) { try VipsRuntime.loadModules() }
        var found = input.findLoader()
        if found == nil {
            imgf_error_clear()
            try VipsRuntime.loadModules()
            found = input.findLoader()
        }
        if found == nil, case .region(let region) = input, let data = region.readAll() {
            imgf_error_clear()
            input = .buffer(PinnedBytes(data))
            found = input.findLoader()
        }
        if found == nil { imgf_error_clear() }
        return found
    }

    /// Reads and checks the header: empty, unknown, untrusted, truncated and oversized inputs are refused here.
    /// A file region whose format libvips reads only from memory (no source loader) is read into memory: `input`
    /// is then the buffer to decode from.
    /// `opened` is shown the image as the header opened it, and whether all its pages are in it (`info --facts`
    /// reports from it: the header is read once). With `earlier` (what an earlier check read from these very bytes,
    /// `InProcessRendering.inspect`'s), the bytes are not scanned again (its damage is judged at `options.failOn` as a
    /// scan's would be), and the header is not opened again when it was opened as `options` would open it: its
    /// size and frames are judged against `options` as they would be on a fresh read. Opening a header costs
    /// the loader's set-up (WebP's loader allocates and zeroes a canvas of the whole image for it). With
    /// `decodeFollows` (default false), this process decodes the image next, and a PNG's data is bounded by that
    /// decode (`PNGTailGuard`) rather than inflated here for the bound.
    static func checkHeader(_ input: inout VipsInput, isRemote: Bool, options: DecodeOptions,
                            earlier: Header? = nil, decodeFollows: Bool = false,
                            opened report: ((DecodedImage, _ allPages: Bool) -> Void)? = nil) throws(ImgError) -> Header {
        guard input.count > 0 else { throw .image("empty body") }
        try VipsRuntime.start()
        let sniffed = ImageFormat.sniff(input.head)
        guard let found = try findLoader(&input, sniffed: sniffed) else {
            throw .image(RefusalMessage.notAnImage(input, quotingItsStart: isRemote))
        }
        let loader = loaderName(found)
        if isRemote, !options.allowUntrustedFormats, !trustedLoaders.contains(loader) {
            throw .untrustedFormat(loader: loader)
        }
        let format = sniffed
        var damage: DataDamage?
        if let format {
            if earlier == nil { try judgeDeclaredSize(input, loader: loader, format: format, options: options) }
            if let earlier {
                damage = earlier.damage
            } else {
                damage = try IntegrityCheck.damage(in: input, format: format, memoryLimit: options.maxDecodeMemory,
                                                   timeLimit: options.maxRenderTime,
                                                   decodeBoundsPNGTail: decodeFollows && PNGTailGuard.boundsDecodes)
            }
            if let damage, damage.refused(at: options.failOn) { throw .image(damage.message) }
        }
        if let format, format == .avif || format == .heic { try judgeHEIFSize(input, options: options) }
        let allFrames = multiFrameLoaders.contains(loader) && !options.firstFrame
        if let earlier, report == nil, earlier.loader == loader, earlier.format == format,
           earlier.allFramesOpened == allFrames {
            return try sized(try withinLimits(earlier, options: options), options: options)
        }
        var opened = input.open(options: allFrames ? framesOption(damage) : "")
        var pagesDiffer = false
        var header0Pages = 0
        if opened == nil, allFrames {
            // libvips reads all pages only when they are the same size; a still output gets the first page anyway.
            // Decided from the pages' sizes, not from libvips' message, which names no image.
            let message = VipsRuntime.takeError()
            guard let pages = try pagesDifferingInSize(input, format: format, maxFrames: options.maxFrames) else {
                throw .image("corrupt or unsupported image: \(message)")
            }
            pagesDiffer = true
            opened = input.open(options: "")
            if opened != nil { header0Pages = pages }
        }
        guard let opened else {
            throw .image("corrupt or unsupported image: \(VipsRuntime.takeError())")
        }
        let image = DecodedImage(taking: opened, source: input.owner)
        report?(image, allFrames && !pagesDiffer)
        var header = Header(loader: loader, format: format, width: image.width, frameHeight: image.pageHeight, frames: image.frameCount,
                            orientation: Int(imgf_get_int(image.pointer, "orientation", 1)))
        header.damage = damage
        header.allFramesOpened = allFrames && !pagesDiffer
        if !allFrames, multiFrameLoaders.contains(loader) { header.framesInFile = Int(imgf_get_int(image.pointer, "n-pages", 1)) }
        if pagesDiffer { header.pagesInFileWhenTheyDiffer = header0Pages }
        return try sized(try withinLimits(header, options: options, estimatingFrom: input), options: options)
    }

    /// `header` when `options.sizeFilter` lets its size through, its orientation applied (read from the opened
    /// header: the size a file declares says nothing of it); else the filter's refusal, before any pixel is decoded.
    private static func sized(_ header: Header, options: DecodeOptions) throws(ImgError) -> Header {
        guard let filter = options.sizeFilter else { return header }
        let size = header.orientedSize(autorotate: options.autorotate)
        guard let reason = filter.refusal(width: size.width, height: size.height) else { return header }
        throw .filtered(FilteredOriginal(reason: reason, width: size.width, height: size.height))
    }

    /// Judges the largest image an AVIF or HEIC declares against `--max-pixels`: libheif refuses sizes over its own
    /// limit with "Security limit exceeded", which names no limit of ours. The sizes are 32-bit numbers from the
    /// file, so their product can overflow: it saturates.
    private static func judgeHEIFSize(_ input: VipsInput, options: DecodeOptions) throws(ImgError) {
        guard let size = HEIFSize.largest(input.reader()) else { return }
        let pixels = Int64(size.width).saturatingMultiplied(by: Int64(size.height))
        if pixels > options.maxPixels {
            throw .overLimit(.pixels(width: size.width, height: size.height, frames: 1, pixels: pixels,
                                     limit: options.maxPixels))
        }
    }

    /// Judges the size a JPEG's frame header or a PNG's IHDR declares against `options`' pixel and decode-memory
    /// limits before the integrity check reads its data (libjpeg allocates a progressive JPEG's coefficients for
    /// the whole declared image first; a PNG's data is inflated as far as the declared image needs): a header
    /// over a limit is refused before any decoding. Other formats are judged once their header is opened.
    private static func judgeDeclaredSize(_ input: VipsInput, loader: String, format: ImageFormat,
                                          options: DecodeOptions) throws(ImgError) {
        let size: (width: Int, height: Int)? = switch format {
        case .jpeg: JPEGMarkers.header(input.reader()).map { ($0.width, $0.height) }
        case .png: PNGChunks.header(input.reader()).map { ($0.width, $0.height) }
        default: nil
        }
        guard let size else { return }
        let declared = Header(loader: loader, format: format, width: size.width, frameHeight: size.height, frames: 1)
        _ = try withinLimits(declared, options: options, estimatingFrom: input)
    }

    /// `header` if its frames, pixels and decode memory are within `options`' limits; the first one over throws.
    /// With `input`, the decode memory is estimated from its header first (once the size is known to be in bounds).
    private static func withinLimits(_ header: Header, options: DecodeOptions,
                                     estimatingFrom input: VipsInput? = nil) throws(ImgError) -> Header {
        var header = header
        let frames = max(header.frames, header.framesInFile)
        if frames > options.maxFrames {
            throw .overLimit(.frames(count: frames, limit: options.maxFrames))
        }
        let pixels = Int64(header.width).saturatingMultiplied(by: Int64(header.frameHeight))
            .saturatingMultiplied(by: Int64(header.frames))
        if pixels > options.maxPixels {
            throw .overLimit(.pixels(width: header.width, height: header.frameHeight, frames: header.frames, pixels: pixels,
                                     limit: options.maxPixels))
        }
        if let input { header.decodeMemory = DecodeMemory.estimate(input.reader(), header: header) }
        if header.decodeMemory.bytes > options.maxDecodeMemory {
            throw .overLimit(.decodeMemory(width: header.width, height: header.frameHeight, what: header.decodeMemory.what,
                                           bytes: header.decodeMemory.bytes, limit: options.maxDecodeMemory))
        }
        return header
    }

    /// Decodes with the first resize step folded into libvips' thumbnail (shrink-on-load) where it can be,
    /// applies orientation and converts to 8-bit sRGB. Returns the image and the steps still to apply.
    /// The thumbnail reads the input once, top to bottom (streaming: the input is never held decoded); when a
    /// later step reads out of order (`needsRandomAccess`), the thumbnail is kept in memory for it.
    static func decode(_ input: VipsInput, header: Header, chain: ProcessingChain, options: DecodeOptions,
                       clock: RenderClock? = nil) throws(ImgError) -> (DecodedImage, remaining: ArraySlice<any ImageProcessing>) {
        let optionString = loadOptions(header, options: options)
        var remaining = chain.steps[...]
        var image: DecodedImage
        if let resize = remaining.first as? ImageProcessors.Resize, !(resize.needsFrameByFrame && header.frames > 1) {
            image = try ThumbnailDecode.decode(input, header: header, resize: resize, options: options, clock: clock)
            remaining = remaining.dropFirst()
            // The thumbnail fitted the image; a `pad` still centres it on its canvas.
            if let padding = resize.padding { remaining = [padding] + remaining }
            if remaining.contains(where: \.needsRandomAccess) {
                let upright = try toStandardRGB(image)
                return (try upright.derive("keep the thumbnail in memory") { imgf_copy_memory($0, $1) }, remaining)
            }
        } else {
            guard let opened = input.open(options: optionString) else {
                throw .image("corrupt or unsupported image: \(VipsRuntime.takeError())")
            }
            image = DecodedImage(taking: opened, source: input.owner, clock: clock)
            if options.autorotate { image = try image.derive("autorotate") { imgf_autorot($0, $1) } }
        }
        return (try toStandardRGB(image), remaining)
    }

    /// The loader's options for a decode: `fail_on` for the `--fail-on` level (`FailOn.loaderOption`), and `n=-1`
    /// (all frames) where the loader takes it, `options` don't ask for the first frame only and the pages are all
    /// the same size (`framesOption`: fewer when a frame's data is corrupt).
    static func loadOptions(_ header: Header, options: DecodeOptions) -> String {
        let failOn = options.failOn.loaderOption
        return multiFrameLoaders.contains(header.loader) && !options.firstFrame && header.pagesInFileWhenTheyDiffer == 0
            ? "\(failOn),\(framesOption(header.damage))" : failOn
    }

    /// `n=-1` (all frames), or only the whole frames before a corrupt one (`DataDamage.wholeFrames`, let through
    /// by `--fail-on none`): libvips is never asked to decode a frame its loader fails.
    static func framesOption(_ damage: DataDamage?) -> String {
        damage?.wholeFrames.map { "n=\($0)" } ?? "n=-1"
    }

    /// The number of pages when some page differs in size from the first (libvips then refuses to read them all,
    /// TIFF saying "page 1 differs from page 0", HEIF "not all pages are the same size"); nil when they are all
    /// alike or can't be read, i.e. when reading them all failed for another reason. Reads headers only. More
    /// pages than `maxFrames` are refused before any page after the first is read; a TIFF's page sizes are read
    /// from its IFD chain in one pass (`TIFFPages`), other formats' page by page.
    static func pagesDifferingInSize(_ input: VipsInput, format: ImageFormat? = nil,
                                     maxFrames: Int = .max) throws(ImgError) -> Int? {
        guard let first = input.open(options: "") else { return nil }
        let firstImage = DecodedImage(taking: first)
        let pages = Int(imgf_get_int(first, "n-pages", 1))
        guard pages > 1 else { return nil }
        if pages > maxFrames { throw .overLimit(.frames(count: pages, limit: maxFrames)) }
        if format == .tiff, let sizes = TIFFPages.sizes(input.reader(), limit: pages), sizes.count == pages {
            return sizes.contains { $0 != sizes[0] } ? pages : nil
        }
        for page in 1..<pages {
            guard let opened = input.open(options: "page=\(page)") else { return nil }
            let image = DecodedImage(taking: opened)
            if image.width != firstImage.width || image.height != firstImage.height { return pages }
        }
        return nil
    }

    /// Converts to 8-bit sRGB (or 8-bit grey), through the embedded ICC profile where there is one, unless the image
    /// is 8-bit sRGB already and its profile is sRGB's (`StandardRGBProfile`): converting would change no value.
    static func toStandardRGB(_ image: DecodedImage) throws(ImgError) -> DecodedImage {
        var result = image
        let space = result.interpretation
        if imgf_has_field(result.pointer, "icc-profile-data") != 0, space != VIPS_INTERPRETATION_B_W, space != VIPS_INTERPRETATION_GREY16,
           !(space == VIPS_INTERPRETATION_sRGB && imgf_band_format(result.pointer) == VIPS_FORMAT_UCHAR
             && result.iccProfile.map(StandardRGBProfile.matches) == true) {
            result = try result.derive("colour profile") { imgf_icc_to_srgb($0, $1) }
        } else if space == VIPS_INTERPRETATION_GREY16 {
            result = try result.derive("to grey") { imgf_colourspace($0, $1, VIPS_INTERPRETATION_B_W) }
        } else if space != VIPS_INTERPRETATION_sRGB, space != VIPS_INTERPRETATION_B_W {
            result = try result.derive("to sRGB") { imgf_colourspace($0, $1, VIPS_INTERPRETATION_sRGB) }
        }
        if imgf_band_format(result.pointer) != VIPS_FORMAT_UCHAR {
            result = try result.derive("to 8 bits") { imgf_cast_uchar($0, $1) }
        }
        return result
    }

    /// `VipsForeignLoadJpegBuffer` → `jpeg`, `VipsForeignLoadNsgifBuffer` → `gif`.
    static func loaderName(_ typeName: String) -> String {
        let prefix = "VipsForeignLoad"
        var name = typeName.hasPrefix(prefix) ? String(typeName.dropFirst(prefix.count)) : typeName
        for suffix in ["Buffer", "Source"] where name.hasSuffix(suffix) { name.removeLast(suffix.count) }
        name = name.lowercased()
        if name.hasPrefix("nsgif") { return "gif" }
        if name.hasPrefix("svg") { return "svg" }
        if name.hasPrefix("pdf") || name.hasPrefix("poppler") { return "pdf" }
        if name.hasPrefix("magick") { return "magick" }
        return name
    }
}

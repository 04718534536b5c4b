import CVips
import Foundation

/// Reads what `info` reports from an image's header: libvips opens lazily, so no pixel is decoded. Works on the
/// whole file or on a prefix of it, saying when the prefix is too short.
enum HeaderReader {
    /// What a read found: the header, or that more bytes are needed (only for a prefix): some more, or the rest of
    /// the file (a format whose header needs it whole, or at its end).
    enum Outcome {
        case header(ImageInfo)
        case needsMoreBytes
        case needsWholeFile
    }

    /// Formats whose header a prefix can't give however long it is: a GIF's frames and delays are counted to its
    /// end, WebP, AVIF and HEIC are opened by demuxers that read every chunk or box, a TIFF's directory may be last.
    static let wholeFileFormats: Set<ImageFormat> = [.gif, .webp, .avif, .heic, .tiff]

    /// What a prefix that gave no header of a `sniffed` format needs.
    private static func more(_ sniffed: ImageFormat?) -> Outcome {
        sniffed.map(wholeFileFormats.contains) == true ? .needsWholeFile : .needsMoreBytes
    }

    /// Reads the header of `input`, `isWhole` when it is the whole file. `isRemote` restricts the loaders to the
    /// trusted ones unless `allowUntrusted`. A prefix libvips can't read a header from needs more bytes; so does a
    /// prefix of a GIF, whose frames and delays can only be counted to its end.
    static func read(_ input: VipsInput, isWhole: Bool, isRemote: Bool, allowUntrusted: Bool) throws(ImgError) -> Outcome {
        try VipsErrorScope.run { () throws(ImgError) -> Outcome in
            try readOnce(input, isWhole: isWhole, isRemote: isRemote, allowUntrusted: allowUntrusted)
        }
    }

    private static func readOnce(_ given: VipsInput, isWhole: Bool, isRemote: Bool, allowUntrusted: Bool) throws(ImgError) -> Outcome {
        var input = given
        guard input.count > 0 else {
            if isWhole { throw .image("empty body") }
            return .needsMoreBytes
        }
        let sniffed = ImageFormat.sniff(input.head)
        guard let found = try ImageDecoder.findLoader(&input, sniffed: sniffed) else {
            // A prefix of a format imgfetch knows (a TIFF cut before its directory) may satisfy no loader yet.
            if !isWhole, sniffed != nil { return more(sniffed) }
            throw .image(RefusalMessage.notAnImage(input, quotingItsStart: isRemote))
        }
        let loader = ImageDecoder.loaderName(found)
        if isRemote, !allowUntrusted, !ImageDecoder.trustedLoaders.contains(loader) {
            // Only the whole file decides: a looser loader (ImageMagick's) may take a prefix the right one refuses.
            if !isWhole { return more(sniffed) }
            throw .untrustedFormat(loader: loader)
        }
        if !isWhole, loader == "gif" { return .needsWholeFile }
        let multiFrame = ImageDecoder.multiFrameLoaders.contains(loader)
        var opened = input.open(options: multiFrame ? "n=-1" : "")
        var allPages = multiFrame
        if opened == nil, multiFrame {
            // Pages of different sizes (TIFF, HEIF): libvips reads them all only when alike; the first page it is.
            imgf_error_clear()
            opened = input.open(options: "")
            allPages = false
        }
        guard let opened else {
            if !isWhole {
                imgf_error_clear()
                return more(sniffed)
            }
            let message = VipsRuntime.takeError()
            if let sniffed, sniffed == .avif || sniffed == .heic, message.contains("Security limit exceeded"),
               let size = HEIFSize.largest(input.reader()) {
                // libheif's own size limit, not damage: say so, as fetch does, with the size the file declares.
                throw .image("a \(size.width)x\(size.height) \(sniffed.rawValue) image: over the largest size libheif "
                             + "(libvips' HEIF and AVIF loader) opens, so its header can't be read")
            }
            throw .image("corrupt or unsupported image: \(message)")
        }
        let image = DecodedImage(taking: opened, source: input.owner)
        return .header(info(of: image, format: sniffed, allPages: allPages))
    }

    /// The header fields of an opened image; `allPages` when it was opened with all its pages (`n=-1`).
    static func info(of image: DecodedImage, format: ImageFormat?, allPages: Bool) -> ImageInfo {
        let orientation = Int(imgf_get_int(image.pointer, "orientation", 1))
        let (storedWidth, storedHeight) = (image.width, image.pageHeight)
        let turned = (5...8).contains(orientation)
        let frames = allPages ? image.frameCount : max(1, Int(imgf_get_int(image.pointer, "n-pages", 1)))
        var loop: Int?
        var delays: [Int]?
        if frames > 1 {
            if imgf_has_field(image.pointer, "loop") != 0 { loop = Int(imgf_get_int(image.pointer, "loop", 0)) }
            var values = [Int32](repeating: 0, count: frames)
            let count = imgf_get_int_array(image.pointer, "delay", &values, Int32(frames))
            if count > 0 { delays = values.prefix(Int(min(Int32(frames), count))).map(Int.init) }
        }
        let profile = image.iccProfile
        return ImageInfo(format: format?.rawValue, width: turned ? storedHeight : storedWidth,
                         height: turned ? storedWidth : storedHeight, storedWidth: storedWidth, storedHeight: storedHeight,
                         orientation: (1...8).contains(orientation) ? orientation : 1, frames: frames, loop: loop,
                         delays: delays, colorSpace: colorSpaceName(image.interpretation),
                         bitsPerSample: bits(imgf_band_format(image.pointer)), bands: image.bands, hasAlpha: image.hasAlpha,
                         hasIccProfile: profile != nil, iccProfile: profile.flatMap(ICCProfileName.description),
                         hasExif: imgf_has_field(image.pointer, "exif-data") != 0,
                         hasXmp: imgf_has_field(image.pointer, "xmp-data") != 0)
    }

    /// libvips' nickname of an interpretation (`vipsheader` prints these).
    static func colorSpaceName(_ value: VipsInterpretation) -> String {
        let names: [VipsInterpretation: String] = [
            VIPS_INTERPRETATION_sRGB: "srgb", VIPS_INTERPRETATION_B_W: "b-w", VIPS_INTERPRETATION_CMYK: "cmyk",
            VIPS_INTERPRETATION_RGB16: "rgb16", VIPS_INTERPRETATION_GREY16: "grey16", VIPS_INTERPRETATION_scRGB: "scrgb",
            VIPS_INTERPRETATION_RGB: "rgb", VIPS_INTERPRETATION_LAB: "lab", VIPS_INTERPRETATION_LABS: "labs",
            VIPS_INTERPRETATION_XYZ: "xyz", VIPS_INTERPRETATION_HSV: "hsv", VIPS_INTERPRETATION_LCH: "lch",
            VIPS_INTERPRETATION_CMC: "cmc", VIPS_INTERPRETATION_YXY: "yxy", VIPS_INTERPRETATION_MATRIX: "matrix",
            VIPS_INTERPRETATION_HISTOGRAM: "histogram", VIPS_INTERPRETATION_FOURIER: "fourier",
        ]
        return names[value] ?? "multiband"
    }

    /// Bits of one sample of a band format.
    static func bits(_ format: VipsBandFormat) -> Int {
        switch format {
        case VIPS_FORMAT_UCHAR, VIPS_FORMAT_CHAR: 8
        case VIPS_FORMAT_USHORT, VIPS_FORMAT_SHORT: 16
        case VIPS_FORMAT_UINT, VIPS_FORMAT_INT, VIPS_FORMAT_FLOAT: 32
        case VIPS_FORMAT_DOUBLE, VIPS_FORMAT_COMPLEX: 64
        default: 128
        }
    }
}

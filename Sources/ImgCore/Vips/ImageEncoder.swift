import CVips
import Foundation

/// Encoded output with what the pipeline reports about it.
public struct EncodedImage: Sendable {
    public var data: Data
    public var format: ImageFormat
    /// The width and the height of one frame.
    public var width: Int, height: Int
    public var frames: Int
    /// Things the user may want to know (`-v`), e.g. that animation was dropped.
    public var notes: [String] = []
    /// The width and frame height of the input, from its header.
    public var sourceSize: (width: Int, height: Int)?
    /// Why the input was damaged (truncated or corrupt data decoded as far as it goes under `--fail-on none`);
    /// nil for a whole input.
    public var damage: String?
    /// The facts of the processed image (`ImageRequest.facts`), computed before encoding; nil when not asked for.
    public var facts: ImageFacts?
    /// The libvips threads the encoder computed the pixels on when the rendering limited them
    /// (`DecodedImage.limitingThreads`, read back from the image it wrote); nil (the default) for libvips' own number.
    public var pixelThreads: Int?
    /// What `--quality auto` or `--format auto` chose (`AutoEncoder`); nil (the default) for a quality as given.
    public var chosen: EncodingChoice?

    /// No notes and no source size by default.
    public init(data: Data, format: ImageFormat, width: Int, height: Int, frames: Int, notes: [String] = []) {
        (self.data, self.format, self.width, self.height, self.frames) = (data, format, width, height, frames)
        self.notes = notes
    }
}

/// Writes a decoded image in the requested format.
enum ImageEncoder {
    static func encode(_ image: DecodedImage, encoding: OutputEncoding, sourceFormat: ImageFormat?) throws(ImgError) -> EncodedImage {
        let format = encoding.format ?? writableFormat(for: sourceFormat)
        if ImageDecoder.moduleFormats.contains(format) { try VipsRuntime.loadModules() }
        var result = image
        var notes: [String] = []
        if result.frameCount > 1, !format.supportsAnimation {
            let page = result.pageHeight
            result = try result.derive("first frame") { imgf_extract_area($0, $1, 0, 0, Int32(image.width), Int32(page)) }
            notes.append(VariantNote.firstFrame(in: format, of: image.frameCount))
        }
        result = try flattenedIfNeeded(result, for: format, onto: encoding.background)
        if !encoding.keepMetadata {
            result = try result.derive("strip metadata") { imgf_copy_without_fields($0, $1) { name in
                name.map { ImageEncoder.isStrippedMetadata(String(cString: $0)) } == true ? 1 : 0
            } }
        }
        var options: [String] = []
        if encoding.lossless, format == .webp || format == .jxl {
            options.append("lossless")
        } else if let defaultQuality = OutputEncoding.defaultQuality(of: format) {
            options.append("Q=\(encoding.quality ?? defaultQuality)")
        }
        if format == .avif || format == .heic { options.append("effort=0") }
        if encoding.targetDistance != nil, !encoding.lossless, let searched = searchedOptions[format] {
            options += searched
        }
        if !encoding.keepMetadata { options.append("strip") }
        let suffix = ".\(format.fileExtension)" + (options.isEmpty ? "" : "[\(options.joined(separator: ","))]")
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard imgf_write_to_buffer(result.pointer, suffix, &buffer, &length) == 0, let buffer else {
            throw .image("corrupt image or failed encoding: \(VipsRuntime.takeError())")
        }
        var data = Data(bytes: buffer, count: length)
        g_free(buffer)
        if format == .webp, !encoding.keepMetadata { data = WebPMetadata.stripped(data) }
        var encoded = EncodedImage(data: data, format: format, width: result.width, height: result.pageHeight,
                                   frames: result.frameCount, notes: notes)
        let threads = result.threadLimit(or: 0)
        encoded.pixelThreads = threads > 0 ? threads : nil
        return encoded
    }

    /// What a format whose quality is searched (`OutputEncoding.targetDistance`) is written with besides its quality,
    /// where it differs from a fixed quality's libvips defaults. JPEG: optimised Huffman tables (the same pixels in 7 %
    /// fewer bytes on 200 px thumbnails of photographs) and no chroma subsampling: Butteraugli counts libvips' 4:2:0
    /// below quality 90 as a large distance on most photos, so that the search climbed to quality 91 (where libvips
    /// stops subsampling) or ended high, where at 4:4:4 the distance falls smoothly. WebP: libwebp's sharp RGB to YUV
    /// conversion (`smart_subsample`), which keeps colour edges at 4:2:0. On `make bench`'s photos at one mean
    /// SSIMULACRA2 score each took about a third fewer bytes (docs/BENCHMARKS.md, workload 9).
    static let searchedOptions: [ImageFormat: [String]] = [.jpeg: ["optimize_coding", "subsample_mode=off"],
                                                           .webp: ["smart_subsample"]]

    /// Flattens alpha away onto `colour`. A grey image stays grey on a grey colour, and becomes sRGB on any
    /// other, so that the background is the colour asked for.
    /// `image` as written in `format`: flattened onto `colour` when it has alpha and the format has none, else as it is.
    static func flattenedIfNeeded(_ image: DecodedImage, for format: ImageFormat,
                                  onto colour: Color) throws(ImgError) -> DecodedImage {
        image.hasAlpha && !format.supportsAlpha ? try flatten(image, onto: colour) : image
    }

    static func flatten(_ image: DecodedImage, onto colour: Color) throws(ImgError) -> DecodedImage {
        var image = image
        var background = [Double(colour.red), Double(colour.green), Double(colour.blue)]
        if image.bands < 3 {
            if colour.red == colour.green, colour.green == colour.blue {
                background = [Double(colour.red)]
            } else {
                image = try image.derive("grey to sRGB") { imgf_colourspace($0, $1, VIPS_INTERPRETATION_sRGB) }
            }
        }
        let count = Int32(background.count)
        let flat = try image.derive("flatten") { imgf_flatten($0, $1, background, count) }
        return try flat.derive("flatten to 8 bits") { imgf_cast_uchar($0, $1) }
    }

    /// The metadata fields removed unless `--keep-metadata`: EXIF (its blob, the `exif-*` fields libvips would
    /// write back into it, its thumbnail and the orientation), XMP, IPTC, Photoshop, the ICC profile (the pixels
    /// are sRGB by now) and comments. They are removed from the image itself, since not every saver honours
    /// `strip` (libvips 8.14.1's webpsave writes them all); frame delays, loop count and page height stay.
    static func isStrippedMetadata(_ name: String) -> Bool {
        strippedNames.contains(name) || name.hasPrefix("exif-") || containsComment(name)
    }

    static let strippedNames: Set<String> = ["exif-data", "xmp-data", "iptc-data", "photoshop-data", "icc-profile-data",
                                             "orientation", "jpeg-thumbnail-data"]

    /// Whether `name` holds `comment`, byte by byte (it is asked for each field of each image encoded).
    static func containsComment(_ name: String) -> Bool {
        ASCIIBytes.firstOccurrence(of: commentWord, in: Array(name.utf8)) != nil
    }

    private static let commentWord = Array("comment".utf8)

    /// The source format when libvips can write it, else PNG (for SVG, PDF and unknown sources).
    static func writableFormat(for source: ImageFormat?) -> ImageFormat {
        guard let source, ImageFormat.writable.contains(source) else { return .png }
        return source
    }
}

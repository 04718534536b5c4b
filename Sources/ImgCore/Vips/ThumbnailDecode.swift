import CVips
import Foundation

/// A resize folded into the decode, as libvips' thumbnail makes it from encoded bytes: the input loaded with the
/// loader's shrink (JPEG's shrink-on-load), then resized to fit, fill or cover the box, and turned upright.
///
/// A single JPEG or PNG frame is loaded here as thumbnail would load it (JPEG with the factor it would choose,
/// `SharedDecode.jpegShrink`) and, when it needs no conversion and no rotation (`imgf_thumbnail_is_plain`), resized
/// by `imgf_thumbnail_plain`, which makes thumbnail's very pixels of fewer libvips objects: a small JPEG's rendering
/// builds about a fifth less, a small PNG's a sixth. Any other loaded frame goes on through `vips_thumbnail_image`
/// (thumbnail's steps after its load); other inputs through `vips_thumbnail_buffer` or `vips_thumbnail_source` whole.
enum ThumbnailDecode {
    /// The loaders whose single frame is loaded here: JPEG (with its shrink-on-load) and PNG (which has none).
    static let loadsItself: Set<String> = ["jpeg", "png"]

    /// The options the input is loaded with here for `resize` (as thumbnail loads it: sequential access, its
    /// shrink-on-load factor), or nil when libvips' thumbnail decodes it whole.
    static func loadOptions(_ header: ImageDecoder.Header, resize: ImageProcessors.Resize, options: DecodeOptions) -> String? {
        guard loadsItself.contains(header.loader), header.frames == 1,
              let factor = SharedDecode.shrinkOnLoad(resize, header: header, autorotate: options.autorotate) else { return nil }
        return ImageDecoder.loadOptions(header, options: options) + ",access=sequential" + SharedDecode.shrinkOption(factor)
    }

    /// The input decoded and resized as `vips_thumbnail` with `arguments` would (`resize.thumbnailArguments` for
    /// the upright image), `clock` timing every image made.
    static func decode(_ input: VipsInput, header: ImageDecoder.Header, resize: ImageProcessors.Resize,
                       options: DecodeOptions, clock: RenderClock?) throws(ImgError) -> DecodedImage {
        let upright = header.orientedSize(autorotate: options.autorotate)
        let arguments = resize.thumbnailArguments(imageWidth: upright.width, imageHeight: upright.height)
        guard let loadOptions = loadOptions(header, resize: resize, options: options) else {
            var output: UnsafeMutablePointer<VipsImage>?
            guard input.thumbnail(&output, width: arguments.width, height: arguments.height, size: arguments.size,
                                  crop: arguments.crop, noRotate: options.autorotate ? 0 : 1,
                                  options: ImageDecoder.loadOptions(header, options: options)) == 0,
                  let output else {
                throw .image("corrupt or unsupported image: \(VipsRuntime.takeError())")
            }
            return DecodedImage(taking: output, source: input.owner, clock: clock)
        }
        guard let opened = input.open(options: loadOptions) else {
            throw .image("corrupt or unsupported image: \(VipsRuntime.takeError())")
        }
        let loaded = DecodedImage(taking: opened, source: input.owner, clock: clock)
        let rotates = options.autorotate && header.orientation != 1
        // A crop or a rotation decodes the whole input into memory while it is built: a failure is the input's.
        let corrupt = { (text: String) in "corrupt or unsupported image: \(text)" }
        if !rotates, imgf_thumbnail_is_plain(loaded.pointer) != 0 {
            return try loaded.derive(failure: corrupt) {
                imgf_thumbnail_plain($0, $1, arguments.width, arguments.height, arguments.size, arguments.crop)
            }
        }
        return try loaded.derive(failure: corrupt) {
            imgf_thumbnail_image($0, $1, arguments.width, arguments.height, arguments.size, arguments.crop,
                                 options.autorotate ? 0 : 1)
        }
    }
}

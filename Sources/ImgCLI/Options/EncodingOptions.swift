import ImgCore

extension OptionCatalog {
    static let encoding = OptionGroup(title: "Encoding", options: [
        Options.format,
        Options.quality,
        Options.lossless,
        Options.background,
        Options.keepMetadata,
        Options.noAutorotate,
        Options.firstFrame,
        Options.maxFrames,
    ])
}

extension Options {
    static let format = Option<String>("format", value: "FORMAT", parser: .text, for: .fetchLike,
                         choices: ImageFormat.writable.map(\.rawValue),
                         help: "jpeg, png, webp, avif, heic, gif, tiff or jxl",
                         man: #"""
            Output format:
            .BR jpeg ,
            .BR png ,
            .BR webp ,
            .BR avif ,
            .BR heic ,
            .BR gif ,
            .B tiff
            or
            .BR jxl .
            Default: the format named by the
            .B \-o
            file's extension
            .RB ( .jpg ,
            .BR .jpeg ,
            .BR .png ,
            .BR .webp ,
            .BR .avif ,
            .BR .heic ,
            .BR .heif ,
            .BR .gif ,
            .BR .tif ,
            .BR .tiff ,
            .BR .jxl ),
            else the source's format.
            """#)
    static let quality = Option<String>("quality", value: "N", parser: .text, for: .fetchLike, help: "quality from 1 to 100 (JPEG 85, WebP 80)",
                         man: #"""
            Quality from 1 to 100, for formats that have one.
            Defaults: JPEG 85, WebP 80, AVIF and HEIC 50, JPEG XL 75.
            PNG, GIF and TIFF have none and ignore it
            .RB ( \-v
            says so).
            """#)
    static let lossless = Flag("lossless", for: .fetchLike, help: "lossless WebP or JPEG XL",
                         man: #"""
            Lossless WebP or JPEG XL.
            Default: off.
            """#)
    static let background = Option<String>("background", value: "COLOR", parser: .text, shownDefault: "white", for: .fetchLike,
                         help: "what transparency becomes in JPEG",
                         man: #"""
            What transparent pixels become in formats without alpha (JPEG), and the
            colour of rounded corners and circles there.
            A grey image stays grey on a grey colour and becomes colour (sRGB) on any
            other.
            Default:
            .BR white .
            """#)
    static let keepMetadata = Flag("keep-metadata", for: .fetchLike, help: "keep EXIF, XMP and the colour profile",
                         man: #"""
            Keep EXIF, XMP and the colour profile, as far as the output format's libvips
            saver writes them (with libvips 8.14: JPEG, PNG and WebP keep all three; TIFF
            drops EXIF; AVIF and HEIC drop XMP; JPEG XL drops EXIF and XMP; GIF keeps none).
            The pixels are converted to sRGB in any case, so the profile written is
            libvips' sRGB profile, not the input's.
            By default the image is converted to sRGB and its metadata (EXIF, XMP, IPTC,
            the ICC profile, comments and the orientation tag) is stripped, in every
            output format.
            """#)
    static let noAutorotate = Flag("no-autorotate", for: .fetchLike, help: "do not apply the EXIF orientation",
                         man: #"""
            Do not apply the EXIF orientation.
            By default it is applied before anything else, and the output carries no
            orientation tag.
            """#)
    static let firstFrame = Flag("first-frame", for: .fetchLike, help: "take only the first frame of an animation",
                         man: #"""
            Take only the first frame of an animated image.
            By default animated GIF and WebP stay animated (frame delays and loop count
            kept) when the output is GIF or WebP; other output formats get the first
            frame.
            A multi-page file whose pages differ in size (TIFF, HEIF) is read as its
            first page, and
            .B \-v
            says so.
            """#)
    static let maxFrames = Option<Int>("max-frames", value: "N", parser: .integer(1...1_000_000), default: DecodeOptions().maxFrames, for: .fetchLike,
                         help: "refuse animations with more frames",
                         man: #"""
            Refuse animations with more than
            .I N
            frames (exit 5).
            """#)
}

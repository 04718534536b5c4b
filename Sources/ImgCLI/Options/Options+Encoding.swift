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
    static let format = Option<String>("format", value: "FORMAT|auto[:LIST]", parser: .text, for: .fetchLike,
                         choices: ImageFormat.writable.map(\.rawValue) + ["auto"],
                         help: "jpeg, png, webp, avif, heic, gif, tiff, jxl or auto",
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
            else the source's format; an
            .B \-o
            name with another extension
            .RB ( a.bak )
            is a usage error (exit 2) unless
            .B \-\-format
            names the format.
            .IP
            .B auto
            encodes the image in each format of
            .I LIST
            (formats separated by commas, from
            .BR avif ,
            .BR webp ,
            .BR jxl ,
            .B heic
            and
            .BR jpeg ;
            default
            .BR avif,webp,jpeg )
            at its
            .B \-\-quality auto
            quality (the distance
            .B \-\-quality auto:\fIDISTANCE\fR
            gives, else \#(EncodingChoice.spelling(EncodingChoice.defaultDistance)))
            and keeps the smallest result; an equal size goes to the
            first of avif, webp, jxl, heic, jpeg, the order they are tried in, whatever
            the order of
            .IR LIST .
            After the first format, a result no smaller than the best so far is not
            measured (neither it nor a higher quality could win): the search looks
            only below it, and the format is given up when no result there is within
            the distance.
            When the processed image has pixels that are not fully opaque, only the
            formats of the list that keep transparency compete (all of them, flattened
            onto
            .BR \-\-background ,
            when none does); for an animation, only those that animate
            .RB ( webp ).
            The variant key names the list and the distance, not the format chosen;
            the choice is stored with the variant, so a cache hit needs no search.
            Names made by
            .B \-O
            get the chosen format's extension;
            .B \-o
            .I FILE
            with an extension is a usage error (exit 2), and so are
            .B \-\-quality
            .I N
            and
            .BR \-\-lossless .
            .B \-v
            and
            .B \-\-json
            report the format, quality and distance chosen.
            """#)
    static let quality = Option<String>("quality", value: "N|auto[:DISTANCE]", parser: .text, for: .fetchLike,
                         choices: ["auto"], help: "1 to 100 (JPEG 85, WebP 80), or auto",
                         man: #"""
            Quality from 1 to 100, for formats that have one.
            Defaults: JPEG 85, WebP 80, AVIF and HEIC 50, JPEG XL 75.
            PNG, GIF and TIFF have none: a quality is refused (exit 2) when the format is named
            .RB ( \-\-format ,
            .BR \-o 's
            extension), and ignored when it is the source's
            .RB ( \-v
            says so); likewise a quality with
            .B \-\-lossless
            (lossless WebP and JPEG XL take none).
            .IP
            .B auto
            chooses the lowest quality whose result is within Butteraugli
            .I DISTANCE
            (from 0.3 to 10; default \#(EncodingChoice.spelling(EncodingChoice.defaultDistance)))
            of the processed image before encoding,
            for JPEG, WebP, AVIF, HEIC and JPEG XL.
            A JPEG so chosen is written without chroma subsampling (4:4:4) and with
            optimised Huffman tables, which Butteraugli and the bytes both favour; a
            fixed
            .B \-\-quality
            keeps 4:2:0 below 90.
            A WebP so chosen is written with libvips' sharp (smart) chroma subsampling,
            so the same quality given as a number makes other bytes.
            The default is where
            .B \-\-quality auto
            JPEG thumbnails of photographs score, on average, what
            .B \-\-quality 85
            JPEG scores on SSIMULACRA2 (an independent metric), measured by
            .BR "make bench" 's
            workload 9: it spends more bytes on images
            .B \-\-quality 85
            leaves visibly damaged and fewer on those it does not need.
            Butteraugli is libjxl's perceptual distance (about 1 at the threshold of a
            visible difference), its 3-norm, measured on the output's own pixels
            (the first frame, transparency flattened onto
            .BR \-\-background ).
            The search tries qualities 10, 16, .\|.\|. 100 (16 steps of 6) in at most 6
            encodes: it starts one step below the quality predicted for the format and
            distance; after each result it estimates where the distance crosses the
            target (from one result, by a typical fall a step; from more, along the
            line through the two nearest the target, or between the results on either
            side) and tries the step on either side of that crossing it has not tried
            yet, so that it usually ends in 2 or 3 encodes; it never tries a quality
            after which a halving of the steps left could no longer finish within the 6.
            The result was measured within the distance and the step below it outside,
            unless it is quality 10, or 100 when no quality was within (then its distance
            is over the target, and
            .B \-v
            says so).
            The choice is deterministic (the same input and options give the same
            bytes); the variant key names the distance, not the quality chosen, which
            is stored with the variant, so a cache hit needs no search.
            .B \-v
            and
            .B \-\-json
            report the quality and the distance measured.
            With
            .BR \-\-lossless ,
            or a format named that has no quality
            .RB ( \-\-format
            or the
            .B \-o
            extension), it is a usage error (exit 2); a source kept in a format
            without one (PNG) is encoded as usual, and
            .B \-v
            says so.
            """#)
    static let lossless = Flag("lossless", for: .fetchLike, help: "lossless WebP or JPEG XL",
                         man: #"""
            Lossless WebP or JPEG XL (PNG and TIFF are lossless anyway).
            Refused (exit 2) for a format named that has no lossless mode (JPEG, AVIF, HEIC, GIF), ignored for
            such a source's format
            .RB ( \-v
            says so).
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
            libvips' sRGB profile, not the input's (an input whose profile is already an
            sRGB one keeps its own, the pixels unchanged).
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
            kept; libvips writes a GIF frame delay of 0 into WebP as 100 ms, as browsers
            play such a GIF frame) when the output is GIF or WebP; other output formats get
            the first frame, decoded alone as this option decodes it (as
            .B vipsthumbnail
            reads one).
            A multi-page file (TIFF, HEIF, PDF) is read as its first page, whatever the
            output format, and
            .B \-v
            says so.
            """#)
    static let maxFrames = Option<Int>("max-frames", value: "N", parser: .integer(1...1_000_000), default: DecodeOptions().maxFrames, for: .fetchLike,
                         help: "refuse animations with more frames",
                         man: #"""
            Refuse animations with more than
            .I N
            frames (exit 5), and multi-page files (TIFF, HEIF, PDF) with more than
            .I N
            pages, counted before any page after the first is read, even when the
            output takes the first page only.
            """#)
}

import ImgCore

/// The limits and choices that apply while an image is decoded (ImgCore's `DecodeOptions`).
extension Options {
    static let maxPixels = Option<Int64>("max-pixels", value: "N", parser: .wholeNumber(1...Int.max), default: DecodeOptions().maxPixels, for: .requesting, needs: OptionCatalog.decodingOnInfo,
                         help: "refuse a larger image before decoding",
                         man: #"""
            Refuse an image with more than
            .I N
            pixels, counted over the frames decoded (all of an animation that stays
            animated, else the first), from its header, before any pixel is decoded
            (exit 5).
            The size every processing step makes counts too, worked out from the header
            before anything is made: a
            .B \-\-resize 30000x30000:fill
            of a small image is refused at once (exit 5).
            It guards decoding: a result already in the cache is served without
            decoding, whatever the limit.
            """#)
    static let failOn = Option<String>("fail-on", value: "LEVEL", parser: .text, shownDefault: "truncated", for: .requesting,
                         needs: OptionCatalog.decodingOnInfo, choices: FailOn.allCases.map(\.rawValue),
                         help: "how damaged an input may be: none, truncated, error or warning",
                         man: #"""
            How damaged an input may be and still be decoded, on libvips' scale and with
            its names:
            .B none
            decodes whatever can be decoded, as vipsthumbnail does;
            .B truncated
            (the default) refuses an input whose pixel data is cut short (exit 5);
            .B error
            also refuses what the decoder reports as an error, and
            .B warning
            refuses on any decoder warning: a bad checksum on an ancillary PNG chunk,
            and the quirks of complete files that libvips reads at its default level
            (a bad IDAT checksum on a PNG without interlace whose data still inflates
            whole, a GIF frame whose data ends early inside a complete file, its missing
            pixels left transparent, every frame kept);
            below it they are decoded, and
            .B \-v
            notes them.
            Also
            .B IMGFETCH_FAIL_ON
            and
            .BR "imgfetch cache config fail\-on=" \fILEVEL
            (the option first, then the variable, then the directory\(aqs setting).
            .B info
            decodes only with
            .BR \-\-facts ,
            and takes the level (option, variable or setting) only then; without it, an original it read
            whole is kept in the cache only when it passes the default level.
            Truncation is decided from the pixel data, the same way every run:
            a JPEG is truncated when the entropy-coded data of its last scan ends before
            the last row of blocks (a missing end marker after complete data is not),
            a PNG when its IDAT stream does not reach its end or holds fewer bytes than
            the image needs (a missing IEND, or junk after it, is not),
            a GIF when the file ends inside a frame's data before its pixels (stray bytes
            between blocks, a missing trailer or garbage after the last complete frame
            are not),
            a WebP when a chunk is shorter than it declares.
            The message says where:
            .BR "truncated: pixel data ends at row 1210 of 3000" .
            Any other bad checksum on IHDR, PLTE or IDAT is refused at every level but
            .BR none .
            So is a GIF frame whose data holds an LZW code that can\(aqt be (libvips\(aq
            GIF loader fails that frame), whichever frames the output needs:
            .BR "corrupt gif data: an invalid LZW code at row 7 of 9 of frame 4" ;
            under
            .B none
            the frames before it are decoded, and a first frame with such a code is
            refused too.
            A PNG whose image data inflates to more than 64 MiB past the bytes its IHDR
            needs (a decompression bomb, which libpng would inflate whole in one call
            nothing stops; imgfetch stops libpng's reading of it about 64 MiB past the
            image) is refused at every level, complete or not:
            .BR "corrupt png data: the image data inflates past the 2 bytes a 1x1 image needs" ;
            its IHDR is judged against
            .B \-\-max\-pixels
            and
            .B \-\-max\-decode\-memory
            before any of its data is inflated.
            A complete PNG whose image data goes on for more than 64 KiB of compressed
            bytes after its last row, without being a bomb, is decoded at
            .B none
            and
            .BR truncated ;
            at
            .B error
            and
            .B warning
            the decoder\(aqs stop is an error:
            .BR "vipspng: libpng read error" .
            Under
            .BR none ,
            a result made from a damaged input is marked damaged
            .RB ( \-v ,
            and
            .B \(dqdamaged\(dq: true
            with the message in
            .BR \(dqdamage\(dq " in " \-\-json )
            and cached under a variant key of its own (ending in
            .BR ,fail\-on=none );
            the level enters the key only when it changed the result.
            A cached result records the level it was checked at, and serves only a request
            no stricter than that
            .RB ( none " counts as " truncated );
            a stricter one checks the input again, from its cached original (no download),
            and is refused when its level refuses.
            The limits
            .RB ( \-\-max\-pixels ,
            .BR \-\-max\-frames ,
            .BR \-\-max\-bytes )
            refuse at every level.
            """#)
    static let maxDecodeMemory = Option<Int64>("max-decode-memory", value: "SIZE", parser: .size, default: DecodeOptions().maxDecodeMemory, for: .requesting, needs: OptionCatalog.decodingOnInfo,
                         help: "refuse an image that needs more to decode",
                         man: #"""
            Refuse an image whose decoding needs more than
            .I SIZE
            of memory at once, estimated from its header before any pixel is decoded
            (exit 5, with one line that gives the estimate).
            Most decodes stream a few hundred rows at a time whatever the image's size
            (baseline JPEG, PNG, TIFF, SVG, PDF); some hold the whole image however small
            the output: a progressive JPEG (or one in several scans: every coefficient, 2
            bytes a sample, 3 MB a megapixel for 4:2:0 colour), an interlaced PNG (its
            pixels), GIF (4 bytes a pixel), WebP (4), HEIF and AVIF (6) and JPEG XL (8).
            Renderings at once in one process (a
            .B batch
            with
            .BR \-j )
            also stay within
            .I SIZE
            together: a decode waits until it fits beside those running (one alone is
            always admitted).
            """#)
    static let maxRenderTime = Option<Double>("max-render-time", value: "SECONDS", parser: .seconds, default: DecodeOptions().maxRenderTime, for: .requesting, needs: OptionCatalog.decodingOnInfo,
                         help: "stop a rendering that takes longer",
                         man: #"""
            Stop a rendering (decoding, processing and encoding one image) that takes
            longer than
            .I SECONDS
            (over 0 and at most 86400): libvips is told to stop and ends at the next part
            of the image it computes (a filter of an SVG finishes the part it is drawing),
            and the image fails (exit 5, "rendering stopped after
            \-\-max\-render\-time").
            The integrity check that inflates a PNG\(aqs data before decoding is bounded
            by the same time.
            """#)
    static let allowUntrustedFormats = Flag("allow-untrusted-formats", for: .requesting, help: "let network input use SVG, PDF, ...",
                         man: #"""
            Let input from the network use SVG, PDF and the other loaders libvips marks
            untrusted.
            By default network input must be JPEG, PNG, GIF, WebP, HEIF/AVIF, TIFF or
            JPEG XL, and anything else is refused (exit 5).
            Local input may use any loader.
            """#)
}

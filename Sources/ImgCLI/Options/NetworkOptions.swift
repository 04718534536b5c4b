import ImgCore

extension OptionCatalog {
    static let network = OptionGroup(title: "Network", options: [
        Options.header,
        Options.userAgent,
        Options.timeout,
        Options.connectTimeout,
        Options.retry,
        Options.maxRedirects,
        Options.locationTrusted,
        Options.proxy,
        Options.maxBytes,
        Options.maxPixels,
        Options.failOn,
        Options.maxDecodeMemory,
        Options.maxRenderTime,
        Options.cacert,
        Options.denyPrivateNetworks,
        Options.denyLocal,
        Options.allowUntrustedFormats,
    ], manOutro: #"""
        Redirects are followed, compressed transfer encodings accepted and
        connections reused.
        Whether the bytes are an image is decided from the bytes, never from the
        Content-Type.
        """#)
}

extension Options {
    static let header = Option<String>("header", short: "H", value: "'NAME: VALUE'", parser: .text, for: .requesting,
                         help: "send this request header (repeatable)",
                         man: #"""
            Send this request header; repeatable.
            .B \(aqName:\(aq
            (or curl's
            .BR \(aqName;\(aq )
            sends the header with an empty value.
            The name must be an HTTP token (letters, digits and
            .BR !#$%&\(aq*+\-.\(ha_\(ga|\(ti );
            a carriage return, line feed or NUL anywhere is refused (exit 2), since it
            would split one header into several.
            Headers given with
            .B \-H
            (Authorization and Cookie among them), and the user and password of the URL,
            are sent only to the origin of the URL given (its scheme, host and port): a
            redirect to another origin is followed without them, unless
            .BR \-\-location\-trusted .
            """#)
    static let userAgent = Option<String>("user-agent", value: "STRING", parser: .text, shownDefault: "imgfetch/VERSION", for: .requesting,
                         help: "the User-Agent header",
                         man: #"""
            Default:
            .BI imgfetch/ VERSION\fR.
            """#)
    static let timeout = Option<Double>("timeout", value: "SECONDS", parser: .seconds, default: NetworkOptions().timeout, for: .requesting,
                         help: "longest time for each attempt",
                         man: #"""
            Longest time for each attempt's whole transfer, over 0 and at most 86400
            (see
            .I SECONDS
            in SIZES, DURATIONS AND COLOURS).
            """#)
    static let connectTimeout = Option<Double>("connect-timeout", value: "SECONDS", parser: .seconds, default: NetworkOptions().connectTimeout, for: .requesting,
                         help: "longest time to connect",
                         man: #"""
            Longest time to connect, over 0 and at most 86400.
            """#)
    static let retry = Option<Int>("retry", value: "N", parser: .integer(0...100), default: NetworkOptions().retries, for: .requesting, help: "retry a failed attempt N times",
                         man: #"""
            Retry a failed attempt up to
            .I N
            times.
            Retried are connection failures, timeouts, replies that are not HTTP
            ("malformed HTTP response") and the statuses 408, 429 and 5xx, never other
            4xx.
            Each retry opens a new connection.
            The pause starts at 0.5 seconds and doubles; a
            .B Retry\-After
            header is honoured up to 30 seconds.
            """#)
    static let maxRedirects = Option<Int>("max-redirects", value: "N", parser: .integer(0...100), default: NetworkOptions().maxRedirects, for: .requesting,
                         help: "follow at most N redirects",
                         man: #"""
            Follow at most
            .I N
            redirects (exit 3 beyond).
            A redirect may only lead to
            .B http
            or
            .BR https .
            .B \-\-timeout
            bounds the request and its redirects together.
            """#)
    static let locationTrusted = Flag("location-trusted", for: .requesting, help: "send -H headers and credentials on any redirect",
                         man: #"""
            Send the
            .B \-H
            headers and the URL's user and password on redirects to other origins too
            (curl's option of that name).
            By default they go only to the origin of the URL given.
            """#)
    static let proxy = Option<String>("proxy", value: "[SCHEME://]HOST[:PORT]", parser: .text, for: .requesting, help: "make every transfer through this proxy",
                         man: #"""
            Make every transfer through this proxy (libcurl's
            .BR CURLOPT_PROXY ;
            .I SCHEME
            is
            .BR http " (the default), " https ", " socks4 ", " socks4a ", " socks5 " or " socks5h );
            .B \(dq\(dq
            uses no proxy at all.
            Without it the proxy variables of the environment are used as curl uses them
            (see ENVIRONMENT).
            Refused with
            .B \-\-deny\-private\-networks
            (exit 2).
            """#)
    static let maxBytes = Option<Int64>("max-bytes", value: "SIZE", parser: .size, default: NetworkOptions().maxBytes, for: .requesting,
                         help: "refuse a larger body",
                         man: #"""
            Refuse a body larger than
            .IR SIZE ,
            counted on the received (decompressed) body as it arrives, with or without
            a Content-Length (exit 3).
            """#)
    static let maxPixels = Option<Int64>("max-pixels", value: "N", parser: .wholeNumber(1...Int.max), default: DecodeOptions().maxPixels, for: .requesting, needs: OptionCatalog.decodingOnInfo,
                         help: "refuse a larger image before decoding",
                         man: #"""
            Refuse an image with more than
            .I N
            pixels, counted over all frames, from its header, before any pixel is
            decoded (exit 5).
            The size every processing step makes counts too, worked out from the header
            before anything is made: a
            .B \-\-resize 30000x30000:fill
            of a small image is refused at once (exit 5).
            It guards decoding: a result already in the cache is served without
            decoding, whatever the limit.
            """#)
    static let failOn = Option<String>("fail-on", value: "LEVEL", parser: .text, shownDefault: "truncated", for: .fetchLike,
                         choices: FailOn.allCases.map(\.rawValue),
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
            .BR "imgfetch cache config fail\-on=" \fILEVEL .
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
            """#)
    static let cacert = Option<String>("cacert", value: "FILE", parser: .text, for: .requesting, help: "trust the CAs in this PEM bundle",
                         man: #"""
            Trust the certificate authorities in the PEM bundle
            .I FILE
            instead of the system's, as curl does.
            Without it,
            .B CURL_CA_BUNDLE
            and then
            .B SSL_CERT_FILE
            name that bundle (see
            .BR ENVIRONMENT ).
            Certificates are always verified; no option turns verification off.
            """#)
    static let denyPrivateNetworks = Flag("deny-private-networks", for: .requesting, help: "refuse loopback and private addresses",
                         man: #"""
            Refuse to connect to loopback, private, link-local, unique-local, CGNAT,
            unspecified and multicast addresses.
            The check is made on the resolved address before each connection is
            opened, on every redirect hop (exit 3).
            An IPv6 address that carries an IPv4 address (IPv4-mapped
            .BR ::ffff:a.b.c.d ,
            IPv4-compatible
            .BR ::a.b.c.d ,
            translated
            .BR ::ffff:0:a.b.c.d ,
            NAT64
            .B 64:ff9b::/96
            and 6to4
            .BR 2002::/16 )
            is judged by the IPv4 address; the local-use NAT64 prefix
            .B 64:ff9b:1::/48
            is refused.
            No proxy is used, neither
            .B \-\-proxy
            (refused in combination, exit 2) nor one from the environment (ignored;
            .B \-v
            names the variables), since a proxy would connect in imgfetch's stead.
            For services that fetch URLs they did not choose.
            """#)
    static let denyLocal = Flag("deny-local", for: .requesting, help: "refuse local paths and file:// inputs",
                         man: #"""
            Refuse local paths and
            .B file://
            inputs (exit 2), for lists that come from elsewhere.
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

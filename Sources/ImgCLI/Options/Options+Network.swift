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
        connections reused: the idle ones of the hosts used last stay open (at
        most two for each idle transfer handle, a redirect's two hosts; a retry
        closes the connection that failed), on at most 64 handles, so a list of
        many hosts keeps few descriptors.
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
            would split one header into several, and so is any other control character
            but tab (U+0001 to U+001F, DEL), which no header value may hold.
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
            Send this User-Agent header.
            A control character other than tab (a carriage return, line feed or NUL
            among them) is refused (exit 2) before anything is fetched, as in
            .BR \-H .
            A
            .B \-H
            header named User-Agent takes the place of the default too; given with
            .B \-\-user\-agent
            as well, the command is refused (exit 2), since both would set the one header.
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
            4xx, nor response headers larger than libcurl takes (a header over 100 KB,
            300 KB in all: "response headers too large", exit 3, a permanent failure).
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
            .BR https ,
            and only to a URL that could be given as an input: one refused as an input
            would be (a port over 65535, a host libcurl refuses) is not followed (exit 3,
            a permanent failure naming the target).
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
            The value is checked before anything is fetched: another scheme, a host that
            is neither a name (ASCII letters, digits,
            .BR \- ", " . " and " _ )
            nor a bracketed IPv6 address, a port that is not 1 to 65535, or a path after
            the port is refused (exit 2).
            A user and password for the proxy go before its host
            .RI ( USER : PASSWORD @ HOST );
            the password is shown as
            .B ***
            in every message.
            With it,
            .B no_proxy
            and
            .B NO_PROXY
            send no transfer around it; without it the proxy variables of the environment are used
            as curl uses them (see ENVIRONMENT).
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
    static let cacert = Option<String>("cacert", value: "FILE", parser: .path, for: .requesting, help: "trust the CAs in this PEM bundle",
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
}

import ImgCore

extension OptionCatalog {
    static let optOut = OptionGroup(title: "Filters and opt-outs", options: [
        Options.minSize,
        Options.maxAspectRatio,
        Options.disallowRobotsTags,
        Options.robotsTxt,
    ])
}

extension Options {
    static let minSize = Option<PixelDimensions>("min-size", value: "WxH", parser: .dimensions, for: [.batch], help: "write no original smaller than WxH",
                         man: #"""
            Write nothing for a line whose original is narrower than
            .I W
            or lower than
            .I H
            pixels: it is recorded with status
            .B filtered
            and a
            .B reason
            .RI ( "original 50x40 is smaller than 64x64" ),
            counted apart from
            .BR ok " and " failed ,
            and does not change the exit status.
            The size is the one displayed: the EXIF orientation applied (unless
            .BR \-\-no\-autorotate ),
            as every output is made; an image written unchanged keeps its orientation tag, so it is judged
            upright with
            .B \-\-no\-autorotate
            too.
            The original is fetched (and cached) and its header read: a filtered line is decided before any
            pixel is decoded, and nothing but its original is cached.
            A line whose variant is cached is judged by the original's size its entry records; an original
            whose size is not known passes, and one that is damaged fails as it would without the filter.
            Default: none.
            """#)
    static let maxAspectRatio = Option<Double>("max-aspect-ratio", value: "R",
                         parser: .decimal(expected: "a number of at least 1, e.g. 3", accepts: { $0 >= 1 }), for: [.batch], help: "write no original whose longer side is over R times its shorter",
                         man: #"""
            Write nothing for a line whose original's longer side is over
            .I R
            times its shorter (a number of at least 1: 2 lets 200x100 and 100x200 through, not 201x100);
            it is
            .B filtered
            as for
            .BR \-\-min\-size .
            Default: none.
            """#)
    static let disallowRobotsTags = Option<String>("disallow-robots-tags", value: "LIST|none", parser: .text, for: .batchLike,
                         help: "write nothing a site's X-Robots-Tag opts out",
                         man: #"""
            Write nothing for a line whose response carries one of these
            .B X\-Robots\-Tag
            directives (names separated by commas, compared case-insensitively;
            .B none
            alone for none): it is recorded with status
            .BR opted_out ,
            the
            .B directive
            and a
            .B reason
            (the header as sent), counted apart from
            .BR ok " and " failed ,
            and does not change the exit status.
            Every
            .B X\-Robots\-Tag
            header of the response counts, as Google defines it: a directive with no prefix applies to every crawler, one
            after a prefix
            .RB ( "X\-Robots\-Tag: otherbot: noai" )
            only to the crawler whose product token (the leading name of
            .BR \-\-user\-agent ,
            .B imgfetch
            by default) it names, up to the next prefix of that header;
            .B none
            in a header is also
            .BR noindex " and " nofollow .
            The response's body is then neither checked nor cached, and no variant of it is made; an original or variant
            already in the cache (from a run without this option) records its original's headers and is judged by
            them with no request (one cached before they were recorded is fetched again).
            Default: none with
            .BR "\-\-output\-format files" ;
            .B noai,noimageai,noindex,noimageindex
            (img2dataset's) with
            .BR "\-\-output\-format webdataset" ,
            whose samples are made to train on
            .RB ( none
            turns it off).
            """#)
    static let robotsTxt = Flag("robots-txt", for: .batchLike, help: "fetch nothing a host's robots.txt disallows",
                         man: #"""
            Before a line's URL is asked for, read its host's
            .B /robots.txt
            (one per scheme, host and port, fetched once a run however many workers ask, with the same rules as an
            image for each redirect and at most 5 redirects) as RFC 9309 says: the groups for the product token
            of
            .B \-\-user\-agent
            .RB ( imgfetch
            by default; several are merged), else those for
            .BR * ;
            the longest matching
            .BR Allow " or " Disallow
            rule wins,
            .B Allow
            a tie;
            .B *
            matches any characters and a final
            .B $
            the end of the path and query; percent-encoding is normalised before comparing.
            A line it disallows is not requested: it is recorded with status
            .BR robots_disallowed ,
            the
            .B rule
            and a
            .BR reason ,
            counted apart from
            .BR ok " and " failed ,
            and does not change the exit status.
            A 4xx answer (no robots.txt) allows everything; a 5xx, a 429 or a failed connection disallows the
            whole host for the run; more than 5 redirects allows everything.
            A line disallowed only because its robots.txt could not be fetched for a reason that may pass (a 5xx,
            a 429, a refused or failed connection, a timeout, after
            .BR \-\-retry )
            is not done: its record has
            .B exit_class
            .BR transient ,
            its reason says it is disallowed for this run, to be tried again later, the summary counts it as
            .BR robots_disallowed_transient ,
            the batch exits 75 unless a failure is permanent (1), and
            .B \-\-retry\-failed
            and
            .B \-\-resume
            run it again, robots.txt fetched again.
            What it said is kept in the disk cache (its own entry per host) for the cache's TTL, at most 24 hours;
            a failure is not kept. With
            .BR \-\-only\-from\-cache ,
            a host whose robots.txt is not cached fails its lines as not cached.
            Every redirect a line's fetch meets is judged the same way, by its target host's robots.txt,
            before the target is asked for: a line redirected to a URL its site disallows is
            .B robots_disallowed
            too.
            Default: off.
            """#)
}

import ImgCore

extension Set where Element == CommandName {
    /// The commands that print a report `--json` can give as JSON.
    static var reporting: Set<CommandName> { Set.requesting.union(Set.cache).union([.rendererStatus]) }
}

extension OptionCatalog {
    static let reporting = OptionGroup(title: "Reporting", options: [
        Options.noProgress,
        Options.quiet,
        Options.verbose,
        Options.json,
    ])
}

extension Options {
    static let noProgress = Flag("no-progress", for: .every, help: "no progress bar",
                         man: #"""
            No progress bar.
            By default one is drawn on standard error while downloading, when standard
            error is a terminal, unless
            .B \-q
            or
            .B \-\-json
            is given (a run that reports in JSON is read by a program);
            .B IMGFETCH_PROGRESS=0
            does the same.
            Accepted by every command (those that draw none ignore it), so that it can be
            part of an alias.
            """#)
    static let quiet = Flag("quiet", short: "q", for: .every, help: "print nothing but errors",
                         man: #"""
            Print nothing but errors.
            """#)
    static let verbose = Flag("verbose", short: "v", for: .every, help: "say where each result came from, and timings",
                         man: #"""
            Say where each result came from
            .RB ( memory ,
            .BR disk ,
            .BR disk\-original ,
            .BR revalidated ,
            .BR network ,
            .BR local ),
            its keys (with the canonical chain identifier) and timings, when an
            animation was reduced to its first frame (or a file whose pages differ in
            size to its first page), whether the warm renderer made it,
            and whether this process loaded libvips and libcurl (a cache hit loads
            neither).
            """#)
    static let json = Flag("json", for: .reporting, help: "print the report as JSON on stdout",
                         man: #"""
            Print the report as JSON on standard output; see
            .BR "JSON OUTPUT" .
            .BR fetch ,
            .B batch
            and
            .B prefetch
            print one JSON object per input (per item and variant in a batch); the
            image then needs
            .B \-o
            or
            .B \-O
            (a file other than standard output: an
            .B \-o
            that is standard output by another name, as
            .BR /dev/stdout ,
            is refused).
            A run ended by a signal (exit 130 or 143) prints none for an input of
            .B fetch
            it had not finished.
            .B info
            prints one JSON object per input.
            The
            .B cache
            commands and
            .B renderer status
            print one JSON document.
            """#)
}

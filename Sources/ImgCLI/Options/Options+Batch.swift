import ImgCore

extension OptionCatalog {
    static let batch = OptionGroup(title: "Batch and prefetch", options: [
        Options.jobs,
        Options.perHost,
        Options.rate,
        Options.variant,
        Options.name,
        Options.failFast,
        Options.shard,
        Options.from,
    ])

    static let cacheCommands = OptionGroup(title: "Cache commands", options: [
        Options.limit,
        Options.all,
        Options.tempAge,
        Options.sizeLimit,
        Options.dryRun,
        Options.repair,
    ])
}

extension Options {
    static let jobs = Option<Int>("jobs", short: "j", value: "N", parser: .integer(1...256), shownDefault: "2 per core, at least 16", for: .batchLike, help: "transfers at once",
                         man: #"""
            Transfers at once.
            Default: twice the processor cores, at least 16 (16 on 2 cores): enough to cover the round trips of
            a network, where a transfer mostly waits (at 150 ms a reply, 4 transfers at once fetch about 25 images
            a second, 16 about 100), while the cores decode.
            At most one rendering more than the processor cores (3 on 2 cores) decodes and processes at once:
            a decoder reads a file in one thread, and the extra rendering keeps the cores busy meanwhile.
            The renderings share the cores: each computes its pixels on
            .I cores
            /
            .I "renderings at once"
            libvips threads, at least one (one each with the defaults), where libvips would give each as many
            threads as there are cores; with one rendering at a time
            .RB ( "\-j 1" )
            libvips' own number stays, and
            .B VIPS_CONCURRENCY
            (see ENVIRONMENT), when set, decides instead.
            .B \-v
            says which.
            """#)
    static let perHost = Option<Int>("per-host", value: "N", parser: .integer(1...256), default: 6, for: .batchLike, help: "transfers at once to one host",
                         man: #"""
            Transfers at once to one host: requests in flight, each on its own connection.
            A connection kept alive between requests is not a transfer: each idle transfer handle keeps at most two,
            to the host it spoke with last and, after a redirect, the host it came from, so a host may hold more idle
            connections than
            .IR N ,
            of the at most 64 handles kept idle.
            Each request a redirect leads to counts for the host it is sent to, as do its turns
            .RB ( \-\-rate ),
            pauses and refusals below.
            """#)
    static let rate = Option<Double>("rate", value: "N",
                         parser: .decimal(expected: "requests per second per host, a number over 0 and at most 1000000 "
                                                    + "(e.g. 2 or 0.5)",
                                          accepts: { $0 > 0 && $0 <= 1_000_000 }), for: .batchLike,
                         help: "requests a second to one host (0 < N <= 1000000, e.g. 0.5)",
                         man: #"""
            At most
            .I N
            requests a second to one host (scheme, name and port), across all workers;
            a decimal number over 0 and at most 1000000, fractions allowed
            .RB ( "\-\-rate 0.5" :
            one request every 2 seconds).
            Every attempt takes a turn, retries included, and each redirect's request a turn of the host it goes to.
            Default: no limit.
            .IP
            Whatever the rate, a 429 or 503 with
            .B Retry\-After
            (seconds or an HTTP date) pauses its host for every worker, for that long
            (at most 30 seconds a time), and the request that got it is retried after
            the pause (within
            .BR \-\-retry ).
            A host that keeps refusing (a 429 or 503, or a connection refused or not
            made within
            .BR \-\-connect\-timeout ,
            for 2\(mu(\fB\-\-retry\fR+1) requests in a row and at least 5, each sent after
            the previous refusal was known, except that requests finding no connection to a host no request
            has reached count each, so a host with nothing there is given up after one round of parallel
            connect timeouts) is given up for the rest of the run:
            one line says so
            .RB ( "giving up on http://host:port: .\|.\|." ),
            and its remaining lines fail at once, without a request and without a
            line each, as transient failures (exit 75).
            """#)
    static let variant = Option<String>("variant", value: "NAME=CHAIN", parser: .text, for: .batchLike, help: "also make output NAME (repeatable)",
                         man: #"""
            Make the output
            .I NAME
            with the steps of
            .I CHAIN
            (after any processing options); repeatable.
            All variants of a URL come from one download.
            Each variant's bytes are the bytes the same chain gives in a fetch of its own,
            so what is cached under its key never depends on the other variants.
            Variants that would load a still image alike (JPEG: the same shrink-on-load
            factor; PNG and GIF always) share one load, kept in memory while they are made
            from it, if it takes at most 32 MiB; the others, and the frames of animations,
            are decoded for each variant.
            """#)
    static let name = Option<String>("name", value: "TEMPLATE", parser: .text, shownDefault: "{name}.{ext}, {name}-{variant}.{ext} with variants", for: [.batch],
                         help: "output names: {name} {variant} {index} {hash} {ext}",
                         man: #"""
            Output names; see
            .BR "OUTPUT NAMES" .
            Default:
            .B {name}\-{variant}.{ext}
            with variants,
            .B {name}.{ext}
            without.
            """#)
    static let failFast = Flag("fail-fast", for: .batchLike, help: "stop starting items after the first failure",
                         man: #"""
            Stop starting new items after the first failure.
            The items already in the workers' hands (as many as
            .BR \-\-jobs ,
            some of them waiting for their host's slot or turn) still run, and are reported as they end;
            the others are counted as not reached.
            """#)
    static let shard = Option<String>("shard", value: "K/N|auto|auto/N", parser: .text, for: .batchLike, choices: ["auto", "auto/"],
                         help: "only the items whose key hashes to K mod N; auto: from the job array",
                         man: #"""
            Handle only the items whose original key hashes to
            .I K
            modulo
            .I N
            (0 \(<=
            .I K
            <
            .IR N ),
            so that
            .I N
            processes or machines split one list with no overlap and no gap.
            See
            .BR EXAMPLES .
            .IP
            .B auto
            and
            .BI auto/ N
            take the shard from the job array engine's environment.
            .B auto
            reads a Slurm array:
            .I K
            is
            .B SLURM_ARRAY_TASK_ID
            minus
            .B SLURM_ARRAY_TASK_MIN
            (0 when unset), the difference divided by
            .B SLURM_ARRAY_TASK_STEP
            when set, so an array need not start at 0, and
            .I N
            is
            .BR SLURM_ARRAY_TASK_COUNT .
            .BI auto/ N
            gives the count for engines that do not tell it (and for a Slurm that sets no
            .BR SLURM_ARRAY_TASK_COUNT ),
            and then also reads, in
            this order, a Kubernetes indexed Job
            .RB ( JOB_COMPLETION_INDEX ),
            an AWS Batch array
            .RB ( AWS_BATCH_JOB_ARRAY_INDEX )
            and GNU parallel
            .RB ( PARALLEL_SEQ ,
            which counts from 1); the first one set decides (Slurm first, whose count
            must then be
            .IR N ).
            No such variable, or an index out of range, is a usage error (exit 2) that
            names what was looked for;
            .B \-v
            says which variable decided.
            """#)
    static let from = Option<String>("from", value: "FILE", parser: .path, for: [.prefetch], help: "read URLs from FILE (- for stdin) too",
                         man: #"""
            .RB ( prefetch )
            Read URLs from
            .I FILE
            .RB ( \-
            for standard input) as well as from the command line.
            Lines are numbered on through both, as
            .B batch
            numbers several lists: each URL given on the command line is a line, in the order given, and
            .IR FILE 's
            lines come after them (its header and blank lines counted), so that with two URLs given,
            .IR FILE 's
            line 1 is line 3.
            With URLs given, the records of
            .IR FILE 's
            lines
            .RB ( \-\-json ,
            .BR \-\-manifest )
            also name its
            .B list
            .RI ( FILE
            as given) and its line there
            .RB ( list_line
            in the manifest,
            .B listLine
            in
            .BR \-\-json ;
            a malformed line's message on stderr names both); a URL given on the command line has no
            .BR list .
            To
            .B \-\-resume
            such a run, give the same URLs and
            .IR FILE ,
            in the same order.
            """#)
    static let limit = Option<Int>("limit", value: "N", parser: .integer(0...Int.max), default: CacheInspector.defaultLimit, for: [.cacheInspect], help: "entries listed",
                         man: #"""
            .RB ( "cache inspect" )
            Entries listed; not with a URL or
            .BR \-\-cache\-key ,
            whose entries are all listed (a usage error).
            """#)
    static let all = Flag("all", for: [.cacheInspect], help: "list every entry",
                         man: #"""
            .RB ( "cache inspect" )
            List every entry.
            """#)
    static let tempAge = Option<Double>("temp-age", value: "DURATION", parser: .duration, default: CacheMaintenance.defaultTempAge, for: [.cacheCleanExpired],
                         help: "remove temporary files older than this",
                         man: #"""
            .RB ( "cache clean\-expired" )
            Remove temporary files older than this, unless the process that writes them
            (the PID in their names) still runs on this machine.
            """#)
    static let sizeLimit = Option<String>("size-limit", value: "SIZE", parser: .text,
                         for: Set.fetchLike.union([.cacheInspect, .cachePrune, .cacheConfig]),
                         help: "the cache's size limit",
                         man: #"""
            .RB ( "cache prune" ,
            .BR inspect ,
            .BR config ,
            and the automatic cleaning of
            .BR fetch ,
            .B batch
            and
            .BR prefetch
            (at most once an hour);
            .B batch
            and
            .B prefetch
            also keep to it while they run: they prune as they write, and an
            entry that would take the total past a tenth over the limit waits for a
            prune that makes room, so their own writes never take the cache further
            (other processes' writes are seen at the next prune); no command caches an entry
            larger than a tenth over the limit, a warning says so)
            The cache's size limit, or
            .B none
            (also 0).
            Default: from
            .B IMGFETCH_SIZE_LIMIT
            or the directory's configuration, else 1 GiB (a fixed modest default, as
            ccache and Nuke have).
            """#)
    static let dryRun = Flag("dry-run", for: [.cacheCleanExpired, .cachePrune, .cacheClear, .cacheRemove],
                         help: "say what would be removed; remove nothing",
                         man: #"""
            .RB ( "cache clean\-expired" ,
            .BR prune ,
            .BR clear ,
            .BR remove )
            Say what would be removed; remove nothing.
            What the run would not remove (what is in a folder you may not change or on a read-only file
            system, a directory holding files at an entry's name) is named on standard error as
            .RI "warning: would not remove " PATH ": " REASON
            and counted as not removed, as the run counts it; the dry run's exit status is 0.
            """#)
    static let repair = Flag("repair", for: [.cacheVerify], help: "remove the damaged entries found",
                         man: #"""
            .RB ( "cache verify" )
            Remove the damaged entries found.
            """#)
}

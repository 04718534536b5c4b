extension OptionCatalog {
    static let batch = OptionGroup(title: "Batch and prefetch", options: [
        OptionDefinition("jobs", short: "j", value: "N", default: "2 per core", for: .batchLike, help: "transfers at once",
                         man: #"""
            Transfers at once.
            Default: twice the processor cores (4 on 2 cores), so that while one item of a pair is decoded
            the next one downloads.
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
            """#),
        OptionDefinition("per-host", value: "N", default: "6", for: .batchLike, help: "connections at once to one host",
                         man: #"""
            Connections at once to one host.
            Default: 6.
            """#),
        OptionDefinition("rate", value: "N", for: .batchLike, help: "requests a second to one host (fractions allowed)",
                         man: #"""
            At most
            .I N
            requests a second to one host (scheme, name and port), across all workers;
            fractions are allowed
            .RB ( "\-\-rate 0.5" :
            one request every 2 seconds).
            Every attempt takes a turn, retries included.
            Default: no limit.
            .IP
            Whatever the rate, a 429 or 503 with
            .B Retry\-After
            (seconds or an HTTP date) pauses its host for every worker, for that long
            (at most 30 seconds a time), and the request that got it is retried after
            the pause (within
            .BR \-\-retry ).
            A host that keeps refusing (a 429 or 503, or a refused connection, for
            2\(mu(\fB\-\-retry\fR+1) requests in a row and at least 5, each sent after
            the previous refusal was known) is given up for the rest of the run:
            one line says so
            .RB ( "giving up on http://host:port: .\|.\|." ),
            and its remaining lines fail at once, without a request and without a
            line each, as transient failures (exit 75).
            """#),
        OptionDefinition("manifest", value: "FILE", for: .batchLike, help: "write a JSON line per list line to FILE",
                         man: #"""
            Write one JSON line per list line of this run (of this shard) to
            .IR FILE ,
            in list order, each with one
            .BR write (2)
            as soon as the line is done, so that a run killed with
            .B kill \-9
            leaves every record before the kill whole (and at most a torn last line).
            A new manifest is made as a temporary in
            .IR FILE 's
            folder and renamed over
            .I FILE
            before the first line runs, so a symbolic link planted there is replaced, never written through;
            a manifest appended to (the one given to
            .BR \-\-resume )
            must be a regular file, not a link (exit 7).
            .B {shard}
            in
            .I FILE
            becomes
            .IB K \-of\- N
            with
            .B \-\-shard
            .RB ( 0\-of\-1
            without), so that the tasks of an array write one manifest each.
            A record has
            .B line
            (its number in the list, counting blank and comment lines),
            .B url
            (as given, a password shown as
            .BR *** ;
            for a line with more columns than
            .I URL
            .RI [ NAME ]
            .B raw
            instead, the whole line so masked: it fails as
            .RI "line " N ": expected 'URL [NAME]', found more columns" ),
            .B status
            .RB ( ok ", " failed ", " skipped
            or
            .BR filtered :
            see
            .BR \-\-min\-size ),
            for a failure
            .B error
            .RB ( class ,
            .B status
            for HTTP,
            .B message
            (the failure as stderr words it, a limit naming the option that set it),
            .BR exit )
            and
            .B exit_class
            .RB ( transient " or " permanent ;
            see
            .BR "EXIT STATUS" ),
            .B outputs
            (one per variant:
            .BR variant ,
            .BR path ,
            .BR format ,
            .BR width ,
            .BR height ,
            .BR bytes ,
            .B sha256
            of the output, and
            .BR source :
            .BR network ,
            .BR memory ,
            .BR disk ,
            .BR disk\-original ,
            .BR revalidated " or " local ;
            with
            .BR \-\-facts ,
            .BR phash ;
            for a near-duplicate,
            .B duplicate_of
            (the earlier line's URL) and, with
            .BR \-\-skip\-duplicates ,
            no
            .BR path ),
            .B original
            .RB ( width ,
            .BR height ,
            when known: not for a variant read from the disk cache),
            .BR ms ,
            .B columns
            (the row's columns named by
            .BR \-\-keep\-columns ),
            and
            .B reason
            for a line skipped, filtered or done earlier.
            The last line is a summary:
            .BR summary ,
            .B status
            .RB ( ok ", " error " or " interrupted ),
            .BR ok ,
            .BR failed ,
            .BR failed_transient ,
            .BR skipped ,
            .B filtered
            (when some line was),
            .BR done_earlier ,
            .BR written ,
            .B exit
            (the run's exit status),
            .BR signal ,
            .BR shard ,
            .BR ms .
            A run stopped by SIGINT or SIGTERM still records the lines it finished (those
            it had started and not finished as
            .BR skipped )
            and ends with the summary; lines it never reached have no record.
            .I FILE
            is replaced, unless it is also the
            .B \-\-resume
            or
            .B \-\-retry\-failed
            file: then the new records are appended to it, and for each line the last
            record counts.
            """#),
        OptionDefinition("resume", value: "FILE", for: .batchLike, help: "skip the lines FILE records as ok",
                         man: #"""
            Read the manifest
            .I FILE
            of an earlier run of this list (after
            .B {shard}
            expansion, as for
            .BR \-\-manifest )
            and skip every line it records as
            .B ok
            whose outputs are all still there: no request is made for them and their
            outputs are not touched.
            Every other line runs: failed, skipped, not reached, its outputs removed,
            its URL not the one on that line any more, or made with other
            .BR \-\-variant s.
            With
            .BR \-\-facts ,
            a line recorded without a
            .B phash
            runs too, and the lines skipped still count as earlier lines for
            .BR \-\-duplicate\-distance ;
            a near-duplicate recorded with no
            .B path
            is there only with
            .BR \-\-skip\-duplicates .
            Lines that do not parse (the torn last line of a run killed with
            .BR "kill \-9" )
            are ignored.
            A
            .I FILE
            that does not exist yet records nothing, so that one job script serves the
            first run and every retry.
            With
            .BR \-\-manifest ,
            the lines skipped are recorded as
            .B ok
            with reason
            .B done earlier
            (unless the manifest is
            .I FILE
            itself, which has them already).
            """#),
        OptionDefinition("retry-failed", value: "FILE", for: .batchLike, help: "run only the lines FILE records as failed",
                         man: #"""
            Run only the lines the manifest
            .I FILE
            records as
            .BR failed ;
            the others are carried into
            .B \-\-manifest
            as they were
            .RB ( ok ,
            .BR "done earlier" ),
            or as
            .B skipped
            when
            .I FILE
            has no failure for them.
            .I FILE
            must exist (exit 2 otherwise).
            """#),
        OptionDefinition("variant", value: "NAME=CHAIN", for: .batchLike, help: "also make output NAME (repeatable)",
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
            """#),
        OptionDefinition("name", value: "TEMPLATE", default: "{name}.{ext}", for: [.batch],
                         help: "output names: {name} {variant} {index} {hash} {ext}",
                         man: #"""
            Output names; see
            .BR "OUTPUT NAMES" .
            Default:
            .B {name}\-{variant}.{ext}
            with variants,
            .B {name}.{ext}
            without.
            """#),
        OptionDefinition("fail-fast", for: .batchLike, help: "stop starting items after the first failure",
                         man: #"""
            Stop starting new items after the first failure.
            """#),
        OptionDefinition("shard", value: "K/N|auto|auto/N", for: .batchLike, choices: ["auto", "auto/"],
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
            (divided by
            .B SLURM_ARRAY_TASK_STEP
            when set), so an array need not start at 0, and
            .I N
            is
            .BR SLURM_ARRAY_TASK_COUNT .
            .BI auto/ N
            gives the count for engines that do not tell it, and then also reads, in
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
            """#),
        OptionDefinition("from", value: "FILE", for: [.prefetch], help: "read URLs from FILE (- for stdin) too",
                         man: #"""
            .RB ( prefetch )
            Read URLs from
            .I FILE
            .RB ( \-
            for standard input) as well as from the command line.
            """#),
    ])

    static let cacheCommands = OptionGroup(title: "Cache commands", options: [
        OptionDefinition("limit", value: "N", default: "20", for: [.cacheInspect], help: "entries listed",
                         man: #"""
            .RB ( "cache inspect" )
            Entries listed.
            Default: 20.
            """#),
        OptionDefinition("all", for: [.cacheInspect], help: "list every entry",
                         man: #"""
            .RB ( "cache inspect" )
            List every entry.
            """#),
        OptionDefinition("temp-age", value: "DURATION", default: "1h", for: [.cacheCleanExpired],
                         help: "remove temporary files older than this",
                         man: #"""
            .RB ( "cache clean\-expired" )
            Remove temporary files older than this.
            Default: 1h.
            """#),
        OptionDefinition("size-limit", value: "SIZE",
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
            .BR prefetch ,
            which also keep to it while they run: they prune as they write, and an
            entry that would take the total past a tenth over the limit waits for a
            prune that makes room, so their own writes never take the cache further
            (other processes' writes are seen at the next prune; an entry larger than
            that is not cached, a warning says so))
            The cache's size limit, or
            .B none
            (also 0).
            Default: from
            .B IMGFETCH_SIZE_LIMIT
            or the directory's configuration, else 1 GiB (a fixed modest default, as
            ccache and Nuke have).
            """#),
        OptionDefinition("dry-run", for: [.cacheCleanExpired, .cachePrune, .cacheClear, .cacheRemove],
                         help: "say what would be removed; remove nothing",
                         man: #"""
            .RB ( "cache clean\-expired" ,
            .BR prune ,
            .BR clear ,
            .BR remove )
            Say what would be removed; remove nothing.
            """#),
        OptionDefinition("repair", for: [.cacheVerify], help: "remove the damaged entries found",
                         man: #"""
            .RB ( "cache verify" )
            Remove the damaged entries found.
            """#),
    ])
}

import ImgCore

/// What `--help` and `help COMMAND` say about each command besides its options: the usage lines and a few lines
/// of description (each at most 78 columns). The options come from `OptionCatalog`.
enum CommandCatalog {
    static let usage = """
        usage: imgfetch [fetch] INPUT... [options]      fetch, process and write images
               imgfetch batch LIST...|- -O DIR [options] many URLs in one process
               imgfetch prefetch [URL...] [--from FILE]  warm the cache
               imgfetch info INPUT... [--json] [--facts] what an image is
               imgfetch cache inspect|clean-expired|prune|clear|remove|verify|config
               imgfetch renderer serve|start|stop|status  the warm renderer
               imgfetch completions bash|zsh|fish        shell completions
               imgfetch help [COMMAND] | --version
        """

    /// The description `help WORD` prints above the options.
    static func description(of word: String) -> String {
        switch word {
        case "batch": return batch
        case "prefetch": return prefetch
        case "info": return info
        case "cache": return cache
        case "renderer": return renderer
        case "completions": return completions
        case "help": return "help [COMMAND]: the help of one command; man imgfetch is the reference."
        default: return fetch
        }
    }

    static let fetch = """
        fetch INPUT... : INPUT is an http(s) URL, a local path, a file:// URL, or - for
        stdin. Options may come anywhere; -- ends them. Without -o or -O the image
        goes to stdout.
        Exit codes: 0 ok, 1 some inputs failed, 2 usage, 3 network, 4 HTTP status,
        5 image, 6 not cached, 7 local I/O, 8 damaged cache, 130/143 interrupted,
        141 stdout closed. See man imgfetch.
        """

    static let batch = """
        batch LIST...|- -O DIR: one URL a line (optional second column: output
        name); blank lines and # comments skipped. Several lists of one format
        are read as one, their lines numbered on through them; a folder is its
        .txt/.csv/.tsv/.jsonl/.ndjson/.parquet files in name order (with
        --input-format, all its files; never those starting with . or _).
        Every fetch option applies to every line (--no-cache keeps only this
        run's memory cache).
        Names clash in list order: the later ones get -1, -2, ...
        A .csv or .tsv list with a header row, or .jsonl (one object a line), is read
        by its columns (--input-format, --url-column, --keep-columns).
        Sharding one list over N machines (each runs the same list with its own K):
          GNU parallel: parallel imgfetch batch l.txt -O out --shard {}/4 ::: 0 1 2 3
          Slurm array:   imgfetch batch list.txt -O out --shard auto
          Kubernetes indexed Job, AWS Batch array: ... --shard auto/N
        --output-format webdataset: tar shards of samples (image + KEY.json).
        Exit codes: 0 all ok, 1 a permanent failure, 75 every failure transient
        (network, 408, 429, 5xx: retry later), 2 usage, 7 output not writable,
        130/143 interrupted, 141 stdout closed.
        """

    static let prefetch = """
        prefetch [URL...] [--from FILE|-]: fills the cache only, writing no files:
        originals, and variants when processing options or --variant are given.
        Each URL given is one URL, checked as fetch checks its inputs; only the
        --from list's lines are list lines.
        Exit codes: 0 all ok, 1 a permanent failure, 75 every failure transient,
        2 usage, 7 unsafe or unusable cache directory, 130/143 interrupted.
        """

    static let info = """
        info INPUT... : format, size (oriented and as stored), orientation, frames
        and delays, colour space, bits, alpha, ICC profile, EXIF/XMP, file size;
        for a URL also the HTTP status, type, validators and cache state. A URL
        is read a range at a time (Range: bytes=0-65535, doubled while the header
        needs more; the whole body when the server ignores ranges), from the
        cache with no request when fresh there (--only-from-cache: never a
        request). A body read whole is cached as fetch caches it; nothing else is
        written. --facts decodes it.
        Exit codes: 0 ok, 1 some inputs failed, 2 usage, 3 network, 4 HTTP status,
        5 image, 6 not cached (--only-from-cache), 7 local I/O.
        """

    static let cache = """
        cache inspect [URL]            entries, sizes and expiry (--limit N, --all)
        cache clean-expired            expired entries and old temporaries
        cache prune                    down to 50% of the size limit, least recent first
        cache clear | remove URL       everything, or one URL's entries
        cache verify [--repair]        check every entry
        cache config [size-limit=SIZE] [ttl=DURATION] [keep-query=NAMES] [fail-on=LEVEL]
        Settings: option, then IMGFETCH_SIZE_LIMIT / IMGFETCH_TTL / IMGFETCH_FAIL_ON,
        then the directory's config, then the defaults
        (size limit \(ByteSize.exact(CacheSettings.defaultSizeLimit)), ttl 7d, fail-on truncated).
        Exit codes: 0 ok, 2 usage (e.g. prune with size limit none), 7 unsafe or
        unusable directory, 8 damaged entries found by verify (without --repair).
        """

    static let renderer = """
        renderer serve     run the warm renderer in the foreground
        renderer start     run it in the background (says so when one is running)
        renderer stop | status also of older builds of this executable's path
        It keeps libvips loaded for later fetch commands of this user (they skip
        ~20 ms of loading it). Opt-in: only with --renderer auto (or
        IMGFETCH_RENDERER=auto) does fetch use one and start one by itself.
        Exit codes: 0 ok, 1 start failed, 2 usage, 7 unusable renderer folder.
        """

    static let completions = """
        completions bash|zsh|fish: print the shell's completions for imgfetch, e.g.
          imgfetch completions fish > ~/.config/fish/completions/imgfetch.fish
        make install installs all three.
        """
}

import ImgCore

extension OptionCatalog {
    static let cache = OptionGroup(title: "Cache", options: [
        Options.cacheDir,
        Options.keepQuery,
        Options.cacheKey,
        Options.ttl,
        Options.memoryLimit,
        Options.forceRefresh,
        Options.onlyFromCache,
        Options.memoryOnly,
        Options.noCache,
        Options.noAutoClean,
    ])
}

extension Options {
    static let cacheDir = Option<String>("cache-dir", value: "DIR", parser: .path, for: .every, help: "the disk cache directory",
                         man: #"""
            The disk cache directory.
            Default:
            .BR $IMGFETCH_CACHE_DIR ,
            else
            .BR $XDG_CACHE_HOME/imgfetch ,
            else
            .BR \(ti/.cache/imgfetch .
            It is created with mode 0700 and a
            .B CACHEDIR.TAG
            file.
            A directory that is a symbolic link (its last component), group or world
            writable, or owned by another user, is refused with exit 7 and a message
            saying why.
            Cleaning, pruning,
            .B cache clear
            and
            .B cache remove
            delete only the names imgfetch itself gives files there (entries, its
            temporaries, its locks); a file or folder of any other name is left alone.
            Accepted by every command, so that a wrapper can always pass it.
            """#)
    static let keepQuery = Flag("keep-query", optionalValue: "NAMES", for: Set.requesting.union([.cacheInspect, .cacheRemove]),
                         help: "keep the query (or only NAMES, a,b) in the key",
                         man: #"""
            Keep the URL's query in the cache key, for sites where the query names the
            image
            .RB ( image.php?img=a.jpg ):
            the whole query, or with
            .BI = NAMES
            (names separated by commas) only those parameters, so that a signature can
            still be dropped while
            .B img=
            or
            .B w=
            is kept
            .RB ( \-\-keep\-query=img,w ).
            Kept parameters are sorted by name; the values of a repeated name keep
            their order
            .RB ( ?id=1&id=2
            and
            .B ?id=2&id=1
            are two keys).
            By default the query and fragment are dropped (or what the directory's
            .B keep\-query
            setting says, see
            .BR "cache config" ).
            Without it, a command that meets two inputs whose URLs differ only in their
            query says so once per key on stderr (even with
            .BR \-q ),
            naming both URLs: they get one image.
            """#)
    static let cacheKey = Option<String>("cache-key", value: "KEY", parser: .nonEmpty("a key"), for: [.fetch, .info, .cacheInspect, .cacheRemove],
                         help: "use KEY as the original's key",
                         man: #"""
            Use
            .I KEY
            as the original key instead of one derived from the URL.
            """#)
    static let ttl = Option<String>("ttl", value: "DURATION", parser: .text,
                         shownDefault: CacheCommandOutput.duration(.defaultValue), for: Set.requesting.union([.cacheConfig]),
                         help: "time to live of entries written (at most \(CacheCommandOutput.duration(.longest)))",
                         man: #"""
            Time to live of entries written: an entry expires that long after it is
            stored, and each access extends it by its own time to live.
            At most \#(CacheCommandOutput.duration(.longest)) (100 years): a longer one, here, in
            .B IMGFETCH_TTL
            or the directory's
            .BR ttl ,
            is a usage error (exit 2).
            .B never
            for no expiry.
            Default: \#(CacheCommandOutput.duration(.defaultValue)) (or
            .BR IMGFETCH_TTL ,
            or the directory's
            .BR ttl ).
            .B info
            writes with it the originals it keeps (those it read whole).
            A command that writes no entry
            .RB ( \-\-no\-cache ,
            .BR \-\-memory\-only )
            does not read
            .B IMGFETCH_TTL
            or the directory's
            .BR ttl .
            """#)
    static let memoryLimit = Option<Int>("memory-limit", value: "SIZE", parser: .sizeInt, default: PipelineConfiguration().memoryLimit, for: .fetchLike,
                         help: "bound of the in-process memory cache",
                         man: #"""
            Bound of the in-process memory cache of encoded results.
            A batch keeps less (see
            .BR batch ).
            """#)
    static let forceRefresh = Flag("force-refresh", for: .fetchLike, help: "download again and replace what is cached",
                         man: #"""
            Download again and replace what is cached.
            """#)
    static let onlyFromCache = Flag("only-from-cache", for: Set.fetchLike.union([.info]), help: "never use the network",
                         man: #"""
            Never use the network; an input that is not cached, or whose cached original has expired, fails with
            exit 6 (its line says which).
            With
            .BR info ,
            a cached original answers, fresh or expired, without any request.
            Given with
            .BR \-\-force\-refresh ,
            .B \-\-no\-cache
            or
            .BR \-\-memory\-only ,
            which leave no cache to read, it is a usage error (exit 2) before anything
            is fetched.
            """#)
    static let memoryOnly = Flag("memory-only", for: [.fetch, .batch], help: "no disk cache reads or writes",
                         man: #"""
            Use the memory cache only: no disk cache reads or writes.
            Not for
            .BR prefetch ,
            whose only work is to fill the disk cache: there it is a usage error (exit 2) before anything is fetched.
            """#)
    static let noCache = Flag("no-cache", for: [.fetch, .batch, .info], help: "use no cache at all",
                         man: #"""
            Use no cache at all
            .RB ( info :
            no cached original read, none kept).
            Not for
            .BR prefetch ,
            whose only work is to fill the disk cache: there it is a usage error (exit 2) before anything is fetched.
            """#)
    static let noAutoClean = Flag("no-auto-clean", for: .fetchLike, help: "do not clean the cache automatically",
                         man: #"""
            Do not clean the cache automatically.
            By default
            .B fetch
            and
            .B batch
            remove expired entries, and prune when a size limit is set, at most once an
            hour per cache directory.
            """#)
}

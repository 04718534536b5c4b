/// `--help` and `imgfetch help COMMAND`: short; the man page is the reference.
enum HelpText {
    static let usage = """
        usage: imgfetch [fetch] INPUT... [options]      fetch, process and write images
               imgfetch batch LIST|- -O DIR [options]    many URLs in one process
               imgfetch prefetch [URL...] [--from FILE]  warm the cache
               imgfetch cache inspect|clean-expired|prune|clear|remove|verify|config
               imgfetch renderer serve|start|stop|status   the warm renderer
               imgfetch help [COMMAND] | --version
        """

    static func text(for command: String?) -> String {
        switch command {
        case "cache": return usage + "\n\n" + cache
        case "batch", "prefetch": return usage + "\n\n" + batch
        case "renderer": return usage + "\n\n" + renderer
        default: return usage + "\n\n" + fetch
        }
    }

    static let fetch = """
        INPUT is an http(s) URL, a local path, a file:// URL, or - for stdin. Options may come anywhere; -- ends them.

        Output:      -o FILE (- for stdout)  -O DIR  --format jpeg|png|webp|avif|heic|gif|tiff|jxl  --quality 1..100
                     --lossless  --background COLOR (white)  --keep-metadata  --no-autorotate  --first-frame
                     --max-frames N (1000)
        Processing:  --resize WxH[:fit|fill|exact]  --upscale  --crop WxH[:centre|attention|entropy]  --round R|N%
                     --circle  --blur SIGMA  --overlay COLOR[:OPACITY]  --grayscale  --rotate 90|180|270
                     -p, --process 'resize(200x200,fill)|>round(12)'
        Network:     -H 'Name: value'  --user-agent S  --timeout S (30)  --connect-timeout S (10)  --retry N (2)
                     --max-redirects N (5)  --max-bytes SIZE (64M)  --max-pixels N (100000000)  --cacert FILE
                     --deny-private-networks  --deny-local  --allow-untrusted-formats
        Cache:       --cache-dir DIR  --ttl DURATION (7d)  --keep-query  --cache-key KEY  --memory-limit SIZE (256M)
                     --force-refresh  --only-from-cache  --memory-only  --no-cache  --no-auto-clean
        Reporting:   -q, --quiet  -v, --verbose  --json  --no-progress
        Renderer:    --renderer auto|off (auto: use the warm renderer, start one after loading libvips)
                     --idle SECONDS (300)

        Exit codes: 0 ok, 1 some inputs failed, 2 usage, 3 network, 4 HTTP status, 5 image, 6 not cached,
        7 local I/O, 8 damaged cache, 130/143 interrupted, 141 stdout closed. See man imgfetch.
        """

    static let batch = """
        batch LIST|-: one URL a line (optional second column: output name); blank lines and # comments skipped.
          -O DIR (required)  -j, --jobs N (8)  --per-host N (6)  --variant NAME=CHAIN (repeatable)
          --name TEMPLATE ({name} {variant} {index} {hash} {ext}; default {name}-{variant}.{ext}, or {name}.{ext}
          without variants; clashes get -1, -2, ... in input order)  --fail-fast  --shard K/N|auto|auto/N  --json
          and every fetch option (--no-cache keeps only this run's memory cache). Exit 0 all ok, 1 a permanent failure,
          75 every failure transient (network, 408, 429, 5xx: retry later), 2 usage, 7 output not writable, 130/143 interrupted, 141 stdout closed.
        prefetch [URL...] [--from FILE|-]: fills the cache only (originals, and variants when processing options
          or --variant are given), with the same options.
        Sharding one list over N machines (each runs the same list with its own K):
          GNU parallel:  parallel imgfetch batch list.txt -O out --shard {}/4 ::: 0 1 2 3
          Slurm array:   imgfetch batch list.txt -O out --shard auto
          Kubernetes indexed Job, AWS Batch array: imgfetch batch list.txt -O out --shard auto/N
        """

    static let renderer = """
        renderer serve [--idle S]   run the warm renderer in the foreground (exits after S seconds without work, 300)
        renderer start [--idle S]   run it in the background; says so when one is running already
        renderer stop | status [--json]
        It keeps libvips loaded for later fetch commands of this user (they skip ~20 ms of loading it). fetch starts
        one by itself unless --renderer off or IMGFETCH_RENDERER=off. Exit codes: 0 ok, 1 start failed, 2 usage.
        """

    static let cache = """
        cache inspect [URL] [--limit N (20)] [--all] [--json]
        cache clean-expired [--temp-age DURATION (1h)] [--dry-run]
        cache prune [--size-limit SIZE] [--dry-run]     down to 50% of the limit, least recently used first
        cache clear [--dry-run] | remove URL [--dry-run] | verify [--repair] | config [size-limit=SIZE] [ttl=DURATION]
        Settings: option, then IMGFETCH_SIZE_LIMIT / IMGFETCH_TTL, then the directory's config, then defaults
        (no size limit, ttl 7d). fetch and batch clean the cache at most once an hour unless --no-auto-clean.
        Exit codes: 0 ok, 2 usage (e.g. prune without a size limit), 7 unsafe or unusable directory,
        8 damaged entries found by verify (without --repair).
        """
}

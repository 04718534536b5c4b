/// Every option of every command. Options irrelevant to a command are accepted and ignored there.
enum OptionTable {
    static let all: [OptionSpec] = [
        // output
        .init(long: "output", short: "o", takesValue: true), .init(long: "output-dir", short: "O", takesValue: true),
        .init(long: "format", short: nil, takesValue: true), .init(long: "quality", short: nil, takesValue: true),
        .init(long: "lossless", short: nil, takesValue: false), .init(long: "background", short: nil, takesValue: true),
        .init(long: "keep-metadata", short: nil, takesValue: false), .init(long: "no-autorotate", short: nil, takesValue: false),
        .init(long: "first-frame", short: nil, takesValue: false), .init(long: "max-frames", short: nil, takesValue: true),
        // processing
        .init(long: "resize", short: nil, takesValue: true), .init(long: "upscale", short: nil, takesValue: false),
        .init(long: "crop", short: nil, takesValue: true), .init(long: "round", short: nil, takesValue: true),
        .init(long: "circle", short: nil, takesValue: false), .init(long: "blur", short: nil, takesValue: true),
        .init(long: "overlay", short: nil, takesValue: true), .init(long: "grayscale", short: nil, takesValue: false),
        .init(long: "rotate", short: nil, takesValue: true), .init(long: "process", short: "p", takesValue: true),
        // network
        .init(long: "header", short: "H", takesValue: true), .init(long: "user-agent", short: nil, takesValue: true),
        .init(long: "timeout", short: nil, takesValue: true), .init(long: "connect-timeout", short: nil, takesValue: true),
        .init(long: "retry", short: nil, takesValue: true), .init(long: "max-redirects", short: nil, takesValue: true),
        .init(long: "max-bytes", short: nil, takesValue: true), .init(long: "max-pixels", short: nil, takesValue: true),
        .init(long: "cacert", short: nil, takesValue: true), .init(long: "deny-private-networks", short: nil, takesValue: false),
        .init(long: "deny-local", short: nil, takesValue: false), .init(long: "allow-untrusted-formats", short: nil, takesValue: false),
        // reporting
        .init(long: "no-progress", short: nil, takesValue: false), .init(long: "quiet", short: "q", takesValue: false),
        .init(long: "verbose", short: "v", takesValue: false), .init(long: "json", short: nil, takesValue: false),
        .init(long: "help", short: "h", takesValue: false), .init(long: "version", short: nil, takesValue: false),
        // cache
        .init(long: "cache-dir", short: nil, takesValue: true), .init(long: "keep-query", short: nil, takesValue: false),
        .init(long: "cache-key", short: nil, takesValue: true), .init(long: "ttl", short: nil, takesValue: true),
        .init(long: "memory-limit", short: nil, takesValue: true), .init(long: "force-refresh", short: nil, takesValue: false),
        .init(long: "only-from-cache", short: nil, takesValue: false), .init(long: "memory-only", short: nil, takesValue: false),
        .init(long: "no-cache", short: nil, takesValue: false), .init(long: "no-auto-clean", short: nil, takesValue: false),
        // batch and prefetch
        .init(long: "jobs", short: "j", takesValue: true), .init(long: "per-host", short: nil, takesValue: true),
        .init(long: "variant", short: nil, takesValue: true), .init(long: "name", short: nil, takesValue: true),
        .init(long: "fail-fast", short: nil, takesValue: false), .init(long: "shard", short: nil, takesValue: true),
        .init(long: "from", short: nil, takesValue: true),
        // cache commands
        .init(long: "limit", short: nil, takesValue: true), .init(long: "all", short: nil, takesValue: false),
        .init(long: "temp-age", short: nil, takesValue: true), .init(long: "size-limit", short: nil, takesValue: true),
        .init(long: "dry-run", short: nil, takesValue: false), .init(long: "repair", short: nil, takesValue: false),
        // renderer
        .init(long: "renderer", short: nil, takesValue: true), .init(long: "idle", short: nil, takesValue: true),
    ]

    /// The processing options, in the order they compose.
    static let processing: Set<String> = ["resize", "crop", "round", "circle", "blur", "overlay", "grayscale", "rotate", "process"]
}

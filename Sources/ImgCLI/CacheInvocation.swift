import Foundation
import ImgCore

/// One `imgfetch cache SUBCOMMAND` run: its options, its words after the subcommand, the cache directory opened
/// once (nil when it does not exist: an empty cache), and where it prints. Each subcommand returns its exit status.
struct CacheInvocation {
    let arguments: ScannedArguments
    /// `inspect`, `prune`, ... as typed.
    let subcommand: String
    /// The words after the subcommand (a URL, `config`'s assignments).
    let rest: [String]
    let directory: String
    var root: CacheRoot?
    let environment: [String: String]
    let console: Console
    let output: CacheCommandOutput
    let dryRun: Bool

    init(arguments: ScannedArguments, subcommand: String, rest: [String], directory: String, root: CacheRoot?,
         environment: [String: String], console: Console) {
        (self.arguments, self.subcommand, self.rest, self.directory) = (arguments, subcommand, rest, directory)
        (self.root, self.environment, self.console) = (root, environment, console)
        let quiet = arguments[Options.quiet]
        output = CacheCommandOutput(console: console, quiet: quiet, verbose: arguments[Options.verbose] && !quiet,
                                    json: arguments[Options.json], command: "cache \(subcommand)")
        dryRun = arguments[Options.dryRun]
    }

    /// `cache inspect [URL]`: the entries (at most `--limit`, all with `--all`) or one URL's (or `--cache-key`'s), as
    /// text or JSON. `--limit` with a URL or `--cache-key`, whose entries are all listed, would be ignored: refused.
    func inspect() throws(ImgError) -> Int32 {
        guard rest.count <= 1 else { throw .usage("cache inspect takes at most one URL, got \(rest.count)") }
        var limit: Int? = try arguments[Options.limit] ?? Options.limit.defaultValue
        if arguments[Options.all] {
            // One would be ignored.
            if arguments.has(Options.limit) { throw .usage("--all and --limit contradict each other: give one of them") }
            limit = nil
        }
        if arguments.has(Options.limit), rest.first != nil || arguments.has(Options.cacheKey) {
            let (named, form) = rest.isEmpty ? ("--cache-key", "--cache-key KEY") : ("a URL", "URL")
            throw .usage("--limit and \(named) contradict each other: cache inspect \(form) lists every entry of its "
                         + "original (give one of them)")
        }
        let settings = try settings(uses: [.sizeLimit, .query])
        let key = try originalKey(query: settings.query)
        let inspection = present().map {
            CacheInspector.inspect(root: $0, originalKey: key, limit: key == nil ? limit : nil, sizeLimit: settings.sizeLimit)
        } ?? CacheInspector.empty(directory: directory, sizeLimit: settings.sizeLimit)
        let shownURL = rest.first.map(URLCredentials.maskingPassword(in:))
        if arguments[Options.json] {
            try CacheOutput.printJSON(inspection, url: shownURL, originalKey: key, console: console)
        } else if !output.quiet {
            try CacheOutput.printInspection(inspection, url: shownURL, console: console)
        }
        return 0
    }

    /// The original key the command is on: `--cache-key`'s, else its URL's; nil with neither. `--cache-key` stands
    /// in the URL's place: given both, one would be ignored (refused). `--keep-query` without a URL would change no
    /// key: refused.
    private func originalKey(query: QueryInKey) throws(ImgError) -> String? {
        let cacheKey = try arguments[Options.cacheKey]
        if cacheKey != nil, let input = rest.first {
            throw .usage("cache \(subcommand) takes a URL or --cache-key KEY, not both (got '"
                         + URLCredentials.maskingPassword(in: input) + "' and --cache-key)")
        }
        guard let input = rest.first else {
            if cacheKey == nil, arguments.has(Options.keepQuery) {
                throw .usage("--keep-query changes how a URL is keyed: give cache \(subcommand) the URL")
            }
            return cacheKey
        }
        return try CacheInspector.originalKey(forInput: input, query: query, cacheKey: cacheKey)
    }

    /// `cache clean-expired`: expired entries, and temporaries and stale locks older than `--temp-age`.
    func cleanExpired() throws(ImgError) -> Int32 {
        try noArguments()
        let tempAge = try arguments[Options.tempAge] ?? CacheMaintenance.defaultTempAge
        guard let root = present() else { return try output.nothing(dryRun) }
        return try stoppable { stop throws(ImgError) in
            let report = CacheMaintenance.cleanExpired(root: root, tempAge: tempAge, dryRun: dryRun,
                                                      listingPaths: output.listsPaths, stop: stop)
            return (try output.report(report, dryRun: dryRun), report.interrupted)
        }
    }

    /// `cache prune`: least recently used entries until the cache is within its size limit.
    func prune() throws(ImgError) -> Int32 {
        try noArguments()
        let settings = try settings(uses: .sizeLimit)
        guard let limit = settings.sizeLimit else {
            let noLimit = switch settings.sizeLimitOrigin {
            case .option: "--size-limit none sets none"
            case .environment: "IMGFETCH_SIZE_LIMIT sets none"
            case .config, .builtIn: "the cache's config sets none"
            }
            throw .usage("cache prune needs a size limit and \(noLimit): give --size-limit SIZE (e.g. 500M), "
                         + "set IMGFETCH_SIZE_LIMIT, or store one with 'imgfetch cache config size-limit=500M'")
        }
        guard let root = present() else { return try output.nothing(dryRun, limit: limit) }
        return try stoppable { stop throws(ImgError) in
            let report = CacheMaintenance.prune(root: root, sizeLimit: limit, dryRun: dryRun,
                                                listingPaths: output.listsPaths, stop: stop)
            return (try output.report(report, dryRun: dryRun, limit: limit), report.interrupted)
        }
    }

    /// `cache clear`: every entry.
    func clear() throws(ImgError) -> Int32 {
        try noArguments()
        guard let root = present() else { return try output.nothing(dryRun) }
        return try stoppable { stop throws(ImgError) in
            let report = CacheMaintenance.clear(root: root, dryRun: dryRun, stop: stop)
            return (try output.report(report, dryRun: dryRun), report.interrupted)
        }
    }

    /// Runs an upkeep command that SIGINT and SIGTERM stop between entries instead of ending the process: what it
    /// removed until then is reported (`interrupted`), then one line says so and the status is a shell's for the
    /// signal (128 + N). A signal after the command's last stop point finds it done: its report and status stand.
    private func stoppable(_ body: (Cancellation) throws(ImgError) -> (status: Int32, interrupted: Bool))
        throws(ImgError) -> Int32 {
        let stop = Cancellation()
        let watch = SignalWatcher.watch(for: console) { stop.cancel(signal: $0) }
        defer { watch.end() }
        let (status, interrupted) = try body(stop)
        guard interrupted else { return status }
        return Interruption.exitStatus(of: stop, console: console) ?? status
    }

    /// `cache remove URL` (or `--cache-key KEY`): the original and every variant made from it.
    func remove() throws(ImgError) -> Int32 {
        guard rest.count <= 1 else { throw .usage("cache remove takes one URL, got \(rest.count)") }
        guard let key = try originalKey(query: try settings(uses: .query).query) else {
            throw .usage("cache remove takes one URL (or --cache-key KEY), got 0")
        }
        guard let root = present() else { return try output.nothing(dryRun) }
        return try output.report(try CacheMaintenance.remove(root: root, originalKey: key, dryRun: dryRun), dryRun: dryRun)
    }

    /// `cache verify [--repair]`: every entry's digest checked; damaged ones are exit 8 (removed with `--repair`).
    func verify() throws(ImgError) -> Int32 {
        try noArguments()
        let repair = arguments[Options.repair]
        let result = present().map { CacheVerifier.verify(root: $0, repair: repair) } ?? CacheVerifier.Result()
        for failure in result.failures {
            console.error("warning: could not remove \(failure.path): \(failure.reason)")
        }
        try output.verification(result, repair: repair)
        if !result.failures.isEmpty { return ImgError.io("").exitCode }
        if !repair, !result.damaged.isEmpty {
            throw .damaged("\(result.damaged.count) of \(Counted.of(result.checked, "entry", "entries")) damaged; "
                           + "'imgfetch cache verify --repair' removes them")
        }
        return 0
    }

    /// `cache config [NAME=VALUE ...]`: stores the assignments in the directory's config (making the directory),
    /// then prints the settings in force and where each comes from. The config as the assignments leave it is judged
    /// first: what a command reading it would refuse (a bad value, an unknown key, a line with no `=`) refuses this
    /// one too, with nothing made or written, in one line saying how to mend it; an assignment that mends it (or
    /// `KEY=default`, that removes an unknown key) is how.
    mutating func config() throws(ImgError) -> Int32 {
        // Every assignment, option and variable is checked before the directory is made or the config written.
        let checked = try CacheSettings.checkedAssignments(rest)
        if !rest.isEmpty { _ = try CacheSettingsChoice.resolve(arguments, root: nil, environment: environment) }
        if let problem = try CacheSettings.amendedConfig(root: root, checked: checked).problem {
            throw .usage(Self.mending(problem))
        }
        if !rest.isEmpty {
            let made = if let root { root } else { try CacheRoot.open(directory, create: true) }
            guard let opened = made else { throw .io("cannot open \(directory)") }
            try CacheSettings.writeConfig(root: opened, checked: checked)
            root = opened
        }
        try output.configuration(directory: directory, settings: try settings())
        return 0
    }

    /// A stored config's problem and how `cache config` mends it: `bad ttl '3w' in DIR/config: expected …; mend it
    /// with 'imgfetch cache config ttl=VALUE' (or ttl=default)`.
    private static func mending(_ problem: CacheSettings.ConfigProblem) -> String {
        guard let key = problem.key else { return problem.message + "; edit or delete that line" }
        guard CacheSettings.keys.contains(key) else {
            return problem.message + "; remove it with 'imgfetch cache config \(key)=default'"
        }
        return problem.message + "; mend it with 'imgfetch cache config \(key)=VALUE' (or \(key)=default)"
    }

    /// The cache directory, once the command is known to be one it can run (its words and options checked), or nil
    /// when there is none: nothing to do (exit 0), but a line on stderr says so (not with `-q`), lest a mistyped
    /// `--cache-dir` in a cron line find nothing, day after day, without a word. Nothing is made there.
    private func present() -> CacheRoot? {
        if root == nil, !output.quiet { console.error("no cache at \(directory): nothing to do") }
        return root
    }

    /// TTL, size limit, query and `--fail-on` level: option, then environment, then the directory's config; of
    /// those not in `uses` (default all), the subcommand reads neither variable nor config (a bad one stops it not).
    private func settings(uses: CacheSettings.Uses = .all) throws(ImgError) -> CacheSettings {
        try CacheSettingsChoice.resolve(arguments, root: root, environment: environment, uses: uses)
    }

    private func noArguments() throws(ImgError) {
        if let extra = rest.first {
            throw .usage("cache \(subcommand) takes no arguments, got '\(URLCredentials.maskingPassword(in: extra))'")
        }
    }
}

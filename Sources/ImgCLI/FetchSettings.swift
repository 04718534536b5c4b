import Foundation
import ImgCore

/// What the fetch-like commands (fetch, batch, prefetch) take from the command line.
struct FetchSettings {
    var configuration = PipelineConfiguration()
    var template: ImageRequest
    var outputFile: String?
    var outputDirectory: String?
    /// Where the command prints.
    let console: Console
    var quiet = false
    var verbose = false
    var json = false
    var showProgress = false
    var denyLocal = false
    /// Clean the disk cache when due (`CacheMaintenance.autoCleanIfDue`); false with --no-auto-clean or no disk cache.
    var autoClean = true
    /// TTL and size limit of the cache directory, after option, environment and the directory's config.
    var cacheSettings = CacheSettings()
    /// What `-v` says about the settings before anything is fetched.
    var notes: [String] = []
    /// A malformed proxy variable libcurl would use (`environmentProxyRefusal`), thrown by a command that fetches a URL.
    var proxyRefusal: ImgError?

    /// Reads every option the fetch-like commands share; a bad value is a usage error naming the option. A variable
    /// is read only when the command uses it: `IMGFETCH_TTL` and `IMGFETCH_SIZE_LIMIT` with a disk cache,
    /// `IMGFETCH_FAIL_ON` when it `decodes` (default true; info only with `--facts`). The warm renderer's settings
    /// are fetch's alone (`RendererSettings`).
    init(_ arguments: ScannedArguments, environment: [String: String], console: Console,
         decodes: Bool = true) throws(ImgError) {
        self.console = console
        template = ImageRequest(source: .standardInput)
        configuration.network = try Self.network(from: arguments, environment: environment, notes: &notes)
        proxyRefusal = Self.environmentProxyRefusal(network: configuration.network, environment: environment)

        template.decoding = try Self.decoding(from: arguments)

        outputFile = try arguments[Options.output]
        outputDirectory = try Self.outputDirectory(from: arguments)
        let encoding = try Self.encoding(from: arguments, outputFile: outputFile)
        template.encoding = encoding
        // A run that measures distances keeps their images' memory from its start, as one call leaves it for the next.
        if encoding.targetDistance != nil { VipsRuntime.keepFreedMemoryForMeasuring() }
        template.chain = try Self.chain(from: arguments)
        // Asked for no change (only -o's extension may name a format): a source in that format is written unchanged.
        let changes: [any OptionDeclaring] = [Options.format, Options.quality, Options.lossless, Options.background,
                                              Options.keepMetadata, Options.firstFrame, Options.maxFrames]
        template.keepsSourceBytes = template.chain.isEmpty && !changes.contains { arguments.has($0) }
        template.cacheKey = try arguments[Options.cacheKey]
        template.facts = try Self.facts(from: arguments)

        let policy = try Self.policy(from: arguments)
        configuration.policy = policy
        if let bytes = try arguments[Options.memoryLimit] { configuration.memoryLimit = bytes }
        let cacheDirectory = CacheDirectory.resolve(option: try arguments[Options.cacheDir], environment: environment)
        configuration.cacheDirectory = cacheDirectory
        // Opened once, here (refused, exit 7, when another user could swap it or a folder on the way), and used
        // through its descriptor from then on; a cache that isn't used (--no-cache, --memory-only) is only read
        // for its settings when it is safe. Nil while it does not exist: the pipeline makes it.
        let cacheRoot = policy.usesDisk ? try CacheRoot.open(cacheDirectory, create: false)
                                        : try? CacheRoot.open(cacheDirectory, create: false)
        if policy.usesDisk { configuration.cacheRoot = cacheRoot }
        // TTL, size limit and fail-on level: option, then IMGFETCH_TTL / IMGFETCH_SIZE_LIMIT / IMGFETCH_FAIL_ON,
        // then the directory's config, then defaults; a variable or config value the command won't use is not judged.
        var uses: CacheSettings.Uses = policy.usesDisk ? [.query, .sizeLimit, .ttl] : [.query]
        if decodes { uses.insert(.failOn) }
        cacheSettings = try CacheSettingsChoice.resolve(arguments, root: cacheRoot, environment: environment, uses: uses)
        configuration.ttl = cacheSettings.ttl
        template.decoding.failOn = cacheSettings.failOn
        template.query = cacheSettings.query
        // Inputs that would share a key are worth a line even with -q: their outputs would silently be one image.
        configuration.queryCollisions = { console.error($0.commandLineMessage) }
        configuration.sizeLimit = cacheSettings.sizeLimit

        quiet = arguments[Options.quiet]
        verbose = arguments[Options.verbose] && !quiet
        json = arguments[Options.json]
        // IMGFETCH_PROGRESS=0 (or off, no, false) is --no-progress for every run of a shell.
        let progressOff = ["0", "off", "no", "false"].contains((environment["IMGFETCH_PROGRESS"] ?? "").lowercased())
        showProgress = !quiet && !json && !arguments[Options.noProgress] && !progressOff && console.standardError.isTerminal
        if showProgress { configuration.network.progress = Reporter(console: console).progressBar(label: "downloading") }
        denyLocal = arguments[Options.denyLocal]
        autoClean = !arguments[Options.noAutoClean] && !policy.memoryOnly && !policy.noCache
    }

    /// `-O`'s folder, normalised; nil without it. Refused: a URL (curl's `-O URL` habit), an empty value (a script's
    /// unset variable) and `-` (standard output is `-o -`'s).
    static func outputDirectory(from arguments: ScannedArguments) throws(ImgError) -> String? {
        let outputDirectory = try arguments[Options.outputDir]
        // curl's habit (`-O URL`): -O takes a directory, and a URL there would become a directory named after it.
        if let directory = outputDirectory, Self.looksLikeURL(directory) {
            throw .usage("-O takes a directory, not a URL ('\(URLCredentials.maskingPassword(in: directory))'): "
                         + "give the URLs as inputs and -O DIR for where to write them")
        }
        // An empty -O (a script's unset variable) is refused, not taken as the working directory.
        if outputDirectory == "" { throw .setting(.outputDirectoryUnnamed) }
        // `-` is standard output for -o; -O writes files into a folder, so it does not take it for a folder's name.
        if outputDirectory == "-" {
            throw .usage("-O - names a folder, not standard output (-o - writes one image there); "
                         + "for a folder named '-', give ./-")
        }
        return outputDirectory.map(PathSpelling.normalised)
    }

    /// The decoding limits and choices: `--max-pixels`, `--max-frames`, `--max-decode-memory`, `--max-render-time`,
    /// `--allow-untrusted-formats`, `--no-autorotate`, `--first-frame` (ImgCore's defaults where not given).
    static func decoding(from arguments: ScannedArguments) throws(ImgError) -> DecodeOptions {
        var decoding = DecodeOptions()
        if let pixels = try arguments[Options.maxPixels] { decoding.maxPixels = pixels }
        if let frames = try arguments[Options.maxFrames] { decoding.maxFrames = frames }
        if let bytes = try arguments[Options.maxDecodeMemory] { decoding.maxDecodeMemory = bytes }
        if let seconds = try arguments[Options.maxRenderTime] { decoding.maxRenderTime = seconds }
        decoding.allowUntrustedFormats = arguments[Options.allowUntrustedFormats]
        decoding.autorotate = !arguments[Options.noAutorotate]
        decoding.firstFrame = arguments[Options.firstFrame]
        return decoding
    }

    /// What the caches may do: `--force-refresh`, `--only-from-cache`, `--memory-only`, `--no-cache` (none by default),
    /// refusing `--only-from-cache` beside an option that skips the disk cache.
    static func policy(from arguments: ScannedArguments) throws(ImgError) -> CachePolicy {
        var policy = CachePolicy()
        policy.forceRefresh = arguments[Options.forceRefresh]
        policy.onlyFromCache = arguments[Options.onlyFromCache]
        policy.memoryOnly = arguments[Options.memoryOnly]
        policy.noCache = arguments[Options.noCache]
        // --only-from-cache reads the disk cache: with an option that skips or bypasses it, every input would fail.
        if policy.onlyFromCache, let other = [Options.forceRefresh, Options.noCache, Options.memoryOnly].first(where: { arguments[$0] }) {
            throw .usage("--only-from-cache and --\(other.long) contradict each other: give one of them")
        }
        return policy
    }

    /// Cleans the disk cache when it is due (at most once an hour per directory), unless --no-auto-clean: the
    /// directory opened when the settings were read (a run that made it has nothing to clean yet).
    func cleanCacheIfDue() {
        guard autoClean, let root = configuration.cacheRoot else { return }
        CacheMaintenance.autoCleanIfDue(root: root, settings: cacheSettings)
    }

    /// Leaves the disk cache alone when every input is a local file no image can be read from
    /// (`ImageSource.isUnreadableFile`) and no `--cache-key` could find one in the cache: each input then fails as
    /// it does with the cache (the system's reason, exit 7), but no cache directory, folder or tag is made for it,
    /// nor is the cache cleaned.
    mutating func leaveCacheAloneIfNothingCanBeRead(_ sources: [ImageSource]) {
        guard template.cacheKey == nil, !sources.isEmpty, sources.allSatisfy(\.isUnreadableFile) else { return }
        (configuration.cacheDirectory, configuration.cacheRoot) = (nil, nil)
    }

    /// Opens the pipeline and prints its warnings (not with `-q`), or prints why it can't be opened.
    func openPipeline() -> Result<ImagePipeline, ImgError> {
        do {
            let pipeline = try ImagePipeline(configuration: configuration)
            if !quiet { for warning in pipeline.warnings { console.error("warning: \(warning)") } }
            if verbose { for note in notes { console.error(note) } }
            return .success(pipeline)
        } catch {
            console.error(error.commandLineMessage)
            return .failure(error)
        }
    }

    /// The processors in the order their options were given; `--upscale` lets every `fit` resize enlarge.
    static func chain(from arguments: ScannedArguments) throws(ImgError) -> ProcessingChain {
        var chain = ProcessingChain()
        let upscale = arguments[Options.upscale]
        for (name, value) in arguments.options where OptionCatalog.steps.contains(name) {
            let text = value ?? ""
            do {
                switch name {
                case Options.process.long:
                    chain = chain |> (try ProcessingChain.parse(text))
                case Options.circle.long, Options.grayscale.long, Options.flip.long, Options.flop.long:
                    chain.steps.append(try ProcessingChain.step(named: name, arguments: []))
                default:
                    let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
                    var stepArguments = parts
                    if name == Options.resize.long, upscale { stepArguments.append("upscale") }
                    chain.steps.append(try ProcessingChain.step(named: name, arguments: stepArguments))
                }
            } catch {
                throw name == Options.process.long ? error : .usage("--\(name) \(text): \(error.message)")
            }
        }
        if upscale, !arguments.options.contains(where: { $0.name == Options.resize.long }) {
            throw .usage("--upscale needs --resize (it would do nothing)")
        }
        return chain
    }

    /// `--facts` with `--blurhash X,Y`; `--blurhash` alone is a usage error (it would do nothing).
    static func facts(from arguments: ScannedArguments) throws(ImgError) -> FactsRequest? {
        let components = try arguments[Options.blurhash]
        guard arguments[Options.facts] else {
            if components != nil { throw .usage("--blurhash needs --facts") }
            return nil
        }
        guard let components else { return FactsRequest() }
        // Each count is one digit: Int("+4") is 4, but "+4,3" is not the X,Y the message asks for.
        let parts = components.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.count == 1 ? Int($0) : nil }
        guard parts.count == 2, let x = parts[0], let y = parts[1], (1...9).contains(x), (1...9).contains(y) else {
            throw .usage("bad --blurhash '\(components)': expected X,Y with each from 1 to 9, such as 4,3")
        }
        return FactsRequest(blurhashX: x, blurhashY: y)
    }

    /// Each input as an `ImageSource`, for fetch and info alike: `--cache-key` with several inputs, `-` given twice
    /// (standard input can be read once), with `--deny-local`, a local input, and with a URL among them, a malformed
    /// proxy variable (`proxyRefusal`) are refused before anything is read.
    func sources(_ inputs: [String]) throws(ImgError) -> [ImageSource] {
        if template.cacheKey != nil, inputs.count > 1 {
            throw .usage("--cache-key names one image, but \(inputs.count) inputs were given")
        }
        if inputs.filter({ $0 == "-" }).count > 1 { throw .usage("standard input (-) can be read only once") }
        let sources = try inputs.map { input throws(ImgError) in
            let source = try ImageSource(parsing: input)
            if denyLocal, !source.isRemote { throw .usage("refusing local input '\(input)' (--deny-local)") }
            return source
        }
        if let proxyRefusal, sources.contains(where: \.isRemote) { throw proxyRefusal }
        return sources
    }

    /// `scheme://...`: what `-O` must not be given.
    static func looksLikeURL(_ text: String) -> Bool {
        guard let colon = text.range(of: "://"), colon.lowerBound > text.startIndex else { return false }
        let scheme = text[..<colon.lowerBound]
        return scheme.first!.isLetter && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) }
    }

    /// What `--keep-query` says: the whole query alone, `--keep-query=NAME,NAME` those parameters; nil when not given.
    static func queryOption(_ arguments: ScannedArguments) throws(ImgError) -> QueryInKey? {
        guard let given = arguments.inlineValue(of: Options.keepQuery) else { return nil }
        guard let names = given else { return .all }
        guard let query = QueryInKey(names: names) else {
            throw .usage("bad --keep-query=\(names): expected parameter names separated by commas, e.g. --keep-query=img,w")
        }
        return query
    }
}

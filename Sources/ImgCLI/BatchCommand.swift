import Dispatch
import Foundation
import ImgCore
import Synchronization

/// `imgfetch batch LIST|- -O DIR` and `imgfetch prefetch URL... [--from FILE]`: parse, run an ImgCore `BatchRunner`,
/// print per-item lines or JSON records, a progress line on a terminal, and the summary.
enum BatchCommand {
    static func run(_ arguments: ScannedArguments, words: [String], prefetchOnly: Bool, environment: [String: String],
                    console: Console) -> Int32 {
        var settings: FetchSettings
        var options = BatchOptions()
        let inputs: [BatchInput]
        let cancellation = Cancellation()
        var records = BatchRecords()
        do throws(ImgError) {
            settings = try FetchSettings(arguments, environment: environment, console: console)
            inputs = try parseInputs(arguments, words: words, prefetchOnly: prefetchOnly, settings: settings)
            options = try parseOptions(arguments, settings: settings, prefetchOnly: prefetchOnly)
            if let text = try arguments[Options.shard] {
                if ShardEngine.isAuto(text) {
                    let engine = try ShardEngine(parsing: text, environment: environment)
                    options.shard = engine.shard
                    Reporter(console: console, verbose: settings.verbose).info("--shard \(text): shard \(engine.shard.index)/\(engine.shard.count) from \(engine.decidedBy)")
                } else {
                    options.shard = try Shard(parsing: text)
                }
            }
            settings.configuration.connectionsPerHost = try arguments[Options.perHost] ?? Options.perHost.defaultValue
            var politeness = HostPoliteness(giveUpAfterRefusals: max(5, 2 * (settings.configuration.network.retries + 1)))
            if let text = try arguments[Options.rate] {
                guard let rate = Double(text), rate.isFinite, rate > 0, rate <= 1_000_000 else {
                    throw .usage("bad --rate '\(text)': expected requests per second per host, a number over 0 (e.g. 2 or 0.5)")
                }
                politeness.requestsPerSecond = rate
            }
            settings.configuration.politeness = politeness
            try BatchListReader.checkReadable(inputs)
            options.listLayout = try ListSettings.layout(arguments, inputs: inputs)
            try options.listLayout.prepare(inputs)
            options.sizeFilter = try FilterSettings.sizeFilter(arguments)
            options.webDataset = try DatasetSettings.layout(arguments, shard: options.shard,
                                                            keptColumns: options.listLayout.keptColumns)
            settings.template.robotsTags = try OptOutSettings.robotsTagRule(
                arguments, userAgent: settings.configuration.network.userAgent, webDataset: options.webDataset != nil)
            options.robotsTxt = arguments[Options.robotsTxt]
            options.outputFolder = try options.outputDirectory.map { directory throws(ImgError) in
                try OutputWriter.prepareDirectory(directory)
            }
            if let layout = options.webDataset, let folder = options.outputFolder {
                try DatasetSettings.checkFolder(folder, layout: layout, arguments: arguments)
            }
            records = try BatchRecords.open(arguments, shard: options.shard, verbose: settings.verbose, console: console)
            options.previous = records.previous
        } catch {
            console.error(error.commandLineMessage)
            return error.exitCode
        }
        settings.configuration.network.progress = nil
        // In a batch, --no-cache keeps the run's own memory cache (nothing on disk, nothing after the run), so that
        // one download still serves every line and every variant naming that URL.
        if settings.configuration.policy.noCache {
            settings.configuration.policy.noCache = false
            settings.configuration.policy.memoryOnly = true
        }
        settings.configuration.network.cancellation = cancellation
        // Memory keeps an original only until the last line read ahead that uses it.
        settings.configuration.memoryPolicy = BatchMemoryPolicy()
        shareCores(&settings.configuration, jobs: options.jobs, environment: environment, verbose: settings.verbose,
                   command: prefetchOnly ? "prefetch" : "batch", console: console)
        let pipeline: ImagePipeline
        switch settings.openPipeline() {
        case .success(let opened): pipeline = opened
        case .failure(let error): return error.exitCode
        }

        let printer = BatchPrinter(settings: settings, progressLine: settings.showProgress, prefetchOnly: prefetchOnly,
                                   webDataset: options.webDataset != nil)
        let runner = BatchRunner(pipeline: pipeline, template: settings.template, options: options,
                                 cancellation: cancellation) { [records] event in
            records.record(event)
            printer.handle(event)
        }
        // A closed stdout (`| head`) must not kill us mid-write: the printer sees EPIPE and stops the batch as
        // SIGPIPE would (exit 141); another failure to write stdout (a full disk) stops it with exit 7.
        signal(SIGPIPE, SIG_IGN)
        printer.onBrokenOutput { runner.stop(signal: SIGPIPE) }
        let watchers = SignalWatcher.watch { runner.stop(signal: $0) }
        let summary = runner.run(inputs)
        watchers.forEach { $0.cancel() }
        if summary.signal == 0 { settings.cleanCacheIfDue() }
        // A list that could not be read to its end: the items before the failure were run; say so before the summary.
        if let failure = summary.listFailure { console.error(failure.commandLineMessage) }
        if let reason = summary.outputFolderFull, let directory = options.outputDirectory {
            console.error(ErrorWording.outputFolderFull(directory, reason: reason, notDone: summary.progress.skipped))
        }
        if let failure = summary.tarFailure { console.error(failure.commandLineMessage) }
        printer.finish(summary)
        let status = exitStatus(summary, outputFailure: printer.outputFailure)
        records.finish(summary, exit: status, shard: options.shard)
        if let failure = printer.outputFailure ?? records.writer?.writeFailure {
            console.error(failure.commandLineMessage)
            return failure.exitCode
        }
        return status
    }

    /// Renderings at once share the cores: each gets its share of libvips' threads (one each with the defaults),
    /// unless `VIPS_CONCURRENCY` sets libvips' number itself. `-v` says what was chosen.
    static func shareCores(_ configuration: inout PipelineConfiguration, jobs: Int, environment: [String: String],
                           verbose: Bool, command: String, console: Console) {
        let renderingsAtOnce = min(jobs, configuration.renderingSlots)
        let userThreads = environment["VIPS_CONCURRENCY"].flatMap { $0.isEmpty ? nil : $0 }
        configuration.threadsPerRendering = userThreads == nil
            ? PipelineConfiguration.threadsPerRendering(renderingsAtOnce: renderingsAtOnce) : nil
        let threads = configuration.threadsPerRendering.map(String.init)
            ?? userThreads.map { "VIPS_CONCURRENCY=\($0)" } ?? "libvips' default (one per core)"
        let workers = jobs == 1 ? "1 worker" : "\(jobs) workers"
        let renderings = renderingsAtOnce == 1 ? "1 rendering" : "\(renderingsAtOnce) renderings"
        Reporter(console: console, verbose: verbose).info("\(command): \(workers), \(renderings) at once, libvips threads per rendering: \(threads)")
    }

    /// The exit status of a finished batch (see `exitStatus(_:)` for its items).
    static func exitStatus(_ summary: BatchSummary, outputFailure: ImgError?) -> Int32 {
        if let outputFailure { return outputFailure.exitCode }
        if summary.signal != 0 { return 128 + summary.signal }
        if let failure = summary.listFailure { return failure.exitCode }
        if summary.outputFolderFull != nil { return ImgError.io("").exitCode }
        if let failure = summary.tarFailure { return failure.exitCode }
        return exitStatus(summary.progress)
    }

    /// 0 when every item succeeded; 75 (EX_TEMPFAIL) when items failed and every failure may succeed later (network,
    /// timeout, HTTP 408, 429, 5xx), so that a job array's retry policy can tell; 1 when a failure is permanent.
    static func exitStatus(_ progress: BatchProgress) -> Int32 {
        if progress.failed == 0 { return 0 }
        return progress.failedPermanently > 0 ? 1 : 75
    }

    private static func parseInputs(_ arguments: ScannedArguments, words: [String], prefetchOnly: Bool,
                                    settings: FetchSettings) throws(ImgError) -> [BatchInput] {
        if prefetchOnly {
            if settings.outputFile != nil || settings.outputDirectory != nil {
                throw .usage("prefetch only fills the cache: -o and -O don't apply (use batch)")
            }
            var inputs: [BatchInput] = words.isEmpty ? [] : [.words(words)]
            if let from = try arguments[Options.from] { inputs.append(from == "-" ? .standardInput : .file(from)) }
            guard !inputs.isEmpty else { throw .usage("prefetch needs URLs or --from FILE") }
            return inputs
        }
        guard words.count == 1 else {
            throw .usage(words.isEmpty ? "batch needs a list: imgfetch batch LIST|- -O DIR" : "batch takes one list, not \(words.count) (\(words.joined(separator: " ")))")
        }
        if settings.outputFile != nil { throw .usage("batch writes under -O DIR; -o doesn't apply") }
        guard settings.outputDirectory != nil else { throw .usage("batch needs -O DIR") }
        return [words[0] == "-" ? .standardInput : .file(words[0])]
    }

    private static func parseOptions(_ arguments: ScannedArguments, settings: FetchSettings,
                                     prefetchOnly: Bool) throws(ImgError) -> BatchOptions {
        var options = BatchOptions()
        if let jobs = try arguments[Options.jobs] { options.jobs = jobs }
        options.variants = try Options.variant.values(in: arguments).map { text throws(ImgError) in try BatchVariant(parsing: text) }
        var seen = Set<String>()
        for variant in options.variants where !seen.insert(variant.name).inserted {
            throw .usage("--variant \(variant.name) is given twice")
        }
        if let text = try arguments[Options.name] { options.nameTemplate = try NameTemplate(text) }
        options.failFast = arguments[Options.failFast]
        options.verifyOutputs = arguments[Options.verifyOutputs]
        if options.verifyOutputs, try arguments[Options.resume] == nil {
            throw .usage("--verify-outputs checks what --resume skips: give --resume FILE")
        }
        options.denyLocal = settings.denyLocal
        options.outputDirectory = prefetchOnly ? nil : settings.outputDirectory
        let distance = try arguments[Options.duplicateDistance]
        options.skipDuplicates = arguments[Options.skipDuplicates]
        if settings.template.facts != nil {
            options.duplicateDistance = distance ?? Options.duplicateDistance.defaultValue
        } else if let given = distance != nil ? Options.duplicateDistance.long : options.skipDuplicates ? Options.skipDuplicates.long : nil {
            throw .usage("--\(given) needs --facts (duplicates are found by their phash)")
        }
        return options
    }
}

import Dispatch
import Foundation
import ImgCore
import Synchronization

/// `imgfetch batch LIST...|- -O DIR` and `imgfetch prefetch URL... [--from FILE]`: parse, run an ImgCore `BatchRunner`,
/// print per-item lines or JSON records, a progress line on a terminal, and the summary.
enum BatchCommand {
    static func run(_ arguments: ScannedArguments, words: [String], prefetchOnly: Bool, environment: [String: String],
                    console: Console) -> Int32 {
        var plan: BatchPlan
        do throws(ImgError) {
            plan = try BatchPlan(arguments, words: words, prefetchOnly: prefetchOnly, environment: environment,
                                 console: console)
        } catch {
            console.error(error.commandLineMessage)
            return error.exitCode
        }
        let cancellation = Cancellation()
        configure(&plan.settings.configuration, cancellation: cancellation)
        plan.settings.configuration.policy.requiresDisk = prefetchOnly
        shareCores(&plan.settings.configuration, jobs: plan.options.jobs, environment: environment,
                   verbose: plan.settings.verbose, command: prefetchOnly ? "prefetch" : "batch", console: console)
        let pipeline: ImagePipeline
        switch plan.settings.openPipeline() {
        case .success(let opened): pipeline = opened
        case .failure(let error): return error.exitCode
        }
        return execute(plan, pipeline: pipeline, cancellation: cancellation, prefetchOnly: prefetchOnly, console: console)
    }

    /// What a batch changes of the fetch settings: no progress bar per download, `--no-cache` as a memory cache of
    /// the run's own, transfers cancelled with the batch, and the batch's memory policy.
    private static func configure(_ configuration: inout PipelineConfiguration, cancellation: Cancellation) {
        configuration.network.progress = nil
        // In a batch, --no-cache keeps the run's own memory cache (nothing on disk, nothing after the run), so that
        // one download still serves every line and every variant naming that URL.
        if configuration.policy.noCache {
            configuration.policy.noCache = false
            configuration.policy.memoryOnly = true
        }
        configuration.network.cancellation = cancellation
        // Memory keeps an original only until the last line read ahead that uses it.
        configuration.memoryPolicy = BatchMemoryPolicy()
    }

    /// Runs the planned batch on `pipeline` until its list ends, it is stopped (a signal, a closed stdout,
    /// `--fail-fast`) or a write fails; prints the summary and returns the exit status.
    private static func execute(_ plan: BatchPlan, pipeline: ImagePipeline, cancellation: Cancellation,
                                prefetchOnly: Bool, console: Console) -> Int32 {
        let (settings, options, records) = (plan.settings, plan.options, plan.records)
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
        // What the batch would do after a record that can't be written (a full disk) would go unrecorded.
        records.writer?.onFailure { runner.stop() }
        // Watched to the end: a signal while the summary is written finds the run over, and changes nothing.
        let watch = SignalWatcher.watch(for: console) { runner.stop(signal: $0) }
        defer { watch.end() }
        let summary = runner.run(plan.inputs)
        // Every tar is complete or given up: another run may write tars of these names now.
        options.tarNameLock?.release()
        if summary.signal == 0 { settings.cleanCacheIfDue() }
        // A list that could not be read to its end: the items before the failure were run; say so before the summary.
        if let failure = summary.listFailure { console.error(failure.commandLineMessage) }
        if let reason = summary.outputFolderFull, let directory = options.outputDirectory {
            console.error(ErrorWording.outputFolderFull(directory, reason: reason, notDone: summary.progress.skipped,
                                                        notReached: summary.progress.notReached))
        }
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

    /// 0 when every item succeeded (or was filtered or refused by its site); 75 (EX_TEMPFAIL) when items failed and
    /// every failure may succeed later (network, timeout, HTTP 408, 429, 5xx), or items were disallowed only because
    /// their robots.txt could not be had for such a reason, so that a job array's retry policy can tell; 1 when a
    /// failure is permanent.
    static func exitStatus(_ progress: BatchProgress) -> Int32 {
        if progress.failed == 0, progress.robotsDisallowedTransient == 0 { return 0 }
        return progress.failedPermanently > 0 ? 1 : 75
    }
}

import Foundation
import Synchronization

/// Runs a batch: a reader thread streams the list into a bounded queue, `jobs` worker threads take items from it and
/// ask the shared `ImagePipeline` for every variant (equal originals in flight share one transfer, equal variants one
/// rendering; transfers per host and renderings at once are bounded by the pipeline's configuration), and each
/// finished item is retired strictly in input order: its outputs are renamed into place under the names its line
/// claimed when it was read (`BatchOutputNamer`: from the list alone), and the caller hears about it. Workers are
/// threads, not Swift tasks, because libcurl and libvips calls block.
public final class BatchRunner: Sendable {
    private let pipeline: ImagePipeline
    private let requests: BatchRequests // each output's request and key
    private let maker: BatchOutputMaker // makes each line's outputs
    private let judge: ResumeJudge? // --resume: is a line recorded ok skipped; --retry-failed: is it carried
    private let options: BatchOptions
    private let cancellation: Cancellation?
    private let events: @Sendable (BatchEvent) -> Void
    private let queue: BoundedQueue<BatchItem>
    private let stopping = Atomic<Bool>(false)
    private let stoppedByFailure = Atomic<Bool>(false)
    private let order = Locked(BatchRetirement())
    private let started = Date()
    /// `-O DIR`, opened once (names resolved relative to it), or why it could not be.
    private let outputFolder: Result<OutputFolder, ImgError>?
    /// The pipeline's memory policy: told of every line's uses of its original (a `BatchMemoryPolicy` tracks them).
    private var announcements: any MemoryPolicy { pipeline.configuration.memoryPolicy }
    /// With `BatchOptions.webDataset`: the tars the outputs go into (nothing is staged as a file of its own).
    private let webDataset: WebDatasetShards?

    /// `template` carries the shared processing, encoding and decoding options (its source is replaced per item).
    /// `cancellation` should be the one in the pipeline's network options, so that `stop(signal:)` aborts transfers.
    public init(pipeline: ImagePipeline, template: ImageRequest, options: BatchOptions, cancellation: Cancellation?,
                events: @escaping @Sendable (BatchEvent) -> Void) {
        self.pipeline = pipeline
        self.options = options
        self.cancellation = cancellation
        // Every hop of a redirect chain, not only the list's URL, is a request robots.txt must allow.
        if options.robotsTxt { pipeline.judgeRedirectsByRobotsTxt() }
        self.events = events
        queue = BoundedQueue(capacity: options.window)
        // Prefetch of originals only: no processing options and no variants.
        let originalsOnly = options.outputDirectory == nil && options.variants.isEmpty && template.chain.isEmpty
        var template = template
        // An original the size filter refuses is refused from its header, before anything is decoded.
        if options.sizeFilter.isActive { template.decoding.sizeFilter = options.sizeFilter }
        requests = BatchRequests(template: template, variants: options.variants, originalsOnly: originalsOnly)
        let outputFolder = options.outputDirectory.map { directory in
            options.outputFolder.map { .success($0) } ?? Result { () throws(ImgError) in try OutputFolder(opening: directory) }
        }
        self.outputFolder = outputFolder
        webDataset = options.webDataset.flatMap { layout in
            (try? outputFolder?.get()).map {
                let table = SampleTableShape(keptColumns: options.listLayout.keptColumns,
                                             captionColumn: options.listLayout.captionColumn, facts: template.facts != nil)
                return WebDatasetShards(layout: layout, table: table, folder: $0, shard: options.shard)
            }
        }
        maker = BatchOutputMaker(pipeline: pipeline, requests: requests, options: options,
                                 outputFolder: webDataset == nil ? outputFolder : nil)
        judge = options.previous != nil ? ResumeJudge(
            directory: options.outputDirectory, folder: try? outputFolder?.get(),
            marksDuplicates: options.duplicateDistance != nil, skipsDuplicates: options.skipDuplicates,
            verifyDigests: options.verifyOutputs, tars: options.webDataset.map(TarIdentities.init)) : nil
        // Lines are announced as they are read: memory keeps an original only until its last announced use.
        let announcements = pipeline.configuration.memoryPolicy
        // The disk cache is kept within its size limit as the batch writes, sparing the originals of pending uses.
        pipeline.keepCacheWithinLimit { announcements.pendingKeys() }
        // Originals are written once and not read again soon: they don't stay in the page cache.
        pipeline.releasePagesOfLargeEntries()
    }

    /// Why the output folder took no more (a full or over-quota file system), once a write into it failed so.
    private var folderOutOfSpace: String? {
        if case .success(let folder)? = outputFolder { folder.outOfSpace } else { nil }
    }

    /// A line that met a full output folder is not done (its staged outputs discarded), and no new line starts:
    /// every one would fail alike, and `--resume` finishes them once there is room.
    private func notDoneForLackOfSpace(_ item: BatchItem, _ outputs: [BatchOutput]) -> BatchItemReport {
        for case let staged? in outputs.map(\.staged) { staged.discard() }
        stop()
        return BatchItemReport(item: item, outputs: [], skipped: true)
    }

    /// The uses an item makes of its original: one an output (one a variant, or one), and one more to check its
    /// SHA-256 (`BatchItem.expectedSHA256`), so that the check's download serves the outputs.
    private func uses(by item: BatchItem) -> Int {
        max(1, options.variants.count) + (item.expectedSHA256 == nil ? 0 : 1)
    }

    /// Ends an item's announced uses of its original; after the last, the original leaves memory.
    private func finishUses(by item: BatchItem) {
        guard let key = item.originalKey else { return }
        if announcements.finish(key, count: uses(by: item)) { pipeline.forgetOriginal(key) }
    }

    /// Runs the batch to its end (or until stopped) and returns the summary. Blocks the calling thread.
    public func run(_ inputs: [BatchInput]) -> BatchSummary {
        let reader = Thread { [self] in readList(inputs) }
        reader.stackSize = 1 << 20
        reader.start()
        // Workers are joined, not waited for through a group they leave at the end of their body: a worker that
        // downloaded holds OpenSSL's per-thread state, whose destructor runs as the thread ends, and must not run
        // beside the process's exit handlers (OpenSSL's own cleanup among them) once the summary is printed
        // (`JoinableThread`). As many start as the system's limit on threads allows (none is a crash: the list could
        // not be worked through). The reader is not joined: after a stop it may still wait for a line of a list that
        // never ends (standard input).
        let workers = (0..<max(1, options.jobs)).compactMap { _ in JoinableThread(stackSize: 8 << 20) { [self] in work() } }
        guard !workers.isEmpty else { fatalError("cannot start a thread for the batch's workers") }
        workers.forEach { $0.join() }
        pipeline.settleCache()
        return order.withLock { order in
            if let written = webDataset?.finish() { events(.tarWritten(written)) }
            reportTarFailures(order: &order)
            var progress = order.progress
            progress.elapsed = Date().timeIntervalSince(started)
            return BatchSummary(progress: progress, written: order.written, signal: cancellation?.signal ?? 0,
                                stoppedEarly: stoppedByFailure.load(ordering: .relaxed), listFailure: order.listFailure,
                                outputFolderFull: folderOutOfSpace, tarFailure: webDataset?.failure)
        }
    }

    /// Stops starting items; with a signal, also cancels transfers in flight (through the cancellation token).
    /// Items already finished are still named and written. Safe to call from any thread, more than once.
    public func stop(signal: Int32? = nil) {
        // Stopping first: a worker whose line is cut short by the cancellation must find it set, and start no other.
        stopping.store(true, ordering: .sequentiallyConsistent)
        if let signal { cancellation?.cancel(signal: signal) }
        queue.close()
    }

    // MARK: reading

    private func readList(_ inputs: [BatchInput]) {
        let reader = options.listLayout.rowSource(for: inputs)
        var maker = BatchItemMaker(options: options, requests: requests, pipeline: pipeline, judge: judge)
        var sequence = 0
        while !stopping.load(ordering: .relaxed), let line = reader.nextRow() {
            guard let item = maker.item(for: line, sequence: sequence) else { continue }
            if let key = item.originalKey { announcements.expect(key, count: uses(by: item)) }
            guard queue.push(item) else {
                finishUses(by: item)
                break
            }
            sequence += 1
        }
        let total = sequence
        let complete = !stopping.load(ordering: .relaxed)
        order.withLock { order in
            if complete { order.progress.total = total }
            order.listFailure = reader.failure
        }
        queue.close()
    }

    // MARK: working

    private func work() {
        while var item = queue.pop() {
            // Outputs recorded as done whose bytes are still to be read (`--verify-outputs`): done again unless theirs.
            if item.carried != nil, !item.verifying.isEmpty, let mismatch = judge?.verify(item.verifying) {
                (item.carried, item.redone) = (nil, mismatch)
            }
            var report: BatchItemReport
            if let carried = item.carried {
                report = BatchItemReport(item: item, outputs: [])
                report.carried = carried
            } else if stopping.load(ordering: .relaxed) {
                // Read ahead, never started: no record, not counted (`--resume` and `--retry-failed` run it).
                report = BatchItemReport(item: item, outputs: [], skipped: true, notStarted: true)
            } else {
                report = process(item)
            }
            finishUses(by: item)
            finish(report)
        }
    }

    private func process(_ item: BatchItem) -> BatchItemReport {
        let source: ImageSource
        switch item.source {
        case .failure(let error):
            return BatchItemReport(item: item, outputs: requests.positions.map {
                BatchOutput(variant: $0?.name, result: .failure(error), milliseconds: 0)
            })
        case .success(let value):
            source = value
        }
        if let report = maker.robotsReport(item, source: source) {
            // A robots.txt transfer cut short by a signal: the line is not done.
            if cancellation?.isCancelled == true, report.failed { return BatchItemReport(item: item, outputs: [], skipped: true) }
            return report
        }
        let outputs = maker.outputs(of: source, item: item)
        if folderOutOfSpace != nil, outputs.contains(where: { if case .failure = $0.result { true } else { false } }) {
            return notDoneForLackOfSpace(item, outputs)
        }
        if let declined = maker.declined(item, outputs: outputs, source: source) { return declined }
        // Cut short by a signal: neither a success nor a failure, and nothing of it is written.
        if cancellation?.isCancelled == true, outputs.contains(where: { if case .failure = $0.result { true } else { false } }) {
            for case let staged? in outputs.map(\.staged) { staged.discard() }
            return BatchItemReport(item: item, outputs: [], skipped: true)
        }
        return BatchItemReport(item: item, outputs: outputs)
    }

    // MARK: retiring in input order

    private func finish(_ report: BatchItemReport) {
        // --fail-fast: no line starts once one has failed, though lines before it are still being made.
        if options.failFast, report.failed { stopAfterFailure() }
        var stopForFailure = false, stopForTar = false
        order.withLock { order in
            order.pending[report.item.sequence] = report
            while let next = order.pending.removeValue(forKey: order.next) {
                let retired = next.notStarted ? next : retire(next, order: &order)
                if retired.failed { stopForFailure = options.failFast }
                if !retired.notStarted { events(.item(retired)) }
                if let written = webDataset?.completeIfFull() { events(.tarWritten(written)) }
                reportTarFailures(order: &order)
                if webDataset?.failure != nil { stopForTar = true }
                order.next += 1
                queue.releaseSlot()
            }
            order.progress.elapsed = Date().timeIntervalSince(started)
            events(.progress(order.progress))
        }
        if stopForFailure { stopAfterFailure() } // a failure found as it was retired: its sample not written
        if stopForTar { stop() }
    }

    private func stopAfterFailure() {
        if !stopping.load(ordering: .relaxed) { stoppedByFailure.store(true, ordering: .relaxed); stop() }
    }

    /// Reports the tars given up since last asked: the lines whose samples they held are not done after all.
    private func reportTarFailures(order: inout BatchRetirement) {
        for failure in webDataset?.takeFailures() ?? [] {
            order.written -= failure.samplesLost
            order.progress.countNotDone(failure.lost)
            events(.tarFailed(failure))
        }
    }

    /// Names and commits the item's staged outputs and counts it.
    private func retire(_ report: BatchItemReport, order: inout BatchRetirement) -> BatchItemReport {
        var report = report
        if let distance = options.duplicateDistance {
            order.duplicates.mark(&report, within: distance, skipping: options.skipDuplicates)
        }
        if let webDataset {
            order.written += webDataset.retire(&report)
            reportTarFailures(order: &order)
            if folderOutOfSpace != nil, report.failed { report = notDoneForLackOfSpace(report.item, report.outputs) }
        } else if let directory = options.outputDirectory, case .success(let folder)? = outputFolder {
            for index in report.outputs.indices {
                guard let staged = report.outputs[index].staged, case .success(let response) = report.outputs[index].result
                else { continue }
                report.outputs[index].staged = nil
                if report.outputs[index].skippedAsDuplicate {
                    staged.discard()
                    continue
                }
                let format = response.image.format ?? ImageFormat.sniff(response.image.bytes.prefix(64))
                do throws(ImgError) {
                    let name = try report.item.outputNames[index].name(ext: format?.fileExtension ?? "bin")
                    guard NameTemplate.isSafeFileName(name) else {
                        throw .usage("output name '\(name)' is not a plain file name inside the output directory")
                    }
                    let path = "\(directory)/\(name)"
                    try folder.commit(staged, as: name, shownAs: path)
                    report.outputs[index].path = path
                    order.written += 1
                } catch {
                    staged.discard()
                    report.outputs[index].result = .failure(error)
                }
            }
            if folderOutOfSpace != nil, report.failed { report = notDoneForLackOfSpace(report.item, report.outputs) }
        }
        if let mismatch = report.item.redone, report.carried == nil { order.progress.redone[mismatch, default: 0] += 1 }
        if report.carried != nil {
            order.progress.countDoneEarlier(keptInTar: report.item.keptInTar)
        } else if report.skipped {
            order.progress.skipped += 1
        } else {
            order.progress.done += 1
            if report.filtered != nil { order.progress.filtered += 1 }
            switch report.refusal {
            case .robotsTag?: order.progress.optedOut += 1
            case .robotsTxt?: order.progress.countRobotsDisallowed(transient: report.refusedTransiently)
            case nil: break
            }
            if report.failed { order.progress.failed += 1 }
            if report.failed, !report.failedTransiently { order.progress.failedPermanently += 1 }
        }
        return report
    }
}

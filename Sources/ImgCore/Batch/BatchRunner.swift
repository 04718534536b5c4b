import Dispatch
import Foundation
import Synchronization

/// Runs a batch: a reader thread streams the list into a bounded queue, `jobs` worker threads take items from it and
/// ask the shared `ImagePipeline` for every variant (equal originals in flight share one transfer, equal variants one
/// rendering; transfers per host and renderings at once are bounded by the pipeline's configuration), and each
/// finished item is retired strictly in input order: its outputs are renamed into place under the names its line
/// claimed when it was read (`BatchOutputNamer`: from the list alone), and the caller hears about it. Workers are threads, not Swift tasks, because
/// libcurl and libvips calls block.
public final class BatchRunner: Sendable {
    private struct Order {
        var pending: [Int: BatchItemReport] = [:]
        var next = 0
        var progress = BatchProgress()
        var written = 0
        var listFailure: ImgError?
        /// Per variant, the perceptual hashes of the outputs retired so far with their lines' inputs (`--facts`
        /// duplicates).
        var seenHashes: [Int: [(hash: UInt64, input: String)]] = [:]
    }

    private let pipeline: ImagePipeline
    private let template: ImageRequest
    private let options: BatchOptions
    private let cancellation: Cancellation?
    private let events: @Sendable (BatchEvent) -> Void
    private let queue: BoundedQueue<BatchItem>
    private let stopping = Atomic<Bool>(false)
    private let stoppedByFailure = Atomic<Bool>(false)
    private let order = Locked(Order())
    private let started = Date()
    /// Prefetch of originals only: no processing options and no variants.
    private let originalsOnly: Bool
    /// `-O DIR`, opened once (names resolved relative to it), or why it could not be.
    private let outputFolder: Result<OutputFolder, ImgError>?
    /// The pipeline's memory policy, when it is a batch's: told of every line's uses of its original.
    private let announcements: BatchMemoryPolicy?

    /// `template` carries the shared processing, encoding and decoding options (its source is replaced per item).
    /// `cancellation` should be the one in the pipeline's network options, so that `stop(signal:)` aborts transfers.
    public init(pipeline: ImagePipeline, template: ImageRequest, options: BatchOptions, cancellation: Cancellation?,
                events: @escaping @Sendable (BatchEvent) -> Void) {
        self.pipeline = pipeline
        self.template = template
        self.options = options
        self.cancellation = cancellation
        self.events = events
        queue = BoundedQueue(capacity: options.window)
        originalsOnly = options.outputDirectory == nil && options.variants.isEmpty && template.chain.isEmpty
        outputFolder = options.outputDirectory.map { directory in
            options.outputFolder.map { .success($0) } ?? Result { () throws(ImgError) in try OutputFolder(opening: directory) }
        }
        // Lines are announced as they are read: memory keeps an original only until its last announced use.
        let announcements = pipeline.configuration.memoryPolicy as? BatchMemoryPolicy
        self.announcements = announcements
        // The disk cache is kept within its size limit as the batch writes, sparing the originals of pending uses.
        pipeline.keepCacheWithinLimit { announcements?.pendingKeys() ?? [] }
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

    /// Outputs per item: one per variant, or one.
    private var outputsPerItem: Int { max(1, options.variants.count) }

    /// Ends an item's announced uses of its original; after the last, the original leaves memory.
    private func finishUses(ofOriginal key: String) {
        if announcements?.finish(key, count: outputsPerItem) == true { pipeline.forgetOriginal(key) }
    }

    /// Runs the batch to its end (or until stopped) and returns the summary. Blocks the calling thread.
    public func run(_ inputs: [BatchInput]) -> BatchSummary {
        let reader = Thread { [self] in readList(inputs) }
        reader.stackSize = 1 << 20
        reader.start()
        let workers = DispatchGroup()
        for _ in 0..<max(1, options.jobs) {
            workers.enter()
            let thread = Thread { [self] in
                work()
                workers.leave()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        workers.wait()
        pipeline.settleCache()
        return order.withLock { order in
            var progress = order.progress
            progress.elapsed = Date().timeIntervalSince(started)
            return BatchSummary(progress: progress, written: order.written, signal: cancellation?.signal ?? 0,
                                stoppedEarly: stoppedByFailure.load(ordering: .relaxed), listFailure: order.listFailure,
                                outputFolderFull: folderOutOfSpace)
        }
    }

    /// Stops starting items; with a signal, also cancels transfers in flight (through the cancellation token).
    /// Items already finished are still named and written. Safe to call from any thread, more than once.
    public func stop(signal: Int32? = nil) {
        if let signal { cancellation?.cancel(signal: signal) }
        stopping.store(true, ordering: .sequentiallyConsistent)
        queue.close()
    }

    // MARK: reading

    private func readList(_ inputs: [BatchInput]) {
        let reader = ListRowReader(inputs, layout: options.listLayout)
        var namer = options.outputDirectory == nil ? nil : BatchOutputNamer(template: options.effectiveTemplate)
        var sequence = 0
        while !stopping.load(ordering: .relaxed), let line = reader.nextRow() {
            // The first column, parsed once: the line's source when the line is usable, and what its names come from.
            let parsed = Result { () throws(ImgError) -> ImageSource in try ImageSource(parsing: line.first) }
            let source = Result { () throws(ImgError) -> ImageSource in
                if line.tooLong { throw .usage("line \(line.line) is over \(BatchListReader.maxLineBytes) bytes") }
                if let failure = line.failure { throw failure }  // named by its line
                if line.extra { throw .usage("expected 'URL [NAME]', found more columns") }  // named by its line
                let source = try parsed.get()
                if source == .standardInput { throw .usage("'-' (standard input) can't be an item of a list") }
                if options.denyLocal, !source.isRemote { throw .usage("refusing local input (--deny-local)") }
                // A bad second column fails the line (its name is claimed from the URL meanwhile).
                if let column = line.second { _ = try NameTemplate.stem(fromColumn: column) }
                if let column = line.second, let format = NameTemplate.format(ofColumn: column),
                   let asked = template.encoding.format, asked != format {
                    throw .usage("the name '\(column)' says \(format.rawValue) but --format says \(asked.rawValue)")
                }
                return source
            }
            var item = BatchItem(sequence: sequence, line: line.line, input: line.first, source: source)
            item.format = line.second.flatMap(NameTemplate.format(ofColumn:))
            if line.extra || line.failure != nil { item.malformedLine = line.raw }
            item.columns = line.columns
            // The original key, worked out once a line: its names' `{hash}`, `--shard`, memory's announced uses and
            // its fetch all take this one (a line that fails has one only for its names).
            let usable = (try? source.get()) != nil
            let key = namer != nil || usable ? (try? parsed.get()).flatMap(originalKey(of:)) : nil
            // Every line claims its names, whether it is this shard's or not and whether it will succeed or not.
            if namer != nil {
                item.outputNames = claimNames(for: item, source: try? parsed.get(), originalKey: key, column: line.second,
                                              namer: &namer!)
            }
            item.originalKey = usable ? key : nil
            if let shard = options.shard, !shard.contains(key: item.originalKey ?? item.input) { continue }
            if let previous = options.previous,
               let record = previous.decision(line: item.line, input: item.input, variants: options.variants.isEmpty ? [nil] : options.variants.map(\.name),
                                              outputsWritten: options.outputDirectory != nil,
                                              marksDuplicates: options.duplicateDistance != nil, skipsDuplicates: options.skipDuplicates) {
                item.carried = record
                item.originalKey = nil
            }
            if let key = item.originalKey { announcements?.expect(key, count: outputsPerItem) }
            guard queue.push(item) else {
                if let key = item.originalKey { finishUses(ofOriginal: key) }
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

    /// Claims the names of the item's outputs; `{hash}` is a short hash of each output's variant key (of the line's
    /// text when it has no key). `parsed` is the line's first column parsed (nil when it does not parse), `originalKey`
    /// its original key.
    private func claimNames(for item: BatchItem, source parsed: ImageSource?, originalKey: String?, column: String?,
                            namer: inout BatchOutputNamer) -> [ClaimedOutputName] {
        let variants: [BatchVariant?] = options.variants.isEmpty ? [nil] : options.variants
        let stem = BatchOutputNamer.stem(input: item.input, column: column, source: parsed)
        return namer.claim(stem: stem.text, shortenable: !stem.fromList, variants: variants.map { $0?.name ?? "original" },
                           index: item.line) { position in
            var key: String?
            if let parsed, let originalKey {
                let request = request(for: parsed, variant: variants[position], format: item.format)
                key = CacheKey.variant(original: originalKey, variantIdentifier: request.variantIdentifier)
            }
            return String(Digest.sha256(key ?? item.input).prefix(12))
        }
    }

    /// The request for one output: the shared options with the item's source and, for a variant, its chain after them.
    /// `format` is the one the line's second column names, if any.
    private func request(for source: ImageSource, variant: BatchVariant?, format: ImageFormat? = nil) -> ImageRequest {
        var request = template
        request.source = source
        if let format { request.encoding.format = format }
        if let variant {
            request.chain = template.chain |> variant.chain
            // Variants of this input that load it alike load it once (with the bytes each gets alone).
            request.decodedTogetherWith = options.variants.map { template.chain |> $0.chain }
        }
        return request
    }

    /// The original key of a line's source, nil when it has none or it can't be made (then the fetch makes it again,
    /// and fails as it would): what `--shard` hashes (the line's text when there is none), what the memory cache
    /// keeps the original under, and what the pipeline is given for the line's every output.
    private func originalKey(of source: ImageSource) -> String? {
        (try? pipeline.originalKey(for: request(for: source, variant: nil))) ?? nil
    }

    // MARK: working

    private func work() {
        while let item = queue.pop() {
            var report: BatchItemReport
            if let carried = item.carried {
                report = BatchItemReport(item: item, outputs: [], skipped: carried.status == "skipped")
                report.carried = carried
            } else {
                report = stopping.load(ordering: .relaxed) ? BatchItemReport(item: item, outputs: [], skipped: true) : process(item)
            }
            if let key = item.originalKey { finishUses(ofOriginal: key) }
            finish(report)
        }
    }

    private func process(_ item: BatchItem) -> BatchItemReport {
        let variants: [BatchVariant?] = options.variants.isEmpty ? [nil] : options.variants
        let source: ImageSource
        switch item.source {
        case .failure(let error):
            return BatchItemReport(item: item, outputs: variants.map {
                BatchOutput(variant: $0?.name, result: .failure(error), milliseconds: 0)
            })
        case .success(let value):
            source = value
        }
        var outputs: [BatchOutput] = []
        var sharedFailure: ImgError?
        for variant in variants {
            outputs.append(produce(source: source, originalKey: item.originalKey, variant: variant, format: item.format,
                                   sharedFailure: &sharedFailure))
        }
        if folderOutOfSpace != nil, outputs.contains(where: { if case .failure = $0.result { true } else { false } }) {
            return notDoneForLackOfSpace(item, outputs)
        }
        if options.sizeFilter.isActive, let filtered = filter(outputs, source: source, originalKey: item.originalKey) {
            for case let staged? in outputs.map(\.staged) { staged.discard() }
            var report = BatchItemReport(item: item, outputs: [])
            report.filtered = filtered
            return report
        }
        // Cut short by a signal: neither a success nor a failure, and nothing of it is written.
        if cancellation?.isCancelled == true, outputs.contains(where: { if case .failure = $0.result { true } else { false } }) {
            for case let staged? in outputs.map(\.staged) { staged.discard() }
            return BatchItemReport(item: item, outputs: [], skipped: true)
        }
        return BatchItemReport(item: item, outputs: outputs)
    }

    /// One output of one item, whose original key is `originalKey` (worked out when its line was read; nil: the
    /// pipeline makes it). A failure of the original (network, HTTP status, not cached) is shared by the remaining
    /// variants instead of being tried again.
    private func produce(source: ImageSource, originalKey: String?, variant: BatchVariant?, format: ImageFormat?,
                         sharedFailure: inout ImgError?) -> BatchOutput {
        let start = Date()
        var output = BatchOutput(variant: variant?.name, result: .failure(.internalFailure("not run")), milliseconds: 0)
        if let sharedFailure {
            output.result = .failure(sharedFailure)
            return output
        }
        let request = request(for: source, variant: variant, format: format)
        do throws(ImgError) {
            let response = switch (originalsOnly, originalKey) {
            case (true, let key?): try pipeline.prefetchOriginal(for: request, originalKey: key)
            case (true, nil): try pipeline.prefetchOriginal(for: request)
            case (false, let key?): try pipeline.image(for: request, originalKey: key)
            case (false, nil): try pipeline.image(for: request)
            }
            if let outputFolder { output.staged = try outputFolder.get().stage(response.data.bytes) }
            output.result = .success(response)
        } catch {
            output.result = .failure(error)
            switch error {
            case .network, .http, .notCached: sharedFailure = error
            case .overLimit(let limit, _) where limit.isTransferLimit: sharedFailure = error
            default: break
            }
        }
        output.milliseconds = Int(Date().timeIntervalSince(start) * 1000)
        return output
    }

    /// The filtering of a line whose outputs all succeeded, by its original's size: from a rendering, else from the
    /// original (cached by now: no request). An original of unknown size passes.
    private func filter(_ outputs: [BatchOutput], source: ImageSource, originalKey: String?) -> FilteredOriginal? {
        var size: (width: Int, height: Int)?
        for case .success(let response) in outputs.map(\.result) {
            size = size ?? response.data.sourceSize
        }
        guard outputs.allSatisfy({ if case .success = $0.result { true } else { false } }) else { return nil }
        if size == nil, let original = try? pipeline.prefetchOriginal(for: request(for: source, variant: nil), originalKey: originalKey),
           let width = original.data.width, let height = original.data.height {
            size = (width, height)
        }
        guard let size, let reason = options.sizeFilter.refusal(width: size.width, height: size.height) else { return nil }
        return FilteredOriginal(reason: reason, width: size.width, height: size.height)
    }

    // MARK: retiring in input order

    private func finish(_ report: BatchItemReport) {
        var stopForFailure = false
        order.withLock { order in
            order.pending[report.item.sequence] = report
            while let next = order.pending.removeValue(forKey: order.next) {
                let retired = retire(next, order: &order)
                if retired.failed { stopForFailure = options.failFast }
                events(.item(retired))
                order.next += 1
                queue.releaseSlot()
            }
            order.progress.elapsed = Date().timeIntervalSince(started)
            events(.progress(order.progress))
        }
        if stopForFailure, !stopping.load(ordering: .relaxed) {
            stoppedByFailure.store(true, ordering: .relaxed)
            stop()
        }
    }

    /// Names and commits the item's staged outputs and counts it.
    private func retire(_ report: BatchItemReport, order: inout Order) -> BatchItemReport {
        var report = report
        if let distance = options.duplicateDistance { markDuplicates(&report, within: distance, order: &order) }
        if let directory = options.outputDirectory, case .success(let folder)? = outputFolder {
            for index in report.outputs.indices {
                guard let staged = report.outputs[index].staged, case .success(let response) = report.outputs[index].result
                else { continue }
                report.outputs[index].staged = nil
                if report.outputs[index].skippedAsDuplicate {
                    staged.discard()
                    continue
                }
                let format = response.data.format ?? ImageFormat.sniff(response.data.bytes.prefix(64))
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
        if report.carried?.status == "ok" {
            order.progress.doneEarlier += 1
        } else if report.skipped {
            order.progress.skipped += 1
        } else {
            order.progress.done += 1
            if report.filtered != nil { order.progress.filtered += 1 }
            if report.failed { order.progress.failed += 1 }
            if report.failed, !report.failedTransiently { order.progress.failedPermanently += 1 }
        }
        return report
    }

    /// Marks each output whose phash is within `distance` bits of an earlier line's output of the same variant
    /// (in input order: the first such line), and remembers the others' hashes for the lines after.
    private func markDuplicates(_ report: inout BatchItemReport, within distance: Int, order: inout Order) {
        if let carried = report.carried {
            // A line done earlier (--resume) is still what later lines are compared with, unless a duplicate itself.
            for (index, output) in (carried.outputs ?? []).enumerated() where output.duplicateOf == nil {
                if let hex = output.phash, let hash = UInt64(hex, radix: 16) { order.seenHashes[index, default: []].append((hash, report.item.input)) }
            }
            return
        }
        for index in report.outputs.indices {
            guard case .success(let response) = report.outputs[index].result,
                  let hex = response.data.facts?.phash, let hash = UInt64(hex, radix: 16) else { continue }
            if let earlier = order.seenHashes[index, default: []].first(where: { PerceptualHash.distance($0.hash, hash) <= distance }) {
                report.outputs[index].duplicateOf = earlier.input
                report.outputs[index].skippedAsDuplicate = options.skipDuplicates
            } else {
                order.seenHashes[index, default: []].append((hash, report.item.input))
            }
        }
    }
}

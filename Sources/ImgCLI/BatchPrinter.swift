import Foundation
import ImgCore

/// Prints batch events: errors and `-v` lines on stderr, `--json` records on stdout, a throttled progress line
/// on a terminal, and the summary. Called from one thread at a time (the runner serialises events).
final class BatchPrinter: Sendable {
    private let reporter: Reporter
    private var console: Console { reporter.console }
    private let progressLine: Bool
    /// The done/total line on a terminal.
    private let line: ProgressLine?
    private let brokenOutput = Locked<(@Sendable () -> Void)?>(nil)
    private let writeFailure = Locked<ImgError?>(nil)
    private let givenUpHosts = Locked<Set<String>>([])
    private let prefetchOnly: Bool
    /// `--output-format webdataset`: outputs are samples in tars.
    private let webDataset: Bool
    /// Tars completed so far.
    private let tars = Locked(0)

    init(settings: FetchSettings, progressLine: Bool, prefetchOnly: Bool, webDataset: Bool = false) {
        reporter = Reporter(console: settings.console, quiet: settings.quiet, verbose: settings.verbose, json: settings.json)
        self.progressLine = progressLine
        line = progressLine ? ProgressLine(on: settings.console.standardError) : nil
        self.prefetchOnly = prefetchOnly
        self.webDataset = webDataset
    }

    struct SummaryRecord: Encodable {
        var summary = true
        var status: String
        var total: Int
        var ok: Int
        var failed: Int
        var skipped: Int
        var filtered: Int?
        var optedOut: Int?
        var robotsDisallowed: Int?
        /// Of `robotsDisallowed`, lines disallowed only because their robots.txt could not be had for now (not done:
        /// exit 75, `--retry-failed` runs them); absent when none.
        var robotsDisallowedTransient: Int?
        /// Lines the `--resume` or `--retry-failed` manifest records as done (not fetched), and lines never started
        /// by a run that stopped once its list was read whole; absent when none.
        var doneEarlier: Int?
        var notReached: Int?
        var written: Int
        var ms: Int
        var signal: Int32?
        /// Lines recorded `ok` by the `--resume` manifest that were done again; absent when none was.
        var redone: Int?
    }

    /// What to do when stdout can't be written (EPIPE, a full disk): the batch stops.
    func onBrokenOutput(_ action: @escaping @Sendable () -> Void) {
        brokenOutput.withLock { $0 = action }
    }

    /// The failure to write stdout other than a closed pipe, if there was one (exit 7).
    var outputFailure: ImgError? { writeFailure.withLock { $0 } }

    /// Emits an item's record with the item's line (and list) and kept columns.
    private func emit(_ record: Reporter.Record, of item: BatchItem) {
        var record = record
        (record.line, record.columns) = (item.line, item.columns)
        (record.list, record.listLine) = (item.position?.list, item.position?.line)
        emit(record)
    }

    /// Writes one JSON line to stdout; after a failure, nothing more.
    private func emit<T: Encodable>(_ value: T) {
        guard writeFailure.withLock({ $0 }) == nil, let data = Reporter.jsonLine(value) else { return }
        do {
            try console.standardOutput.write(data)
        } catch {
            if !error.isBrokenPipe { writeFailure.withLock { $0 = $0 ?? error.error } }
            if let action = brokenOutput.withLock({ $0 }) { action() }
        }
    }

    func handle(_ event: BatchEvent) {
        switch event {
        case .item(let report):
            if progressLine { reporter.clearProgress() }
            if let mismatch = report.item.redone, report.carried == nil {
                reporter.info("\(URLCredentials.maskingPassword(in: report.item.input)): recorded ok in the earlier "
                              + "manifest, done again: \(mismatch.rawValue)")
            }
            if let carried = report.carried {
                // `done earlier, not fetched`; a line carried as it was, with what it was: `done earlier (filtered: ...)`.
                let what = carried.status == "ok" ? report.item.keptInTar.map { " (kept in its tar: \($0.rawValue))" } ?? ""
                    : " (\(carried.status.replacingOccurrences(of: "_", with: " "))\(carried.reason.map { ": \($0)" } ?? ""))"
                reporter.info("\(URLCredentials.maskingPassword(in: report.item.input)): done earlier\(what), not fetched")
                return
            }
            if let refusal = report.refusal {
                printRefusal(refusal, of: report)
                return
            }
            if let filtered = report.filtered {
                printFiltered(filtered, of: report)
                return
            }
            for output in report.outputs { print(output, of: report.item) }
        case .progress(let progress):
            line?.draw { ProgressLine.batch(progress, columns: $0) }
        case .tarWritten(let written):
            tars.withLock { $0 += 1 }
            if progressLine { reporter.clearProgress() }
            let stats = written.stats
            reporter.info("\(written.path): \(Counted.of(stats.samples, "sample", "samples")), \(stats.bytes) bytes, "
                          + String(format: "%.1fs", stats.seconds))
        case .tarFailed(let failure):
            // Every tar given up is said, as it is: the lines it counted are not done after all.
            if progressLine { reporter.clearProgress() }
            console.error(failure.error.commandLineMessage)
            if reporter.json { failure.lost.forEach { printWithdrawal(of: $0.item, reason: failure.notDoneReason(of: $0)) } }
        }
    }

    /// `--json`: a line whose record was printed before the tar that counted it was given up is printed again,
    /// `skipped` (not done) with `withdrawsOK`, as its manifest record is: a line's last record counts.
    private func printWithdrawal(of item: BatchItem, reason: String) {
        let input = URLCredentials.maskingPassword(in: item.input)
        var record = Reporter.Record(input: input, status: "skipped", ms: 0, url: input)
        record.reason = reason
        record.withdrawsOK = true
        emit(record, of: item)
    }

    /// A line filtered by its original's size: `-v` says why, `--json` has status `filtered`, the reason and the
    /// time the line took.
    private func printFiltered(_ filtered: FilteredOriginal, of report: BatchItemReport) {
        let input = URLCredentials.maskingPassword(in: report.item.input)
        reporter.info("\(input): filtered, not written: \(filtered.reason)")
        guard reporter.json else { return }
        var record = Reporter.Record(input: input, status: "filtered", width: filtered.width, height: filtered.height,
                                     ms: report.milliseconds, url: input)
        record.reason = filtered.reason
        emit(record, of: report.item)
    }

    /// A line its site refused: `-v` says why, `--json` has its status (`opted_out`, `robots_disallowed`), the reason,
    /// the directive or rule and the time the line took.
    private func printRefusal(_ refusal: SiteRefusal, of report: BatchItemReport) {
        let input = URLCredentials.maskingPassword(in: report.item.input)
        reporter.info("\(input): \(refusal.status.replacingOccurrences(of: "_", with: " ")), not written: \(refusal.reason)")
        guard reporter.json else { return }
        var record = Reporter.Record(input: input, status: refusal.status, ms: report.milliseconds, url: input)
        record.reason = refusal.reason
        record.directive = refusal.directive
        record.rule = refusal.rule
        emit(record, of: report.item)
    }

    private func print(_ output: BatchOutput, of item: BatchItem) {
        // Messages, -v and --json name the input with its password hidden; a line not of the form `URL [NAME]` is named
        // by its number in messages and given whole in --json.
        let input = item.malformedLine.map(ManifestRecord.maskingPasswords(inLine:))
            ?? URLCredentials.maskingPassword(in: item.input)
        let line = item.position.map { "line \(item.line) ('\($0.list)' line \($0.line))" } ?? "line \(item.line)"
        let label = item.malformedLine != nil ? line : output.variant.map { "\(input) (\($0))" } ?? input
        switch output.result {
        case .success(let response):
            let duplicateOf = output.duplicateOf.map { URLCredentials.maskingPassword(in: $0) }
            let shown = output.path ?? output.sample.map { "\($0.tar) (\($0.member))" }
            reporter.success(input: label, output: shown, response: response, milliseconds: output.milliseconds)
            if let duplicateOf {
                reporter.info("  duplicate of \(duplicateOf)\(output.skippedAsDuplicate ? ": not written (--skip-duplicates)" : "")")
            }
            if reporter.json {
                var record = Reporter.Record.ok(input: input, output: output.path ?? output.sample?.tar, response: response,
                                                milliseconds: output.milliseconds, url: input, variant: output.variant)
                record.member = output.sample?.member
                record.duplicateOf = duplicateOf
                if output.skippedAsDuplicate { record.skipped = "duplicate" }
                emit(record, of: item)
            }
        case .failure(let error):
            // A host given up has one message, not one per line.
            if !error.isHostGivenUp || givenUpHosts.withLock({ $0.insert(error.message).inserted }) {
                // With several lists, a failure names its list and line there too.
                let named = item.malformedLine == nil && item.position != nil ? "\(label), \(line)" : label
                if error.isHostGivenUp { console.error(error.message) } else { reporter.failure(input: named, error: error) }
            }
            if reporter.json {
                emit(Reporter.Record.failed(input: input, error: error, milliseconds: output.milliseconds,
                                            url: item.malformedLine == nil ? input : nil, variant: output.variant), of: item)
            }
        }
    }

    func finish(_ summary: BatchSummary) {
        if progressLine { reporter.clearProgress() }
        let progress = summary.progress
        let failed = summary.endedInError
        let status = summary.signal != 0 ? "interrupted" : (failed ? "error" : "ok")
        if reporter.json {
            emit(SummaryRecord(status: status, total: progress.done + progress.skipped, ok: summary.succeeded,
                                        failed: progress.failed, skipped: progress.skipped,
                               filtered: progress.filtered > 0 ? progress.filtered : nil,
                               optedOut: progress.optedOut > 0 ? progress.optedOut : nil,
                               robotsDisallowed: progress.robotsDisallowed > 0 ? progress.robotsDisallowed : nil,
                               robotsDisallowedTransient: progress.robotsDisallowedTransient > 0
                                   ? progress.robotsDisallowedTransient : nil,
                               doneEarlier: progress.doneEarlier > 0 ? progress.doneEarlier : nil,
                               notReached: progress.notReached.flatMap { $0 > 0 ? $0 : nil },
                               written: summary.written,
                                        ms: Int(progress.elapsed * 1000), signal: summary.signal == 0 ? nil : summary.signal,
                                        redone: progress.redone.isEmpty ? nil : progress.redoneCount))
            return
        }
        if reporter.quiet && summary.signal == 0 { return }
        var line = "\(summary.succeeded) ok, \(progress.failed) failed"
        // Not done: started and not finished; not reached: never started, told only once the list was read whole.
        if progress.skipped > 0 || summary.stoppedEarly || summary.signal != 0 { line += ", \(progress.skipped) not done" }
        if let notReached = progress.notReached, notReached > 0 { line += ", \(notReached) not reached" }
        if progress.filtered > 0 { line += ", \(progress.filtered) filtered" }
        if progress.optedOut > 0 { line += ", \(progress.optedOut) opted out" }
        if progress.robotsDisallowed > 0 { line += ", \(progress.robotsDisallowed) disallowed by robots.txt" }
        if progress.robotsDisallowedTransient > 0 {
            line += " (\(progress.robotsDisallowedTransient) only because robots.txt could not be fetched: try again later)"
        }
        if progress.doneEarlier > 0 { line += ", \(progress.doneEarlier) done earlier" }
        if !progress.keptInTars.isEmpty {
            let kept = progress.keptInTars.values.reduce(0, +)
            line += " (\(kept) kept in their tars, whose samples are not replaced: \(Self.reasons(progress.keptInTars)))"
        }
        if !progress.redone.isEmpty { line += ", \(progress.redoneCount) done again (\(Self.reasons(progress.redone)))" }
        if prefetchOnly {
            line += ", no file written (prefetch fills the cache only) in "
        } else if webDataset {
            let tars = tars.withLock { $0 }
            line += ", \(Counted.of(summary.written, "sample", "samples")) written into \(Counted.of(tars, "tar", "tars")) in "
        } else {
            line += ", \(Counted.of(summary.written, "file", "files")) written in "
        }
        line += String(format: "%.1fs (%.1f/s)", progress.elapsed, progress.rate)
        if summary.signal != 0 { line += "; interrupted by \(Interruption.signalName(summary.signal))" }
        if summary.stoppedEarly { line += "; stopped after the first failure (--fail-fast)" }
        console.error(line)
    }

    /// `1 made with other options, 2 output size differs`: the counts of each reason, in the order they are declared.
    static func reasons(_ counts: [ResumeMismatch: Int]) -> String {
        ResumeMismatch.allCases.compactMap { reason in counts[reason].map { "\($0) \(reason.rawValue)" } }
            .joined(separator: ", ")
    }
}

import Foundation
import ImgCore

/// `--manifest FILE`, `--resume FILE` and `--retry-failed FILE` of one batch: `{shard}` in each name becomes
/// `K-of-N`; a manifest that is also the file resumed from is appended to (its last record of a line counts).
struct BatchRecords: Sendable {
    var writer: ManifestWriter?
    var previous: PreviousManifest?
    /// Whether `writer` appends to the manifest `previous` was read from (found once, when it is opened).
    var appendsToPrevious = false

    /// Reads the earlier manifest, gives it to `check` (which may refuse the run), and opens the new one; call once
    /// everything else has been checked. A manifest that is one of `lists` (the files read) is refused: opening it
    /// would empty the list before a line is read.
    static func open(_ arguments: ScannedArguments, lists: [String], shard: Shard?, verbose: Bool, console: Console,
                     checkingPrevious check: (PreviousManifest?) throws(ImgError) -> Void = { _ in })
        throws(ImgError) -> BatchRecords {
        var records = BatchRecords()
        let resume = try arguments[Options.resume], retry = try arguments[Options.retryFailed]
        if resume != nil, retry != nil { throw .usage("--resume and --retry-failed contradict each other: give one") }
        // `-` is no standard stream here (records on standard output are --json's): refused, not a file named `-`.
        for (option, value) in [("--manifest", try arguments[Options.manifest]), ("--resume", resume), ("--retry-failed", retry)]
        where value == "-" {
            throw .usage("\(option) - names a file, not standard output (records on stdout: --json); for a file named '-', give ./-")
        }
        let reporter = Reporter(console: console, verbose: verbose)
        if let template = resume ?? retry {
            let path = ManifestWriter.expand(template, shard: shard)
            let exists = FileManager.default.fileExists(atPath: path)
            if retry != nil, !exists {
                throw .usage("cannot read --retry-failed '\(path)': \(String(cString: strerror(ENOENT)))")
            }
            let option = resume != nil ? "--resume" : "--retry-failed"
            let previous: PreviousManifest
            do throws(ImgError) {
                previous = try PreviousManifest(path: path, mode: resume != nil ? .resume : .retryFailed)
            } catch {
                throw .usage("cannot read \(option) '\(path)': \(error.message)")
            }
            reporter.info("\(option) \(path): \(previous.count) lines recorded"
                          + (exists ? "" : " (no such file yet: every line runs)"))
            records.previous = previous
        }
        try check(records.previous)
        if let template = try arguments[Options.manifest] {
            let path = ManifestWriter.expand(template, shard: shard)
            if let list = lists.first(where: { ManifestWriter.sameFile($0, path) }) {
                throw .usage("--manifest '\(path)' is the list '\(list)': writing it would destroy the list")
            }
            records.appendsToPrevious = records.previous.map { ManifestWriter.sameFile($0.path, path) } ?? false
            records.writer = try ManifestWriter(path: path, appending: records.appendsToPrevious)
            if records.appendsToPrevious { reporter.info("--manifest \(path): appending to the manifest resumed from") }
        }
        return records
    }

    /// Records a retired item, its failure worded as stderr words it. A line carried from the manifest being appended
    /// to is already in it. The lines whose samples were in a tar that could not be written, recorded `ok` before, are
    /// recorded again, `skipped` (not done): a line's last record counts, and `--resume` does them again.
    func record(_ event: BatchEvent) {
        guard let writer else { return }
        switch event {
        case .item(let report):
            if report.carried != nil, appendsToPrevious { return }
            writer.write(ManifestRecord(report: report, wording: \.commandLineMessage))
        case .tarFailed(let failure):
            failure.notDoneRecords.forEach(writer.write)
        default: return
        }
    }

    /// The manifest's last line.
    func finish(_ summary: BatchSummary, exit: Int32, shard: Shard?) {
        guard let writer else { return }
        let progress = summary.progress
        let failed = summary.endedInError
        var record = ManifestSummary(status: summary.signal != 0 ? "interrupted" : (failed ? "error" : "ok"),
                                     ok: summary.succeeded, failed: progress.failed,
                                     failedTransient: progress.failed - progress.failedPermanently, skipped: progress.skipped,
                                     doneEarlier: progress.doneEarlier, written: summary.written, exit: exit,
                                     signal: summary.signal == 0 ? nil : summary.signal,
                                     shard: shard.map { "\($0.index)/\($0.count)" }, ms: Int(progress.elapsed * 1000))
        if let notReached = progress.notReached, notReached > 0 { record.notReached = notReached }
        if progress.filtered > 0 { record.filtered = progress.filtered }
        if progress.optedOut > 0 { record.optedOut = progress.optedOut }
        if progress.robotsDisallowed > 0 { record.robotsDisallowed = progress.robotsDisallowed }
        if progress.robotsDisallowedTransient > 0 { record.robotsDisallowedTransient = progress.robotsDisallowedTransient }
        if previous != nil { record.redone = progress.redoneCount }
        writer.write(record)
    }
}

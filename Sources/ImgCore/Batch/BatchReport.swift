import Foundation

/// What became of one output (one variant) of one item.
public struct BatchOutput: Sendable {
    /// The variant's name; nil without `--variant`.
    public var variant: String?
    public var result: Result<ImageResponse, ImgError>
    /// The file written under the output directory; nil for prefetch, failures and WebDataset samples.
    public var path: String?
    /// Where a WebDataset sample went (`BatchOptions.webDataset`); nil otherwise.
    public var sample: SamplePlacement?
    /// The key it was asked under: its variant key (`CacheKey.variant`, the one the request names, whatever entry
    /// served it), or the original key for a prefetch; nil for failures.
    public var key: String?
    /// Time spent on this output, milliseconds.
    public var milliseconds: Int
    /// The finished bytes in a temporary file, waiting for their name.
    var staged: StagedOutput?
    /// The input of the earlier line whose output this one's `phash` is within `BatchOptions.duplicateDistance`
    /// of (the first such line); nil when none is, or without it.
    public var duplicateOf: String?
    /// Marked as a duplicate with `BatchOptions.skipDuplicates`: no file was written for it.
    public var skippedAsDuplicate = false
}

/// One item, reported once all its outputs are done and named, strictly in input order.
public struct BatchItemReport: Sendable {
    public var item: BatchItem
    public var outputs: [BatchOutput]
    /// Not processed (or cut short) because the batch was stopping: neither success nor failure.
    public var skipped = false
    /// Read ahead but never started because the batch was stopping (`skipped` too): the runner retires it without a
    /// word to its caller and counts it nowhere, as a line not reached.
    public var notStarted = false
    /// The earlier run's record that settles this line (`--resume`, `--retry-failed`): nothing was done now.
    public var carried: ManifestRecord?
    /// Its original's size is outside `BatchOptions.sizeFilter`: fetched, nothing written, neither ok nor failed.
    public var filtered: FilteredOriginal?
    /// Its site asked for it not to be used (`X-Robots-Tag`, robots.txt): nothing written, neither ok nor failed.
    public var refusal: SiteRefusal?
    /// Milliseconds spent on a line filtered or refused by its site (its download, its robots.txt, the check), which
    /// has no outputs to carry their own; 0 for every other line.
    public var milliseconds = 0

    /// True when some output failed (and the item wasn't skipped).
    public var failed: Bool {
        !skipped && carried == nil && outputs.contains { if case .failure = $0.result { true } else { false } }
    }

    /// The failures of its outputs.
    public var errors: [ImgError] {
        skipped ? [] : outputs.compactMap { if case .failure(let error) = $0.result { error } else { nil } }
    }

    /// True when it failed and every failure may succeed later (`ImgError.isTransient`).
    public var failedTransiently: Bool {
        failed && errors.allSatisfy(\.isTransient)
    }

    /// True when its site's refusal holds for this run only (`SiteRefusal.isTransient`: its robots.txt could not be
    /// had for a reason that may pass): not a failure, but not done either.
    public var refusedTransiently: Bool {
        !skipped && carried == nil && refusal?.isTransient == true
    }
}

/// Counts so far, for a live progress line.
public struct BatchProgress: Sendable {
    /// Items finished (ok, failed, filtered or refused by their site).
    public var done = 0
    /// Items filtered by their original's size (`BatchOptions.sizeFilter`).
    public var filtered = 0
    /// Items whose response's `X-Robots-Tag` opted them out (`ImageRequest.robotsTags`).
    public var optedOut = 0
    /// Items their host's robots.txt disallows (`BatchOptions.robotsTxt`), never requested.
    public var robotsDisallowed = 0
    /// Of `robotsDisallowed`, items disallowed only because their host's robots.txt could not be had for a reason
    /// that may pass (`BatchItemReport.refusedTransiently`): not done, to be tried again; the batch exits 75 for
    /// them unless a failure is permanent.
    public var robotsDisallowedTransient = 0
    public var failed = 0
    /// Items failed for a reason a retry cannot change (some failure not `ImgError.isTransient`).
    public var failedPermanently = 0
    /// Items started and not finished because the batch was stopping (a signal, `--fail-fast`, a full output folder):
    /// their outputs discarded. Items read ahead and never started are not counted (`notReached`).
    public var skipped = 0
    /// Lines an earlier run's manifest settled (`--resume`, `--retry-failed`: recorded `ok`, `filtered`, `opted_out`
    /// or `robots_disallowed`), not run.
    public var doneEarlier = 0
    /// Lines the earlier manifest recorded as `ok` that `--resume` did again, by why (they count in `done` too).
    public var redone: [ResumeMismatch: Int] = [:]
    /// Of `doneEarlier`, lines whose sample a WebDataset tar keeps although this run would make it otherwise, by why
    /// (`BatchItem.keptInTar`).
    public var keptInTars: [ResumeMismatch: Int] = [:]
    /// Items in the list after sharding, once the whole list has been read.
    public var total: Int?
    /// Seconds since the batch started.
    public var elapsed: Double = 0

    /// Counts a line its host's robots.txt disallows; `transient`: only for this run (`robotsDisallowedTransient`).
    mutating func countRobotsDisallowed(transient: Bool) {
        robotsDisallowed += 1
        if transient { robotsDisallowedTransient += 1 }
    }

    /// Counts a line an earlier manifest settled; `keptInTar`: why its sample, kept, would have been made otherwise.
    mutating func countDoneEarlier(keptInTar: ResumeMismatch?) {
        doneEarlier += 1
        if let keptInTar { keptInTars[keptInTar, default: 0] += 1 }
    }

    /// Lines done again, whatever the reason.
    public var redoneCount: Int { redone.values.reduce(0, +) }

    /// The items of the list not accounted for (not finished, not started), once the whole list was read; nil while
    /// it was not. At the end of a run: those never started (a stopped run's lines not reached).
    public var notReached: Int? {
        total.map { max(0, $0 - done - skipped - doneEarlier) }
    }

    /// Items finished per second.
    public var rate: Double { elapsed > 0 ? Double(done) / elapsed : 0 }
}

/// The end of a batch.
public struct BatchSummary: Sendable {
    public var progress: BatchProgress
    /// Output files written.
    public var written = 0
    /// Items whose outputs all succeeded (filtered and refused ones not counted).
    public var succeeded: Int { progress.done - progress.failed - progress.filtered - progress.optedOut - progress.robotsDisallowed }

    /// Whether the run ended in error (its summaries' `status`): a line failed or was disallowed only because its
    /// robots.txt could not be had for now (`BatchProgress.robotsDisallowedTransient`), it stopped at a failure, its
    /// list could not be read, its output folder filled up, or a WebDataset tar could not be written.
    public var endedInError: Bool {
        progress.failed > 0 || progress.robotsDisallowedTransient > 0 || stoppedEarly || listFailure != nil
            || outputFolderFull != nil || tarFailure != nil
    }
    /// The signal that interrupted the batch, or 0.
    public var signal: Int32 = 0
    /// Whether `--fail-fast` stopped it.
    public var stoppedEarly = false
    /// Why the list could not be read to its end (`ImgError.io`): the items before the failure were run, none after
    /// it; nil when the list was read whole (or the batch was stopped before its end).
    public var listFailure: ImgError?
    /// Why the output folder took no more outputs (`No space left on device`, `Disk quota exceeded`), when a write
    /// into it failed so: the batch stopped starting lines, and the lines not done are `skipped`. Nil otherwise.
    public var outputFolderFull: String?
    /// Why the first WebDataset tar that could not be written was not (`BatchOptions.webDataset`; each is a
    /// `BatchEvent.tarFailed`): the batch stopped starting lines, and the tar's samples so far are not kept. Nil
    /// otherwise.
    public var tarFailure: ImgError?
}

/// What a running batch tells its caller, always from one thread at a time.
public enum BatchEvent: Sendable {
    /// An item finished (called in input order).
    case item(BatchItemReport)
    /// The counts changed.
    case progress(BatchProgress)
    /// A WebDataset tar was completed and took its name (`BatchOptions.webDataset`).
    case tarWritten(WrittenTar)
    /// A WebDataset tar could not be written: the batch stops, and the lines whose samples it held, reported done
    /// before, are now counted as not done (`skipped`).
    case tarFailed(TarFailure)
}

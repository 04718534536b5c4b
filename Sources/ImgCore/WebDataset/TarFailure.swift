/// A WebDataset tar that could not be written (`BatchEvent.tarFailed`): the batch stops, and the samples written into
/// it before are not kept, nor its stats, which counted the other lines retired while it was open. All those lines,
/// reported done when they were retired, are not done after all: a `--resume` or `--retry-failed` of the run does them
/// again (and counts them in the tar they then go into).
public struct TarFailure: Sendable {
    /// A line the tar counted, done when it was retired.
    public struct LostLine: Sendable {
        public var item: BatchItem
        /// Its status as the tar's stats counted it (`ok`, `failed`, `filtered`, `duplicate`, ...).
        public var status: String
        /// Whether its failure was a permanent one (`status` `failed` only).
        public var failedPermanently: Bool
        /// Whether it was disallowed for this run only (`status` `robots_disallowed` only:
        /// `BatchItemReport.refusedTransiently`).
        public var refusedTransiently: Bool
        /// Whether its sample was in the tar (else only its count, and its table row).
        public var hadSample: Bool
    }

    /// What went wrong, saying how many samples are not kept.
    public var error: ImgError
    /// The tar, `DIR/00000.tar`.
    public var path: String
    /// The lines it counted (its samples' among them), in the order they were retired; empty when it counted none.
    public var lost: [LostLine]

    /// How many samples were lost with it.
    public var samplesLost: Int { lost.count(where: \.hadSample) }

    /// Why a `lost` line is not done, as its record says.
    public func notDoneReason(of line: LostLine) -> String {
        "not done: its \(line.hadSample ? "sample" : "record") was in \(path), which could not be written"
    }

    /// The manifest records of the `lost` lines as they are now: `skipped` (not done), saying why, withdrawing the
    /// line's earlier record of this run.
    public var notDoneRecords: [ManifestRecord] {
        lost.map { line in
            var record = ManifestRecord(report: BatchItemReport(item: line.item, outputs: [], skipped: true),
                                        wording: \.message)
            record.reason = notDoneReason(of: line)
            record.withdrawsOK = true
            return record
        }
    }
}

/// A WebDataset tar that could not be written (`BatchEvent.tarFailed`): the batch stops, and the samples written into
/// it before are not kept. Their lines, reported done when they were retired, are not done after all: a `--resume`
/// of the run does them again.
public struct TarFailure: Sendable {
    /// What went wrong, saying how many samples are not kept.
    public var error: ImgError
    /// The tar, `DIR/00000.tar`.
    public var path: String
    /// The lines whose samples were in it, in the order they were retired; empty when it held none.
    public var lost: [BatchItem]

    /// Why the `lost` lines are not done, as their records say.
    public var notDoneReason: String { "not done: its sample was in \(path), which could not be written" }

    /// The manifest records of the `lost` lines as they are now: `skipped` (not done), saying why.
    public var notDoneRecords: [ManifestRecord] {
        lost.map { item in
            var record = ManifestRecord(report: BatchItemReport(item: item, outputs: [], skipped: true), wording: \.message)
            record.reason = notDoneReason
            record.withdrawsOK = true
            return record
        }
    }
}

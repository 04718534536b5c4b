extension BatchProgress {
    /// Counts `lines`, retired done (ok) before, as not done after all (`skipped`): their samples were in a tar that
    /// could not be written (`TarFailure`). A line done again for a `--resume` mismatch is no longer counted so.
    mutating func countNotDone(_ lines: [BatchItem]) {
        done -= lines.count
        skipped += lines.count
        for mismatch in lines.compactMap(\.redone) {
            redone[mismatch, default: 0] -= 1
            if redone[mismatch] == 0 { redone[mismatch] = nil }
        }
    }
}

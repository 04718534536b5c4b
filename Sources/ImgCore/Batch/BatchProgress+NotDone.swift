extension BatchProgress {
    /// Counts `lines`, retired done before, as not done after all (`skipped`): they were counted in a tar that could
    /// not be written (`TarFailure`), and no longer count by their status. A line done again for a `--resume`
    /// mismatch is no longer counted so.
    mutating func countNotDone(_ lines: [TarFailure.LostLine]) {
        done -= lines.count
        skipped += lines.count
        for line in lines {
            switch line.status {
            case "failed":
                failed -= 1
                if line.failedPermanently { failedPermanently -= 1 }
            case "filtered": filtered -= 1
            case "opted_out": optedOut -= 1
            case "robots_disallowed":
                robotsDisallowed -= 1
                if line.refusedTransiently { robotsDisallowedTransient -= 1 }
            default: break
            }
            guard let mismatch = line.item.redone else { continue }
            redone[mismatch, default: 0] -= 1
            if redone[mismatch] == 0 { redone[mismatch] = nil }
        }
    }
}

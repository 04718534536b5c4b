import ImgCore

/// `--output-format` and `--samples-per-shard`: whether a batch writes WebDataset tar shards, and how.
enum DatasetSettings {
    /// Whether `--output-format webdataset` is given.
    static func isWebDataset(_ arguments: ScannedArguments) throws(ImgError) -> Bool {
        try arguments[Options.outputFormat] == .webDataset
    }

    /// The layout of the shards for `shard`, nil for files; the options that don't go with it are usage errors.
    static func layout(_ arguments: ScannedArguments, shard: Shard?, keptColumns: [String]) throws(ImgError) -> WebDatasetLayout? {
        let samples = try arguments[Options.samplesPerShard]
        guard try isWebDataset(arguments) else {
            let given = [Options.samplesPerShard.definition, Options.captionColumn.definition, Options.parquet.definition]
                .first { arguments.has($0.long) }
            if let given {
                throw .usage("--\(given.long) applies with --output-format webdataset")
            }
            return nil
        }
        let unfit = [Options.variant.definition, Options.name.definition, Options.nameColumn.definition,
                     Options.verifyOutputs.definition]
        if let given = unfit.first(where: { arguments.has($0.long) }) {
            throw .usage("--\(given.long) doesn't apply with --output-format webdataset: a sample is one image "
                         + "named by its line's key")
        }
        if let clash = keptColumns.first(where: WebDatasetLayout.sampleFields.contains) {
            throw .usage("--keep-columns \(clash): a sample's JSON has a field of that name (--output-format webdataset)")
        }
        var layout = WebDatasetLayout(samplesPerShard: samples ?? Options.samplesPerShard.defaultValue!, shard: shard)
        layout.writesParquet = Options.parquet.isSet(in: arguments)
        if layout.writesParquet, let clash = keptColumns.first(where: SampleTableShape.ownFields.contains) {
            throw .usage("--keep-columns \(clash): a --parquet table has a column of that name")
        }
        // The table's `caption` is what KEY.txt holds: another column kept as `caption` would take its place.
        if layout.writesParquet, keptColumns.contains("caption"), let captionColumn = try arguments[Options.captionColumn],
           captionColumn != "caption" {
            throw .usage("--keep-columns caption: a --parquet table's caption column holds the --caption-column "
                         + "\(captionColumn) text")
        }
        layout.failureWording = { $0.commandLineMessage }
        return layout
    }

    /// Locks the names of `layout`'s tars in `folder` for the run (`TarNameLock`): refused (exit 2) while another run
    /// holds them, one writing tars of those names there now, whose complete tars this one would take for its own.
    static func lockTarNames(of layout: WebDatasetLayout, in folder: OutputFolder) throws(ImgError) -> TarNameLock {
        do throws(TarNameLock.Refusal) {
            return try TarNameLock(layout: layout, folder: folder)
        } catch {
            switch error {
            case .held(let lockFile):
                let tars = layout.prefix + "NNNNN.tar"
                throw .usage("another batch is writing WebDataset tars \(tars) into \(folder.path) now (it holds \(lockFile)): "
                             + "wait for it to end, or give another -O DIR" + (layout.prefix.isEmpty ? "" : " or --shard"))
            case .unavailable(let lockFile, let reason):
                throw .io("cannot lock \(lockFile): \(reason)")
            }
        }
    }

    /// Refuses an output folder that holds tars of another layout (without a shard, or of another shard count:
    /// `WebDatasetLayout.tarsOfOtherLayouts`), this layout's tars not of the size their stats record, or this
    /// layout's tars unless the run resumes or retries from a manifest (`previous`) that records every one holding
    /// samples: a fresh run's samples would be mixed with an
    /// earlier run's, and a run resumed from a manifest that does not record a tar's samples would write them again.
    static func checkFolder(_ folder: OutputFolder, layout: WebDatasetLayout, previous: PreviousManifest?) throws(ImgError) {
        let others = layout.tarsOfOtherLayouts(in: folder)
        if let first = others.first {
            let made = first.shard.map { "with --shard \($0)" } ?? "without --shard"
            let this = layout.shardCount.map { "--shard K/\($0)" } ?? "no --shard"
            throw .usage("\(shown(others.map(\.name), in: folder)) was written \(made): a run with \(this) would write its "
                         + "samples again under other names; give the options that wrote it, or another folder")
        }
        guard let previous else {
            let existing = layout.existingTars(in: folder)
            guard let first = existing.keys.min().flatMap({ existing[$0] }) else { return }
            throw .usage("\(folder.path) already holds WebDataset tars (\(first)\(existing.count > 1 ? ", ..." : "")): "
                         + "give --resume MANIFEST to add to them, or another folder")
        }
        let tars = layout.tarsAgainst(previous, in: folder)
        if !tars.unlikeTheirStats.isEmpty {
            throw .usage("\(shown(tars.unlikeTheirStats, in: folder)) is not the size its stats record: it was cut short or "
                         + "changed since it was written; remove it and its _stats.json to do its samples again")
        }
        guard !tars.notRecorded.isEmpty else { return }
        let option = previous.mode == .resume ? "--resume" : "--retry-failed"
        throw .usage("\(shown(tars.notRecorded, in: folder)) holds samples that \(option) '\(previous.path)' does not record, "
                     + "which this run would write again: give the manifest of the run that wrote them, or another folder")
    }

    /// `DIR/00003.tar (and 2 more)`: the first of `tars` (not empty) in `folder`, and how many others.
    private static func shown(_ tars: [String], in folder: OutputFolder) -> String {
        "\(folder.path)/\(tars[0])" + (tars.count > 1 ? " (and \(tars.count - 1) more)" : "")
    }
}

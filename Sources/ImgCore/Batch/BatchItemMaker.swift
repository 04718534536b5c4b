/// Turns the lines of a batch's list into items, on the reader thread, in input order: parses each line's first
/// column once, checks its columns, claims its output names (every line does, whichever shard takes it and whether it
/// will succeed or not), works out its original key, keeps only this shard's lines and, with `--resume` or
/// `--retry-failed`, settles the lines the earlier manifest says are done.
struct BatchItemMaker {
    /// A row as `ListRowReader.nextRow` gives it.
    typealias Line = ListRow

    private let options: BatchOptions
    private let requests: BatchRequests
    private let pipeline: ImagePipeline
    /// With `--resume`: how a line recorded `ok` is judged; with `--retry-failed`, whether its recorded outputs are
    /// at the names this run gives them, or (WebDataset) whether its sample is kept in a tar.
    private let judge: ResumeJudge?
    private var namer: BatchOutputNamer?

    init(options: BatchOptions, requests: BatchRequests, pipeline: ImagePipeline, judge: ResumeJudge?) {
        (self.options, self.requests, self.pipeline, self.judge) = (options, requests, pipeline, judge)
        // A WebDataset sample is named by its line's key: no file names to claim, nor to remember (a few bytes a
        // line, for every line of the list whichever shard takes it).
        namer = options.outputDirectory == nil || options.webDataset != nil
            ? nil : BatchOutputNamer(template: options.effectiveTemplate)
    }

    /// The item of `line`, numbered `sequence` among those handed to workers; nil for a line of another shard.
    mutating func item(for line: Line, sequence: Int) -> BatchItem? {
        // The first column, parsed once: the line's source when the line is usable, and what its names come from.
        let parsed = Result { () throws(ImgError) -> ImageSource in try ImageSource(parsing: line.first) }
        let source = Result { () throws(ImgError) -> ImageSource in try checked(line, parsed: parsed) }
        var item = BatchItem(sequence: sequence, line: line.line, input: line.first, source: source)
        item.format = nameColumn(of: line).flatMap(NameTemplate.format(ofColumn:))
        if line.extra || line.failure != nil { item.malformedLine = line.raw }
        item.columns = line.columns
        item.caption = line.caption
        item.position = line.position
        item.expectedSHA256 = line.sha256
        // The original key, worked out once a line: its names' `{hash}`, `--shard`, memory's announced uses and
        // its fetch all take this one (a line that fails has one only for its names).
        let usable = (try? source.get()) != nil
        let key = namer != nil || usable ? (try? parsed.get()).flatMap(originalKey(of:)) : nil
        if namer != nil {
            item.outputKeys = outputKeys(originalKey: key, source: parsed, format: item.format)
            item.outputNames = claimNames(for: item, source: try? parsed.get(), column: line.second)
        }
        item.originalKey = usable ? key : nil
        if let shard = options.shard, !shard.contains(key: item.originalKey ?? item.input) {
            noteIfMovedAway(item)
            return nil
        }
        if namer == nil { item.outputKeys = outputKeys(originalKey: key, source: parsed, format: item.format) }
        if let previous = options.previous { settle(&item, previous: previous) }
        return item
    }

    /// Tells `BatchOptions.linesMovedAway` of a line of another shard whose `ok` sample a complete tar of this
    /// shard keeps (its original key or the shard count changed since, and with it its shard).
    private func noteIfMovedAway(_ item: BatchItem) {
        guard let listener = options.linesMovedAway, let layout = options.webDataset, let judge,
              let record = options.previous?.record(line: item.line), record.status == "ok",
              judge.keepsSample(of: record) else { return }
        let tars = (record.outputs ?? []).compactMap { $0.tar.map { String($0.split(separator: "/").last ?? "") } }
        guard let tar = tars.first(where: { layout.tarNumber(of: $0) != nil }) else { return }
        listener(LineMovedAway(line: item.line, tar: tar, key: WebDatasetLayout.key(line: item.line)))
    }

    /// The line's name column (a plain list's second column), or nil: a WebDataset sample is named by its line's
    /// key and encoded as the options say, so a name there names nothing and picks no format.
    private func nameColumn(of line: Line) -> String? {
        options.webDataset == nil ? line.second : nil
    }

    /// The line's source, or why the line is unusable.
    private func checked(_ line: Line, parsed: Result<ImageSource, ImgError>) throws(ImgError) -> ImageSource {
        if line.tooLong { throw .usage("line \(line.line) is over \(BatchListReader.maxLineBytes) bytes") }
        if let failure = line.failure { throw failure }  // named by its line
        if line.extra { throw .usage("expected 'URL [NAME]', found more columns") }  // named by its line
        let source = try parsed.get()
        if source == .standardInput { throw .usage("'-' (standard input) can't be an item of a list") }
        if options.denyLocal, !source.isRemote { throw .setting(.localInputDenied) }
        // A bad second column fails the line (its name is claimed from the URL meanwhile).
        guard let column = nameColumn(of: line) else { return source }
        _ = try NameTemplate.stem(fromColumn: column)
        if let format = NameTemplate.format(ofColumn: column), let asked = requests.template.encoding.format,
           asked != format {
            throw .setting(.nameFormatDiffers(name: column, named: format, asked: asked))
        }
        if let format = NameTemplate.format(ofColumn: column),
           requests.template.encoding.candidateFormats != nil {
            throw .setting(.nameFormatWhileChosen(name: column, named: format))
        }
        return source
    }

    /// Carries the earlier manifest's record of a line it settles (`item.carried`, no original key unless its files
    /// are still to be verified); a line recorded `ok` that does not verify, or (`--retry-failed`) that this run names
    /// otherwise, is done again (`item.redone`).
    private func settle(_ item: inout BatchItem, previous: PreviousManifest) {
        switch previous.mode {
        case .retryFailed:
            if let record = previous.retryDecision(line: item.line, input: item.input, malformedLine: item.malformedLine) {
                if record.status == "ok", let mismatch = judge?.renamed(record, expected: expectedOutputs(of: item)) {
                    item.redone = mismatch
                } else {
                    (item.carried, item.originalKey) = (record, nil)
                }
            } else if let judge, let record = previous.record(line: item.line), record.status == "ok",
                      judge.keepsSample(of: record) {
                keep(&item, record: record, mismatch: .otherURL) // recorded ok for another URL (the list changed)
            }
        case .resume:
            guard let judge, let record = previous.record(line: item.line), record.status == "ok" else { return }
            switch judge.judge(record, input: item.input, expected: expectedOutputs(of: item)) {
            case .redo(let mismatch) where judge.keepsSample(of: record):
                keep(&item, record: record, mismatch: mismatch)
            case .redo(let mismatch):
                item.redone = mismatch
            case .carry where options.outputDirectory == nil && !cacheHolds(record, originalKey: item.originalKey):
                item.redone = .notCached
            case .carry(let carried, let files):
                item.carried = carried
                item.verifying = files
                if files.isEmpty { item.originalKey = nil }
            }
        }
    }

    /// Carries a line whose `ok` sample a complete tar holds although this run would make it otherwise (`mismatch`):
    /// a second sample would give the line twice, and a tar's sample is never replaced.
    private func keep(_ item: inout BatchItem, record: ManifestRecord, mismatch: ResumeMismatch) {
        (item.carried, item.keptInTar) = (PreviousManifest.carried(record, keptInTar: mismatch), mismatch)
        item.originalKey = nil
    }

    /// Whether the cache holds every output `record` gives a prefetched line, fresh and whole (a prefetch's outputs
    /// are its entries: one it lacks, one expired or damaged since, and one of a run with another cache, are fetched
    /// again). An output's entry is under the key the record says it was kept under (`cache_key`, else `key`).
    private func cacheHolds(_ record: ManifestRecord, originalKey: String?) -> Bool {
        guard let store = pipeline.store, let originalKey else { return false }
        return (record.outputs ?? []).allSatisfy { output in
            guard let key = output.cacheKey ?? output.key else { return false }
            let entry: EntryName = requests.originalsOnly
                ? .original(key: key) : .variant(originalKey: originalKey, variantKey: key)
            if case .fresh = store.lookup(entry, inPlace: true) { return true }
            return false
        }
    }

    /// What this run would make for the item's outputs.
    private func expectedOutputs(of item: BatchItem) -> [ExpectedOutput] {
        requests.positions.enumerated().map { position, variant in
            let usable = item.originalKey != nil && (try? item.source.get()) != nil
            let key = usable && position < item.outputKeys.count ? item.outputKeys[position] : nil
            let name = position < item.outputNames.count ? item.outputNames[position] : nil
            return ExpectedOutput(variant: variant?.name, key: key, name: name)
        }
    }

    /// The key of each of a line's outputs (`BatchItem.outputKeys`); empty without an original key.
    private func outputKeys(originalKey: String?, source: Result<ImageSource, ImgError>, format: ImageFormat?) -> [String] {
        guard let originalKey, case .success(let source) = source else { return [] }
        return requests.positions.map {
            requests.outputKey(originalKey: originalKey, source: source, variant: $0, format: format)
        }
    }

    /// Claims the names of the item's outputs; `{hash}` is a short hash of each output's key (`item.outputKeys`; of
    /// the line's text when it has none). `parsed` is the line's first column parsed (nil when it does not parse).
    private mutating func claimNames(for item: BatchItem, source parsed: ImageSource?,
                                     column: String?) -> [ClaimedOutputName] {
        let variants = requests.positions
        let stem = BatchOutputNamer.stem(input: item.input, column: column, source: parsed)
        let keys = item.outputKeys
        return namer!.claim(stem: stem.text, shortenable: !stem.fromList, variants: variants.map { $0?.name ?? "original" },
                            index: item.line) { position in
            String(Digest.sha256(position < keys.count ? keys[position] : item.input).prefix(12))
        }
    }

    /// The original key of a line's source, nil when it has none or it can't be made (then the fetch makes it again,
    /// and fails as it would): what `--shard` hashes (the line's text when there is none), what the memory cache
    /// keeps the original under, and what the pipeline is given for the line's every output.
    private func originalKey(of source: ImageSource) -> String? {
        (try? pipeline.originalKey(for: requests.request(for: source, variant: nil))) ?? nil
    }
}

import Foundation

/// Makes one line's outputs, on a worker thread: asks the pipeline for each variant (an original for a prefetch),
/// stages each result in the output folder, and decides what the line is when it is no plain success or failure:
/// refused by its site (`SiteRefusal`) or filtered by its original's size (`SizeFilter`). Nothing of such a line
/// is written.
struct BatchOutputMaker: Sendable {
    let pipeline: ImagePipeline
    /// Each output's request and key.
    let requests: BatchRequests
    let options: BatchOptions
    /// `-O DIR`, opened once, or why it could not be.
    let outputFolder: Result<OutputFolder, ImgError>?

    /// The outputs of a line whose source is `source`, in the order of `requests.positions`: each the line's failure
    /// when its original's SHA-256 is not the one its list gives (`BatchItem.expectedSHA256`).
    func outputs(of source: ImageSource, item: BatchItem) -> [BatchOutput] {
        if let expected = item.expectedSHA256, let (failure, milliseconds) = mismatch(of: source, item: item, expected: expected) {
            return requests.positions.map { BatchOutput(variant: $0?.name, result: .failure(failure), milliseconds: milliseconds) }
        }
        var outputs: [BatchOutput] = []
        var sharedFailure: ImgError?
        for (position, variant) in requests.positions.enumerated() {
            let key = item.originalKey != nil && position < item.outputKeys.count ? item.outputKeys[position] : nil
            outputs.append(produce(source: source, originalKey: item.originalKey, outputKey: key, variant: variant,
                                   format: item.format, sharedFailure: &sharedFailure))
        }
        return outputs
    }

    /// Why a line whose original must have the SHA-256 `expected` fails, with the time it took: its original
    /// (downloaded, or from the caches) hashes to another, or can't be had. Nil when it matches, or when its site
    /// refuses it (its outputs then say so).
    private func mismatch(of source: ImageSource, item: BatchItem, expected: String) -> (ImgError, Int)? {
        let start = Date()
        let request = requests.request(for: source, variant: nil)
        var failure: ImgError?
        do throws(ImgError) {
            let fetched = try pipeline.originals.fetch(request, key: item.originalKey)
            let actual = fetched.image.bytes.sha256
            if request.robotsRefusal(fetched.image.robotsTags) == nil, actual != expected {
                failure = .image("its SHA-256 is \(actual), not the list's \(expected)")
            }
        } catch {
            failure = error
        }
        return failure.map { ($0, Self.milliseconds(since: start)) }
    }

    /// With `BatchOptions.robotsTxt`, the report of a remote line its host's robots.txt disallows (nothing
    /// requested), or of the failure to learn what it says; nil for a line it allows.
    func robotsReport(_ item: BatchItem, source: ImageSource) -> BatchItemReport? {
        guard options.robotsTxt, case .remote(let url) = source else { return nil }
        let start = Date()
        do throws(ImgError) {
            guard let verdict = try pipeline.robots.verdict(for: url) else { return nil }
            var report = BatchItemReport(item: item, outputs: [])
            report.refusal = .robotsTxt(verdict)
            report.milliseconds = Self.milliseconds(since: start)
            return report
        } catch {
            return BatchItemReport(item: item, outputs: requests.positions.map {
                BatchOutput(variant: $0?.name, result: .failure(error), milliseconds: 0)
            })
        }
    }

    /// The report of a line its site refused or its size filtered, its staged outputs discarded, with the time its
    /// outputs and the filtering took; nil for another.
    func declined(_ item: BatchItem, outputs: [BatchOutput], source: ImageSource) -> BatchItemReport? {
        let start = Date()
        for case .failure(.siteRefusal(let refusal)) in outputs.map(\.result) {
            return report(item, discarding: outputs, since: start) { $0.refusal = refusal }
        }
        for case .failure(.filtered(let filtered)) in outputs.map(\.result) {
            return report(item, discarding: outputs, since: start) { $0.filtered = filtered }
        }
        if options.sizeFilter.isActive, let filtered = filter(outputs, source: source, originalKey: item.originalKey) {
            return report(item, discarding: outputs, since: start) { $0.filtered = filtered }
        }
        return nil
    }

    /// `start`: when the deciding began; the line's time is its outputs' and the time since then.
    private func report(_ item: BatchItem, discarding outputs: [BatchOutput], since start: Date,
                        _ mark: (inout BatchItemReport) -> Void) -> BatchItemReport {
        for case let staged? in outputs.map(\.staged) { staged.discard() }
        var report = BatchItemReport(item: item, outputs: [])
        mark(&report)
        report.milliseconds = outputs.reduce(0) { $0 + $1.milliseconds } + Self.milliseconds(since: start)
        return report
    }

    /// Whole milliseconds from `start` to now.
    static func milliseconds(since start: Date) -> Int { Int(Date().timeIntervalSince(start) * 1000) }

    /// One output of one item, whose original key is `originalKey` and output key `outputKey` (worked out when its
    /// line was read; nil: the pipeline makes them). A failure of the original (network, HTTP status, not cached, refused by its site) is
    /// shared by the remaining variants instead of being tried again.
    private func produce(source: ImageSource, originalKey: String?, outputKey: String?, variant: BatchVariant?,
                         format: ImageFormat?, sharedFailure: inout ImgError?) -> BatchOutput {
        let start = Date()
        var output = BatchOutput(variant: variant?.name, result: .failure(.internalFailure("not run")), milliseconds: 0)
        if let sharedFailure {
            output.result = .failure(sharedFailure)
            return output
        }
        let request = requests.request(for: source, variant: variant, format: format)
        do throws(ImgError) {
            let response = switch (requests.originalsOnly, originalKey) {
            case (true, let key?): try pipeline.prefetchOriginal(for: request, originalKey: key)
            case (true, nil): try pipeline.prefetchOriginal(for: request)
            case (false, let key?): try pipeline.image(for: request, originalKey: key)
            case (false, nil): try pipeline.image(for: request)
            }
            // A prefetch's only work is to fill the disk cache: what it could not keep there is not done.
            if outputFolder == nil, let failure = response.storeFailure { throw .cacheUnavailable("not cached: \(failure.message)") }
            if let outputFolder { output.staged = try outputFolder.get().stage(response.image.bytes) }
            output.key = outputKey ?? response.originalKey.map {
                requests.outputKey(originalKey: $0, source: source, variant: variant, format: format)
            }
            output.result = .success(response)
        } catch {
            output.result = .failure(error)
            switch error {
            case .network, .http, .notCached, .siteRefusal, .filtered: sharedFailure = error
            case .overLimit(let limit, _) where limit.isTransferLimit: sharedFailure = error
            default: break
            }
        }
        output.milliseconds = Self.milliseconds(since: start)
        return output
    }

    /// The filtering of a line whose outputs all succeeded, by its original's size: from a rendering or a cached
    /// variant's entry, else from the original (cached by now: no request). An original of unknown size passes.
    /// (A rendering refuses an original the filter refuses from its header, before decoding: `ImgError.filtered`.)
    private func filter(_ outputs: [BatchOutput], source: ImageSource, originalKey: String?) -> FilteredOriginal? {
        guard outputs.allSatisfy({ if case .success = $0.result { true } else { false } }) else { return nil }
        let rendered = outputs.lazy.compactMap { if case .success(let response) = $0.result { response.image.sourceSize } else { nil } }.first
        let size = rendered ?? originalSize(source: source, originalKey: originalKey)
        guard let size, let reason = options.sizeFilter.refusal(width: size.width, height: size.height) else { return nil }
        return FilteredOriginal(reason: reason, width: size.width, height: size.height)
    }

    /// The size the original's entry records (cached by now: no request), asked without the size filter, whose
    /// refusal would hide it; nil when unknown.
    private func originalSize(source: ImageSource, originalKey: String?) -> (width: Int, height: Int)? {
        var request = requests.request(for: source, variant: nil)
        request.decoding.sizeFilter = nil
        guard let original = try? pipeline.prefetchOriginal(for: request, originalKey: originalKey),
              let width = original.image.width, let height = original.image.height else { return nil }
        return (width, height)
    }
}

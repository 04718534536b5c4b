import Foundation

/// A tar the batch completed: its path and what its stats file says.
public struct WrittenTar: Sendable {
    /// `DIR/00000.tar`.
    public var path: String
    public var stats: TarStats
}

/// The tars of one batch's WebDataset output, filled in the order lines are retired: a line done goes into the open
/// tar (a new one is opened for the first line done after the last was completed): its sample, or with a table only
/// its row (`SampleTableShape`). A tar is completed once it holds `WebDatasetLayout.samplesPerShard` samples, and at
/// the end of the run, even with no sample: its stats and table then say what became of the lines it counts. New
/// tars are numbered after the complete ones already in the folder (what a resumed run keeps), and a tar takes its
/// name only where nothing has it (`OutputFolder.commitNew`), so a run never replaces a complete tar; the tables and
/// stats of tars not in the folder are removed first (`WebDatasetLayout.removeOrphanedCompanions`). Another run
/// writing tars of the same names into the folder at once is kept out by `TarNameLock`.
///
/// A tar that cannot be written (a full disk) stops the batch: it is given up with its samples (a `TarFailure`, taken
/// with `takeFailures`), and every line retired after it is not done: no other tar is opened.
final class WebDatasetShards: @unchecked Sendable { // touched only under BatchRunner's order lock: retiring is serial
    let layout: WebDatasetLayout
    /// The columns of the tables, with `layout.writesParquet`.
    private let table: SampleTableShape
    private let folder: OutputFolder
    private let shard: Shard?
    private var next: Int
    private var current: TarShard?
    /// Lines not done (`skipped`) retired while no tar was open: they count in the next tar's stats.
    private var waiting: [String: Int] = [:]
    /// When the open tar's time began: the batch's start for the first tar, the last tar's completion for the next.
    private var since = Date()
    /// The lines done that the open tar counts (its samples' among them), in the order they were retired: given up
    /// with it when it can't be written.
    private var linesInTar: [TarFailure.LostLine] = []
    /// The first failure to write a tar: the batch stops on it (every later sample would likely fail alike).
    private(set) var failure: ImgError?
    /// The tars given up since `takeFailures` was last called.
    private var failures: [TarFailure] = []

    init(layout: WebDatasetLayout, table: SampleTableShape, folder: OutputFolder, shard: Shard?) {
        (self.layout, self.table, self.folder, self.shard) = (layout, table, folder, shard)
        let tars = layout.existingTars(in: folder)
        layout.removeOrphanedCompanions(in: folder, besides: tars)
        next = (tars.keys.max() ?? -1) + 1
    }

    /// Appends the sample of `item`'s line to the open tar (opening one first) and returns where it went. On a
    /// failure the open tar is given up (its earlier samples with it) and the error says how many were lost.
    func add(_ item: BatchItem, image: ImagePayload) throws(ImgError) -> SamplePlacement {
        let tar = try openTar()
        let key = WebDatasetLayout.key(line: item.line)
        let ext = (image.format ?? ImageFormat.sniff(image.bytes.prefix(64)))?.fileExtension ?? "bin"
        let sha256 = image.bytes.sha256
        let sample = WebDatasetSample(key: key, url: URLCredentials.maskingPassword(in: item.input),
                                      columns: item.columns ?? [:], image: image, sha256: sha256)
        do throws(ImgError) {
            try tar.add(key: key, ext: ext, image: image.bytes, caption: item.caption, metadata: sample.encoded(),
                        row: table.row(of: sample, caption: item.caption))
        } catch {
            // The line fails for what went wrong; the tar's failure says what else was lost.
            fail(error, givingUp: tar)
            throw error
        }
        return SamplePlacement(tar: "\(folder.path)/\(tar.name)", tarID: tar.id, member: "\(key).\(ext)")
    }

    /// Puts the retired line's successful outputs into the open tar (an output marked a skipped duplicate is not
    /// written), or, for a line done that gave none, its row into the open tar's table, and counts the line; returns
    /// how many samples were written. An output that can't be written fails. Once a tar could not be written, a line
    /// retired is not done (`skipped`): nothing more is written.
    func retire(_ report: inout BatchItemReport) -> Int {
        guard report.carried == nil else { return 0 }
        if failure != nil { report = BatchItemReport(item: report.item, outputs: [], skipped: true) }
        var written = 0
        if !report.skipped {
            for index in report.outputs.indices {
                guard case .success(let response) = report.outputs[index].result, !report.outputs[index].skippedAsDuplicate
                else { continue }
                do throws(ImgError) {
                    report.outputs[index].sample = try add(report.item, image: response.image)
                    written += 1
                } catch {
                    report.outputs[index].result = .failure(error)
                }
            }
            if written == 0, failure == nil {
                addRow(of: report)
                // Its own row gave the tar up: no table or stats file will count it, so it is not done.
                if failure != nil { report = BatchItemReport(item: report.item, outputs: [], skipped: true) }
            }
        }
        let status = Self.status(of: report)
        count(status: status)
        if !report.skipped, current != nil {
            linesInTar.append(TarFailure.LostLine(item: report.item, status: status, failedPermanently:
                report.failed && !report.failedTransiently, refusedTransiently: report.refusedTransiently,
                hadSample: written > 0))
        }
        return written
    }

    /// Opens a tar, if none is, for a line done that gave no sample, and appends its row to the tar's table.
    private func addRow(of report: BatchItemReport) {
        do throws(ImgError) {
            let tar = try openTar()
            guard layout.writesParquet else { return }
            let record = ManifestRecord(report: report, wording: layout.failureWording)
            let duplicateOf = report.outputs.lazy.compactMap(\.duplicateOf).first
            let row = table.row(of: record, key: WebDatasetLayout.key(line: report.item.line), status: Self.status(of: report),
                                caption: report.item.caption,
                                reason: duplicateOf.map { "a near-duplicate of \(URLCredentials.maskingPassword(in: $0))" })
            do throws(ImgError) { try tar.addRow(row) } catch { fail(error, givingUp: tar) }
        } catch {}
    }

    /// What a retired line is, as its manifest record says (`duplicate`: ok, not written as a near-duplicate).
    static func status(of report: BatchItemReport) -> String {
        if report.skipped { return "skipped" }
        if let refusal = report.refusal { return refusal.status }
        if report.filtered != nil { return "filtered" }
        if report.failed { return "failed" }
        return report.outputs.contains(where: \.skippedAsDuplicate) ? "duplicate" : "ok"
    }

    /// Counts a retired line of `status` in the open tar's stats (the next one's when none is open).
    func count(status: String) {
        if let current { current.statuses[status, default: 0] += 1 } else { waiting[status, default: 0] += 1 }
    }

    /// Completes the open tar when it is full; the tar written, nil when it is not full.
    func completeIfFull() -> WrittenTar? {
        guard let current, current.samples >= layout.samplesPerShard else { return nil }
        return complete(current)
    }

    /// Completes the open tar, if any, at the end of the run (one of lines that gave no sample too).
    func finish() -> WrittenTar? {
        guard let current else { return nil }
        return complete(current)
    }

    private func openTar() throws(ImgError) -> TarShard {
        if let current { return current }
        let tar: TarShard
        do throws(ImgError) {
            tar = try TarShard(name: layout.tarName(next), folder: folder, table: layout.writesParquet)
        } catch {
            fail(error, givingUp: nil)
            throw error
        }
        next += 1
        tar.statuses = waiting
        waiting = [:]
        current = tar
        return tar
    }

    /// The tar completed; nil (the failure kept) when it could not be.
    private func complete(_ tar: TarShard) -> WrittenTar? {
        var stats = TarStats(tar: tar.name, id: tar.id, samples: tar.samples, statuses: tar.statuses, bytes: 0,
                             imageBytes: tar.imageBytes, seconds: 0, shard: shard.map { "\($0.index)/\($0.count)" })
        do throws(ImgError) {
            _ = try tar.complete { size in
                stats.bytes = size
                let now = Date()
                stats.seconds = (now.timeIntervalSince(since) * 1000).rounded() / 1000
                since = now
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                return ((try? encoder.encode(stats)) ?? Data("{}".utf8)) + Data([0x0A])
            }
        } catch {
            fail(error, givingUp: tar)
            return nil
        }
        (current, linesInTar) = (nil, [])
        return WrittenTar(path: "\(folder.path)/\(tar.name)", stats: stats)
    }

    /// The tars given up since the last call, each with the lines whose samples it held: the caller counts those
    /// lines as not done.
    func takeFailures() -> [TarFailure] {
        defer { failures = [] }
        return failures
    }

    /// Records a failure to write `tar` (the open tar, or nil when none could be opened), which is given up with its
    /// samples, as a `TarFailure` whose error says how many samples are not kept. The first failure stops the batch.
    private func fail(_ error: ImgError, givingUp tar: TarShard?) {
        var error = error
        let lost = tar == nil ? [] : linesInTar
        tar?.abandon()
        if tar != nil { (current, linesInTar) = (nil, []) }
        let samples = lost.count(where: \.hadSample), others = lost.count - samples
        if samples > 0 {
            let what = samples == 1 ? "the sample" : "the \(samples) samples"
            error = .io("\(error.message); \(what) written into it before \(samples == 1 ? "is" : "are") not kept "
                        + "(\(samples == 1 ? "its line is" : "their lines are") not done)")
        }
        if others > 0 {
            error = .io("\(error.message); \(others) other line\(others == 1 ? "" : "s") it counted "
                        + "\(others == 1 ? "is" : "are") not done either")
        }
        failure = failure ?? error
        let name = tar?.name ?? layout.tarName(next)
        failures.append(TarFailure(error: error, path: "\(folder.path)/\(name)", lost: lost))
    }
}

import Foundation

/// One line of a `--manifest` file: what became of one list line. JSON keys are those below, snake_case.
public struct ManifestRecord: Codable, Sendable, Equatable {
    /// The line number in the list (1-based, counting blank and comment lines); with several inputs (batch's lists,
    /// prefetch's URLs given on the command line and then its `--from` list), counted on through them in order.
    public var line: Int
    /// With several inputs: the list the line is in, as named on the command line (`-`: standard input), and its
    /// line there; absent for a URL given on the command line.
    public var list: String?
    public var listLine: Int?
    /// The first column as written, its password shown as `***`; absent for a line not of the form `URL [NAME]`,
    /// which has `raw` instead.
    public var url: String?
    /// The whole line as written (without its surrounding blanks, passwords shown as `***`), for a line not of the
    /// form `URL [NAME]` (more columns): its first word is not taken for a URL.
    public var raw: String?
    /// `ok`, `failed`, `skipped` (started and not done: the run was stopping; it replaces no earlier record of a
    /// result when the manifest is read again, `PreviousManifest`),
    /// `filtered` (the original's size is outside `--min-size` or `--max-aspect-ratio`: nothing written) or
    /// `opted_out` (its `X-Robots-Tag` carries a directive of `--disallow-robots-tags`: nothing written) or
    /// `robots_disallowed` (its host's robots.txt disallows it, `--robots-txt`: not requested).
    public var status: String
    /// Why a line was skipped, filtered or opted out, or that an `ok` line was done by an earlier run (`done earlier`).
    public var reason: String?
    /// The `X-Robots-Tag` directive that opted the line out (`noai`).
    public var directive: String?
    /// The robots.txt rule that disallowed the line (`disallow: /private/`); absent when its robots.txt could
    /// not be had (every path of the host disallowed: `reason` says why).
    public var rule: String?
    /// One per output (per variant) that was written or cached.
    public var outputs: [ManifestOutput]?
    /// The original's width and height, when known.
    public var original: ManifestSize?
    /// The first failure of the line.
    public var error: ManifestError?
    /// `transient` (trying later may succeed: exit 75) or `permanent` (exit 1), for a failed line; `transient` for a
    /// `robots_disallowed` line whose robots.txt could not be had for a reason that may pass (not done: it is tried
    /// again), absent for one a rule disallows.
    public var exitClass: String?
    /// Milliseconds spent on the line in this run (filtered and opted-out lines too: their download); absent for a
    /// line skipped or done earlier.
    public var ms: Int?
    /// The row's columns that `--keep-columns` names (strings for CSV and TSV, JSON values for JSON Lines); absent
    /// when none are kept.
    public var columns: [String: ColumnValue]?
    /// True on a `skipped` record that takes back this run's earlier record of the line (`ok`, or another status a
    /// WebDataset tar counted, when that tar could not be written): unlike another `skipped` record, it replaces the
    /// earlier one when the manifest is read again. The name says `ok`, the case it was made for.
    public var withdrawsOK: Bool?

    enum CodingKeys: String, CodingKey {
        case line, list, listLine = "list_line", url, raw, status, reason, directive, rule, outputs, original, error
        case exitClass = "exit_class", ms, columns, withdrawsOK = "withdraws_ok"
    }

    public init(line: Int, url: String?, status: String) {
        (self.line, self.url, self.status) = (line, url, status)
    }
}

extension ManifestRecord {
    /// A list line with the password of each of its columns shown as `***`.
    public static func maskingPasswords(inLine line: String) -> String {
        line.split(separator: " ", omittingEmptySubsequences: false).map { word in
            word.split(separator: "\t", omittingEmptySubsequences: false)
                .map { URLCredentials.maskingPassword(in: String($0)) }.joined(separator: "\t")
        }.joined(separator: " ")
    }
}

/// One output of a manifest line.
public struct ManifestOutput: Codable, Sendable, Equatable {
    /// The variant's name; absent without `--variant`.
    public var variant: String?
    /// The file written; absent for `prefetch` and WebDataset samples.
    public var path: String?
    /// A WebDataset sample's tar (`DIR/00000.tar`), the tar's id (in its `_stats.json`) and the image's name in it.
    public var tar: String?
    public var tarID: String?
    public var member: String?
    public var format: String?
    /// `--quality auto` and `--format auto`: the quality chosen and the Butteraugli distance measured at it.
    public var quality: Int?
    public var distance: Double?
    public var width: Int?
    public var height: Int?
    public var bytes: Int
    /// SHA-256 of the output's bytes, lower-case hex.
    public var sha256: String
    /// The key the output was asked under: its variant key (`variant:ORIGINAL@CHAIN@ENCODING`), the original key for
    /// `prefetch`. `--resume` skips a line only when this run would ask the same.
    public var key: String?
    /// The key the cache keeps the output under (if it keeps it), as `-v` and `cache inspect` show it, when it is
    /// not `key`: a key asked with the original's format (`@source(...)`) is kept under the format made
    /// (`@jpeg(q=85,...)`).
    public var cacheKey: String?
    /// Where it came from: `network`, `memory`, `disk`, `disk-original`, `revalidated`, `local`.
    public var source: String
    /// The output's perceptual hash (16 hex digits), with `--facts`: what `--resume` compares later lines with.
    public var phash: String?
    /// The earlier line's URL this output is a near-duplicate of (`--duplicate-distance`); with `--skip-duplicates`
    /// it has no `path`.
    public var duplicateOf: String?
    /// `duplicate` for a near-duplicate not written (`--skip-duplicates`): no file, no sample.
    public var skipped: String? = nil
    /// True, with the URL the entry records, when a cache entry recorded for a URL with another query served it.
    public var queryDiffers: Bool?
    public var recordedURL: String?

    enum CodingKeys: String, CodingKey {
        case variant, path, tar, tarID = "tar_id", member, format, quality, distance, width, height, bytes, sha256, key, source, phash, duplicateOf = "duplicate_of", skipped
        case cacheKey = "cache_key", queryDiffers = "query_differs", recordedURL = "recorded_url"
    }
}

public struct ManifestSize: Codable, Sendable, Equatable {
    public var width: Int
    public var height: Int
}

public struct ManifestError: Codable, Sendable, Equatable {
    /// The class of failure, as `--json` names it: `network`, `http`, `image`, `usage`, `io`, ...
    public var `class`: String
    /// The HTTP status, for `http`.
    public var status: Int?
    /// The failure in one line, as stderr words it (without the input's name and the `[class, exit N]` tail).
    public var message: String
    /// The exit code of this class of failure on its own.
    public var exit: Int32
}

/// The last line of a manifest.
public struct ManifestSummary: Codable, Sendable {
    public var summary = true
    /// `ok`, `error` (some line failed) or `interrupted` (a signal stopped the run: lines it had started and not
    /// finished are `skipped`, lines not reached have no record).
    public var status: String
    public var ok: Int
    public var failed: Int
    /// Failed lines whose every failure is transient.
    public var failedTransient: Int
    /// Lines started and not finished (the run was stopping).
    public var skipped: Int
    /// Lines of a run that stopped before them (no record), when it can tell: the list was read whole. Absent
    /// otherwise, and when there is none.
    public var notReached: Int?
    /// Lines filtered by their original's size.
    public var filtered: Int?
    /// Lines whose `X-Robots-Tag` opted them out.
    public var optedOut: Int?
    /// Lines their host's robots.txt disallows.
    public var robotsDisallowed: Int?
    /// Of those, lines disallowed only because their robots.txt could not be had for a reason that may pass (not
    /// done: `--retry-failed` runs them).
    public var robotsDisallowedTransient: Int?
    /// Lines an earlier run's manifest recorded as done (`ok`; with `--retry-failed` also `filtered`, `opted_out`,
    /// `robots_disallowed`), not fetched again.
    public var doneEarlier: Int
    /// Lines an earlier run's manifest recorded as `ok` that `--resume` did again (their outputs were not what
    /// this run makes, or not what was recorded); counted in `ok` or `failed` too.
    public var redone: Int?
    public var written: Int
    /// The exit status of the run.
    public var exit: Int32
    public var signal: Int32?
    /// `K/N` with `--shard`.
    public var shard: String?
    public var ms: Int

    enum CodingKeys: String, CodingKey {
        case summary, status, ok, failed, failedTransient = "failed_transient", skipped, notReached = "not_reached", filtered, optedOut = "opted_out", robotsDisallowed = "robots_disallowed",
             robotsDisallowedTransient = "robots_disallowed_transient", doneEarlier = "done_earlier", redone,
             written, exit, signal, shard, ms
    }

    public init(status: String, ok: Int, failed: Int, failedTransient: Int, skipped: Int, doneEarlier: Int, written: Int,
                exit: Int32, signal: Int32?, shard: String?, ms: Int) {
        (self.status, self.ok, self.failed, self.failedTransient, self.skipped) = (status, ok, failed, failedTransient, skipped)
        (self.doneEarlier, self.written, self.exit, self.signal, self.shard, self.ms) = (doneEarlier, written, exit, signal, shard, ms)
    }
}

extension ManifestRecord {
    /// The record of a finished item (of one carried from an earlier run: that record). `wording` gives a failure's
    /// `message`: the caller's one line for it (the command line's names the option that set a limit), so that the
    /// manifest says what stderr says.
    public init(report: BatchItemReport, wording: (ImgError) -> String) {
        if let carried = report.carried {
            self = carried
            return
        }
        let malformed = report.item.malformedLine
        self.init(line: report.item.line, url: malformed == nil ? URLCredentials.maskingPassword(in: report.item.input) : nil,
                  status: report.skipped ? "skipped" : report.failed ? "failed" : "ok")
        raw = malformed.map(Self.maskingPasswords(inLine:))
        (list, listLine) = (report.item.position?.list, report.item.position?.line)
        columns = report.item.columns
        if report.skipped {
            reason = "not done: the run was stopping"
            return
        }
        if let refusal = report.refusal {
            (status, reason, directive, rule) = (refusal.status, refusal.reason, refusal.directive, refusal.rule)
            if refusal.isTransient { exitClass = "transient" }
            ms = report.milliseconds
            return
        }
        if let filtered = report.filtered {
            status = "filtered"
            reason = filtered.reason
            original = ManifestSize(width: filtered.width, height: filtered.height)
            ms = report.milliseconds
            return
        }
        if let mismatch = report.item.redone { reason = "done again: \(mismatch.rawValue)" }
        var outputs: [ManifestOutput] = []
        var milliseconds = 0
        for output in report.outputs {
            milliseconds += output.milliseconds
            switch output.result {
            case .success(let response):
                let data = response.image
                outputs.append(ManifestOutput(variant: output.variant, path: output.path, tar: output.sample?.tar,
                                              tarID: output.sample?.tarID, member: output.sample?.member,
                                              format: data.format?.rawValue,
                                              quality: data.chosen?.quality, distance: data.chosen?.distance,
                                              width: data.width, height: data.height, bytes: data.bytes.count,
                                              sha256: data.bytes.sha256, key: output.key,
                                              cacheKey: response.variantKey == output.key ? nil : response.variantKey,
                                              source: response.source.rawValue,
                                              phash: data.facts?.phash,
                                              duplicateOf: output.duplicateOf.map(URLCredentials.maskingPassword(in:)),
                                              skipped: output.skippedAsDuplicate ? "duplicate" : nil,
                                              queryDiffers: response.queryDiffers ? true : nil, recordedURL: response.recordedURL))
                if original == nil, let size = data.sourceSize { original = ManifestSize(width: size.width, height: size.height) }
            case .failure(let failure):
                if error == nil {
                    var status: Int?
                    if case .http(let code, _) = failure { status = code }
                    error = ManifestError(class: failure.kind, status: status, message: wording(failure), exit: failure.exitCode)
                }
            }
        }
        if !outputs.isEmpty { self.outputs = outputs }
        if report.failed { exitClass = report.failedTransiently ? "transient" : "permanent" }
        ms = milliseconds
    }
}

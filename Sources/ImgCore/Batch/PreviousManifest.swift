import Foundation

/// What `--resume FILE` or `--retry-failed FILE` reads: the record that settles each line of an earlier run's
/// manifest. Lines that are not a JSON record (the torn last line of a run killed with `kill -9`) are ignored, as
/// are summary lines; when a line has several records (a manifest appended to by resumed runs), the last counts,
/// but a `skipped` one (not done: the run was stopping) never replaces an earlier one, whose result still holds: a
/// line's state is its last record of a result (`ok`, `failed`, `filtered`, `opted_out`, `robots_disallowed`), and a
/// line with none (not reached, or only skipped) is not done, nor is one recorded `failed` or with exit class
/// `transient` (a `robots_disallowed` line whose robots.txt could not be had for now).
///
/// The file is streamed, never held whole: reading it keeps, per list line, only where its last record is in the
/// file (`ManifestIndex`, 12 bytes a line); a record is read again from the file, which stays open, when its line
/// comes up. A 1M-line manifest so costs about 16 MB, not the 1.3 GB its decoded records took.
public struct PreviousManifest: Sendable {
    /// Which lines run again.
    public enum Mode: Sendable {
        /// Every line recorded `ok` whose outputs are still what this run would make (`ResumeJudge`).
        case resume
        /// Only the lines recorded `failed`, those disallowed by a robots.txt that could not be had for now (exit class
        /// `transient`), and those not done (no record of a result: not reached, or `skipped`).
        case retryFailed
    }

    public var path: String
    public var mode: Mode
    private let index: ManifestIndex?

    /// Lines with a record.
    public var count: Int { index?.count ?? 0 }

    /// Reads `path`; a file that does not exist is an empty manifest (nothing done yet). An unreadable file (or a
    /// directory) is a usage error giving the problem (the caller names the option that gave the path).
    public init(path: String, mode: Mode) throws(ImgError) {
        (self.path, self.mode) = (path, mode)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            index = nil
            return
        }
        if isDirectory.boolValue { throw .usage("it is a directory") }
        do throws(ImgError) {
            index = try ManifestIndex(reading: path)
        } catch {
            throw .usage(error.message)
        }
    }

    /// Whether some record names the WebDataset tar of id `id` (`TarStats.id`).
    public func recordsTar(id: String) -> Bool {
        index?.tarIDs.contains(id) ?? false
    }

    /// The record that settles list line `line` (its last, but a `skipped` one replaces none), nil when there is
    /// none (or it no longer reads as one).
    func record(line: Int) -> ManifestRecord? {
        index?.record(line: line)
    }

    /// With `--retry-failed`, what to do with list line `line` whose first column is `input` (`malformedLine`: the
    /// whole line, when it is not of a usable form): nil to run it (recorded `failed` or with exit class `transient`:
    /// `robots_disallowed` because its robots.txt could not be had for now; or not done: no record of a result), else
    /// the record to carry into this run's manifest without fetching anything (`ok`, `filtered`, `opted_out`,
    /// `robots_disallowed` by a rule or for good). A record of another URL or line (the list changed) does not count:
    /// it runs.
    func retryDecision(line: Int, input: String, malformedLine: String?) -> ManifestRecord? {
        // A malformed line is recorded by its whole text (`raw`), any other by its URL, as ManifestRecord does.
        let url = malformedLine == nil ? URLCredentials.maskingPassword(in: input) : nil
        let raw = malformedLine.map(ManifestRecord.maskingPasswords(inLine:))
        guard let record = self.record(line: line), record.url == url, record.raw == raw,
              record.status != "failed", record.status != "skipped", record.exitClass != "transient" else { return nil }
        return Self.carried(record)
    }

    /// `record` as this run's manifest carries it: no time of its own, and an `ok` one with reason `done earlier`
    /// (`done earlier, kept in its tar: made with other options` for a sample kept although this run would make it
    /// otherwise: `BatchItem.keptInTar`); a `filtered`, `opted_out` or `robots_disallowed` one keeps its status and
    /// reason.
    static func carried(_ record: ManifestRecord, keptInTar: ResumeMismatch? = nil) -> ManifestRecord {
        var carried = record
        if record.status == "ok" {
            carried.reason = "done earlier" + (keptInTar.map { ", kept in its tar: \($0.rawValue)" } ?? "")
        }
        carried.ms = nil
        return carried
    }
}

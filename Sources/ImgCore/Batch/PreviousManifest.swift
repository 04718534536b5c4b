import Foundation

/// What `--resume FILE` or `--retry-failed FILE` reads: the last record of each line of an earlier run's
/// manifest. Lines that are not a JSON record (the torn last line of a run killed with `kill -9`) are ignored, as
/// are summary lines; when a line has several records (a manifest appended to by resumed runs), the last counts.
public struct PreviousManifest: Sendable {
    /// Which lines run again.
    public enum Mode: Sendable {
        /// Every line not recorded `ok` with its outputs still in place.
        case resume
        /// Only the lines recorded `failed`.
        case retryFailed
    }

    public var path: String
    public var mode: Mode
    private var records: [Int: ManifestRecord] = [:]

    /// Lines with a record.
    public var count: Int { records.count }

    /// Reads `path`; a file that does not exist is an empty manifest (nothing done yet). An unreadable file (or a
    /// directory) is a usage error.
    public init(path: String, mode: Mode) throws(ImgError) {
        (self.path, self.mode) = (path, mode)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return }
        let option = mode == .resume ? "--resume" : "--retry-failed"
        if isDirectory.boolValue { throw .usage("cannot read \(option) '\(path)': it is a directory") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .usage("cannot read \(option) '\(path)': \(String(cString: strerror(errno)))")
        }
        let decoder = JSONDecoder()
        for line in data.split(separator: 0x0A) {
            guard line.first == UInt8(ascii: "{"), let record = try? decoder.decode(ManifestRecord.self, from: Data(line)) else { continue }
            records[record.line] = record
        }
    }

    /// What to do with list line `line` whose first column is `input`: nil to run it, else the record to carry
    /// into this run's manifest without fetching anything. A record of another URL (the list changed) does not count.
    /// `variants` are the output's variant names in order (nil without `--variant`). When this run marks
    /// near-duplicates (`marksDuplicates`), a line runs again unless each output has its `phash`, so later lines are
    /// compared with it; a near-duplicate that was not written is in place only when this run skips them too
    /// (`skipsDuplicates`).
    func decision(line: Int, input: String, variants: [String?], outputsWritten: Bool,
                  marksDuplicates: Bool = false, skipsDuplicates: Bool = false) -> ManifestRecord? {
        let url = URLCredentials.maskingPassword(in: input)
        let record = records[line].flatMap { $0.url == url ? $0 : nil }
        switch mode {
        case .resume:
            guard let record, record.status == "ok", let outputs = record.outputs, outputs.map(\.variant) == variants else { return nil }
            if marksDuplicates, !outputs.allSatisfy({ $0.phash != nil }) { return nil }
            if outputsWritten {
                let inPlace = { (output: ManifestOutput) -> Bool in
                    if let path = output.path { return PreviousManifest.isFile(path) }
                    return skipsDuplicates && output.duplicateOf != nil
                }
                guard outputs.allSatisfy(inPlace) else { return nil }
            }
            return PreviousManifest.carried(record)
        case .retryFailed:
            if record?.status == "failed" { return nil }
            if let record, record.status == "ok" { return PreviousManifest.carried(record) }
            var skipped = ManifestRecord(line: line, url: url, status: "skipped")
            skipped.reason = "not failed in the --retry-failed manifest"
            return skipped
        }
    }

    private static func carried(_ record: ManifestRecord) -> ManifestRecord {
        var carried = record
        carried.reason = "done earlier"
        carried.ms = nil
        return carried
    }

    private static func isFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }
}

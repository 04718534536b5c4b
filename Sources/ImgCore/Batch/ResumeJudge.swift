import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Why a line an earlier manifest records as `ok` is done again by `--resume`: its record does not say that its
/// outputs are what this run would make, or they are no longer what it recorded.
public enum ResumeMismatch: String, Sendable, CaseIterable {
    case otherURL = "another URL on that line"
    case otherVariants = "other variant names"
    case noKey = "recorded without a variant key"
    case otherKey = "made with other options"
    case otherPath = "recorded at another path"
    case missing = "output missing or not a regular file"
    case notCached = "not in the cache, or expired"
    case size = "output size differs"
    case digest = "output SHA-256 differs"
    case noPhash = "recorded without a phash"
    case tarMissing = "tar not complete"
    case tarReplaced = "tar written again since"
}

/// What this run would make for one output of a line: what `--resume` compares its record with.
struct ExpectedOutput: Sendable {
    /// The variant's name; nil without `--variant`.
    var variant: String?
    /// The variant key (the original key for a prefetch); nil when the line has none (it then runs).
    var key: String?
    /// The name claimed in the output folder; nil for a prefetch.
    var name: ClaimedOutputName?
}

/// An output file `--verify-outputs` reads before a line is skipped: its name in the output folder and recorded hash.
struct RecordedFile: Sendable {
    var name: String
    var sha256: String
}

/// Decides, for `--resume`, whether a line recorded `ok` is skipped: only when every recorded output is the one this
/// run would make (the variant names, the variant key, the path under `-O`, as this run names it) and its file is in
/// place: a regular file in the output folder (never followed through a link, never the recorded path itself: that
/// may name anything) of the recorded size, and with `verifyDigests` of the recorded SHA-256.
struct ResumeJudge: Sendable {
    /// `-O DIR` as given, and opened; nil for a prefetch.
    var directory: String?
    var folder: OutputFolder?
    /// `--facts` marks near-duplicates: every output needs its `phash`.
    var marksDuplicates = false
    /// A near-duplicate recorded with no file is in place only when this run skips them too.
    var skipsDuplicates = false
    /// `--verify-outputs`: the files' SHA-256 must be the recorded one.
    var verifyDigests = false
    /// With a WebDataset output: the ids of the complete tars, which a sample's record must name.
    var tars: TarIdentities?

    enum Verdict {
        /// Skip the line, carrying this record, once these files have the recorded SHA-256 (none to read: skip now).
        case carry(ManifestRecord, verifying: [RecordedFile])
        /// Do the line again.
        case redo(ResumeMismatch)
    }

    /// The verdict on `record` (recorded `ok`, for `input`) for outputs `expected`.
    func judge(_ record: ManifestRecord, input: String, expected: [ExpectedOutput]) -> Verdict {
        guard record.url == URLCredentials.maskingPassword(in: input) else { return .redo(.otherURL) }
        let outputs = record.outputs ?? []
        guard outputs.map(\.variant) == expected.map(\.variant) else { return .redo(.otherVariants) }
        if marksDuplicates, !outputs.allSatisfy({ $0.phash != nil }) { return .redo(.noPhash) }
        var files: [RecordedFile] = []
        for (output, wanted) in zip(outputs, expected) {
            guard let key = output.key else { return .redo(.noKey) }
            guard key == wanted.key else { return .redo(.otherKey) }
            if let tars {
                if output.tar == nil, skipsDuplicates, output.duplicateOf != nil { continue }
                guard let tar = output.tar, let name = fileName(inFolder: tar) else { return .redo(.otherPath) }
                if let mismatch = tars.mismatch(tar: name, id: output.tarID, in: folder) { return .redo(mismatch) }
                continue
            }
            guard let claimed = wanted.name else { continue }
            guard let path = output.path else {
                if skipsDuplicates, output.duplicateOf != nil { continue }
                return .redo(.missing)
            }
            guard let name = name(of: path, claimed: claimed, format: output.format) else { return .redo(.otherPath) }
            guard let size = regularFileSize(name) else { return .redo(.missing) }
            guard size == output.bytes else { return .redo(.size) }
            if verifyDigests { files.append(RecordedFile(name: name, sha256: output.sha256)) }
        }
        return .carry(PreviousManifest.carried(record), verifying: files)
    }

    /// With `--retry-failed`, why a line whose `ok` record would be carried runs after all: this run names its
    /// outputs in this run's folder otherwise (the list above it or the naming changed), so another line could take
    /// a recorded name and write over its file. Nil when each recorded output in this run's folder is at the name
    /// this run gives it (one in another folder is not this run's to write over), and without an output folder of
    /// files. The files themselves are not looked at.
    func renamed(_ record: ManifestRecord, expected: [ExpectedOutput]) -> ResumeMismatch? {
        guard directory != nil, tars == nil else { return nil }
        let outputs = record.outputs ?? []
        guard outputs.map(\.variant) == expected.map(\.variant) else { return .otherVariants }
        for (output, wanted) in zip(outputs, expected) {
            guard let claimed = wanted.name, let path = output.path, let recorded = fileName(inFolder: path) else {
                continue
            }
            if !Self.isClaimed(recorded, claimed, format: output.format) { return .otherPath }
        }
        return nil
    }

    /// With a WebDataset output: whether `record` has a sample in a tar still complete in this run's folder (the
    /// recorded tar, of the recorded id). Such a sample is never written again: a second would give its line twice.
    func keepsSample(of record: ManifestRecord) -> Bool {
        guard let tars else { return false }
        return (record.outputs ?? []).contains { output in
            guard let tar = output.tar, let name = fileName(inFolder: tar) else { return false }
            return tars.mismatch(tar: name, id: output.tarID, in: folder) == nil
        }
    }

    /// The first of `files` whose bytes are not the recorded ones, as a mismatch; nil when all are.
    func verify(_ files: [RecordedFile]) -> ResumeMismatch? {
        for file in files {
            guard let digest = sha256(file.name) else { return .missing }
            if digest != file.sha256 { return .digest }
        }
        return nil
    }

    /// The file name in the output folder that `path` is, when it is the one this run gives the output (`claimed`,
    /// with the recorded format's extension) under this run's `-O`; nil otherwise.
    private func name(of path: String, claimed: ClaimedOutputName, format: String?) -> String? {
        guard let recordedName = fileName(inFolder: path), Self.isClaimed(recordedName, claimed, format: format) else {
            return nil
        }
        return recordedName
    }

    /// Whether `recordedName` is the name `claimed` gives an output of the recorded format (any format's extension
    /// when none is recorded).
    private static func isClaimed(_ recordedName: String, _ claimed: ClaimedOutputName, format: String?) -> Bool {
        let extensions = format.flatMap(ImageFormat.init(rawValue:)).map { [$0.fileExtension] }
            ?? ImageFormat.allCases.map(\.fileExtension) + ["bin"]
        return extensions.contains { (try? claimed.name(ext: $0)) == recordedName }
    }

    /// The name of the file (a tar, an output) at `path` when it is in this run's output folder.
    private func fileName(inFolder path: String) -> String? {
        guard let directory, let slash = path.lastIndex(of: "/") else { return nil }
        let recordedFolder = String(path[..<slash])
        guard recordedFolder == directory || sameFolder(recordedFolder.isEmpty ? "/" : recordedFolder) else { return nil }
        return String(path[path.index(after: slash)...])
    }

    /// Whether `path` is the output folder (`-O out/` resumes what `-O out` wrote).
    private func sameFolder(_ path: String) -> Bool {
        guard let folder, let recorded = FileIdentity(path: path) else { return false }
        return recorded == FileIdentity(descriptor: folder.descriptor)
    }

    /// The size of `name` in the output folder when it is a regular file (a link is not followed).
    private func regularFileSize(_ name: String) -> Int? {
        guard let folder else { return nil }
        var info = stat()
        guard fstatat(folder.descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG
        else { return nil }
        return Int(info.st_size)
    }

    /// The SHA-256 of regular file `name` in the output folder, read in windows; nil when it can't be read.
    private func sha256(_ name: String) -> String? {
        guard let folder else { return nil }
        let opened = openat(folder.descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard opened >= 0 else { return nil }
        defer { close(opened) }
        var info = stat()
        guard fstat(opened, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let digest = DigestStream(.sha256)
        var window = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let got = window.withUnsafeMutableBytes { read(opened, $0.baseAddress, $0.count) }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { return nil }
            if got == 0 { break }
            window.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0.prefix(got))) }
        }
        return digest.finish()
    }
}

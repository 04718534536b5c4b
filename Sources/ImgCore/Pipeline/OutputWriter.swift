import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes outputs whole or not at all: a temporary file in the same directory, then rename.
public enum OutputWriter {
    /// Writes `data` to `path` (`-` for stdout).
    public static func write(_ data: Data, to path: String) throws(ImgError) {
        if path == "-" {
            FileHandle.standardOutput.write(data)
            return
        }
        let folder = (path as NSString).deletingLastPathComponent
        let directory = folder.isEmpty ? "." : folder
        let temporary = "\(directory)/.\((path as NSString).lastPathComponent).\(getpid())-\(UInt32.random(in: 0...UInt32.max)).part"
        try FileWriting.createNew(temporary, mode: 0o644, data: data, shownAs: path)
        try commit(temporary, to: path)
    }

    /// Writes `bytes` whole to a new hidden temporary file in `directory` (`.imgfetch-PID-RANDOM.part`), for a name
    /// decided later with `commit`; returns its path. Nothing is left behind on failure. Bytes in a file region are
    /// copied from their file, never through memory.
    public static func stage(_ bytes: EncodedBytes, in directory: String) throws(ImgError) -> String {
        let temporary = "\(directory)/.imgfetch-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).part"
        switch bytes {
        case .memory(let data):
            try FileWriting.createNew(temporary, mode: 0o644, data: data, shownAs: directory)
        case .file(let region):
            try FileWriting.createNew(temporary, mode: 0o644, data: Data(), then: region, shownAs: directory)
        }
        return temporary
    }

    /// Renames a staged file to `path` (replacing a file from an earlier run); removes it on failure.
    public static func commit(_ staged: String, to path: String) throws(ImgError) {
        guard rename(staged, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(staged)
            throw .io("cannot write \(path): \(reason)")
        }
    }

    /// Creates an output directory (and its parents) if missing.
    public static func prepareDirectory(_ path: String) throws(ImgError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw .io("cannot create output directory \(path): \(error.localizedDescription)")
        }
    }
}

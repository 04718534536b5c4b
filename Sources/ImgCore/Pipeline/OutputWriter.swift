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
        try writeNew(data, at: temporary, shownAs: path)
        try commit(temporary, to: path)
    }

    /// Writes `bytes` whole to a new hidden temporary file in `directory` (`.imgfetch-PID-RANDOM.part`), for a name
    /// decided later with `commit`; returns its path. Nothing is left behind on failure. Bytes in a file region are
    /// copied from their file, never through memory.
    public static func stage(_ bytes: EncodedBytes, in directory: String) throws(ImgError) -> String {
        let temporary = "\(directory)/.imgfetch-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).part"
        switch bytes {
        case .memory(let data):
            try writeNew(data, at: temporary, shownAs: directory)
        case .file(let region):
            try writeNew(Data(), at: temporary, shownAs: directory, then: region)
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

    private static func writeNew(_ data: Data, at temporary: String, shownAs path: String,
                                 then region: FileRegion? = nil) throws(ImgError) {
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .io("cannot write \(path): \(String(cString: strerror(errno)))") }
        let written = data.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let count = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if count <= 0 { return false }
                offset += count
            }
            return true
        }
        let failure = errno
        var copyFailure: String?
        if written, let region {
            do {
                try region.copy(to: descriptor)
            } catch {
                copyFailure = error.message
            }
        }
        let closed = close(descriptor) == 0
        guard written, copyFailure == nil, closed else {
            let reason = !written ? String(cString: strerror(failure)) : copyFailure ?? String(cString: strerror(errno))
            unlink(temporary)
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

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
        let closed = close(descriptor) == 0
        guard written, closed, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(written ? errno : failure))
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

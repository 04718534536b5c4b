import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writing whole buffers to descriptors, and new files whole or not at all.
public enum FileWriting {
    /// Writes all of `bytes` to `descriptor` with `write` (default: write(2); a socket passes send(2) with its
    /// flags), again after EINTR; false on an error (`errno` says which).
    public static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer,
                                using write: (Int32, UnsafeRawPointer, Int) -> Int = { Glibc.write($0, $1, $2) }) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        while offset < bytes.count {
            let count = write(descriptor, base + offset, bytes.count - offset)
            if count < 0, errno == EINTR { continue }
            if count <= 0 { return false }
            offset += count
        }
        return true
    }

    /// Writes `parts` in order (each from where it lies) and then the bytes of `region` (copied in the kernel) to
    /// `descriptor`; returns why that failed, or nil.
    static func write(_ parts: [Data], then region: FileRegion?, to descriptor: Int32) -> String? {
        guard parts.allSatisfy({ part in part.withUnsafeBytes { writeAll(descriptor, $0) } }) else {
            return String(cString: strerror(errno))
        }
        guard let region else { return nil }
        do {
            try region.copy(to: descriptor)
            return nil
        } catch {
            return error.message
        }
    }

    /// Creates `path` (exclusively, never through a symlink) with `mode`, writes `parts` in order (each from where it
    /// lies: never joined in memory first) and then the bytes of `region` (copied in the kernel), lets `finish` act
    /// on the open descriptor, and closes it. On any failure the file is removed and the error names `shownAs`.
    static func createNew(_ path: String, mode: mode_t, parts: [Data], then region: FileRegion? = nil, shownAs: String,
                          finish: (Int32) -> Void = { _ in }) throws(ImgError) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw .io("cannot write \(shownAs): \(String(cString: strerror(errno)))") }
        var failure = write(parts, then: region, to: descriptor)
        if failure == nil { finish(descriptor) }
        if close(descriptor) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        if let failure {
            unlink(path)
            throw .io("cannot write \(shownAs): \(failure)")
        }
    }
}

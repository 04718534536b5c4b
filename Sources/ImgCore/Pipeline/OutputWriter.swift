import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes outputs whole or not at all: a temporary file in the same directory, then rename.
public enum OutputWriter {
    /// Writes `data` to `path` (`-` for stdout).
    /// - A regular file (or a new one) is replaced whole: a temporary beside it, renamed over it. An existing file
    ///   keeps its permissions (and, for root, its owner); a symbolic link is followed and its target replaced.
    /// - Anything else (`/dev/null`, a FIFO, a terminal, `/dev/stdout`, `/proc/self/fd/N`) is opened and written;
    ///   a FIFO is waited for until a reader opens it or `cancellation` (default none) is cancelled.
    public static func write(_ data: Data, to path: String, cancellation: Cancellation? = nil) throws(ImgError) {
        if path == "-" {
            do {
                try StandardStream.output.write(data)
            } catch {
                throw error.error
            }
            return
        }
        switch try target(of: path) {
        case .stream:
            try writeInPlace(data, to: path, cancellation: cancellation)
        case .file(let resolved, let existing):
            // A short temporary name, so that an output name near the 255-byte limit still has room.
            let temporary = "\(split(resolved).directory)/.imgfetch-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).part"
            try FileWriting.createNew(temporary, mode: 0o644, data: data, shownAs: path) { descriptor in
                guard let existing else { return }
                _ = fchown(descriptor, existing.st_uid, existing.st_gid)
                _ = fchmod(descriptor, existing.st_mode & 0o7777)
            }
            try commit(temporary, to: resolved)
        }
    }

    /// What `-o PATH` will write to.
    enum Target {
        /// A regular file, existing (with its status) or not, at its real path (symbolic links followed).
        case file(path: String, existing: stat?)
        /// A device, FIFO, socket or descriptor link: written where it is.
        case stream
    }

    /// Sorts out `path` before anything is fetched: an empty name, a directory, a missing directory or a dangling
    /// link is refused here, so that no work is done for an output that can't be written.
    public static func check(_ path: String) throws(ImgError) {
        guard path != "-" else { return }
        _ = try target(of: path)
    }

    static func target(of path: String) throws(ImgError) -> Target {
        guard !path.isEmpty else { throw .usage("-o needs a file name") }
        var status = stat()
        if stat(path, &status) == 0 {
            if (status.st_mode & S_IFMT) == S_IFDIR { throw .usage("-o \(path) is a directory; use -O DIR to write into it") }
            if (status.st_mode & S_IFMT) != S_IFREG || path.hasPrefix("/dev/") || path.hasPrefix("/proc/") { return .stream }
            guard let resolved = realpath(path, nil) else { throw .io("cannot write \(path): \(String(cString: strerror(errno)))") }
            defer { free(resolved) }
            let real = String(cString: resolved)
            try checkWritable(directory: split(real).directory, shownAs: path)
            return .file(path: real, existing: status)
        }
        guard errno == ENOENT else { throw .io("cannot write \(path): \(String(cString: strerror(errno)))") }
        if path.hasSuffix("/") { throw .usage("-o \(path) names a directory; use -O DIR to write into it") }
        var link = stat()
        if lstat(path, &link) == 0 { throw .io("cannot write \(path): a symbolic link to nothing") }
        let (directory, _) = split(path)
        var folder = stat()
        guard stat(directory, &folder) == 0, (folder.st_mode & S_IFMT) == S_IFDIR else {
            throw .io("cannot write \(path): no directory \(directory)")
        }
        try checkWritable(directory: directory, shownAs: path)
        return .file(path: path, existing: nil)
    }

    /// A file can be made (and renamed) in `directory`.
    private static func checkWritable(directory: String, shownAs path: String) throws(ImgError) {
        guard access(directory, W_OK | X_OK) == 0 else {
            throw .io("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// `a/b/c.png` → (`a/b`, `c.png`); `c.png` → (`.`, `c.png`); `/c.png` → (`/`, `c.png`).
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    /// Opens what is at `path` for writing (no temporary: a device or pipe can't be renamed over) and writes. The
    /// open doesn't block, so that a FIFO without a reader yet is polled (every 20 ms) and an interrupt ends the wait.
    private static func writeInPlace(_ data: Data, to path: String, cancellation: Cancellation?) throws(ImgError) {
        var descriptor = open(path, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
        while descriptor < 0, errno == ENXIO || errno == EINTR, cancellation?.isCancelled != true {
            usleep(20_000)
            descriptor = open(path, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
        }
        if cancellation?.isCancelled == true, descriptor < 0 { throw .io("cannot write \(path): interrupted") }
        guard descriptor >= 0 else { throw .io("cannot write \(path): \(String(cString: strerror(errno)))") }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        let complete = data.withUnsafeBytes { FileWriting.writeAll(descriptor, $0) }
        let reason = complete ? nil : String(cString: strerror(errno))
        if close(descriptor) != 0, complete { throw .io("cannot write \(path): \(String(cString: strerror(errno)))") }
        if let reason { throw .io("cannot write \(path): \(reason)") }
    }

    /// Writes `bytes` whole to a new hidden temporary file in `directory` (`.imgfetch-PID-RANDOM.part`), for a name
    /// decided later with `commit`; returns its path. Nothing is left behind on failure. Bytes in a file region are
    /// copied from their file, never through memory.
    public static func stage(_ bytes: EncodedBytes, in directory: String) throws(ImgError) -> String {
        let temporary = "\(directory)/.imgfetch-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).part"
        let shown = "a file in \(directory)"
        switch bytes {
        case .memory(let data):
            try FileWriting.createNew(temporary, mode: 0o644, data: data, shownAs: shown)
        case .file(let region):
            try FileWriting.createNew(temporary, mode: 0o644, data: Data(), then: region, shownAs: shown)
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

    /// Creates an output directory (and its parents) if missing, and checks that files can be made in it.
    public static func prepareDirectory(_ path: String) throws(ImgError) {
        guard !path.isEmpty else { throw .usage("-O needs a directory name") }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw .io("cannot create output directory \(path): \(error.localizedDescription)")
        }
        guard access(path, W_OK | X_OK) == 0 else {
            throw .io("cannot write into output directory \(path): \(String(cString: strerror(errno)))")
        }
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes outputs whole or not at all: a temporary file in the same directory, then rename.
public enum OutputWriter {
    /// Writes `data` to `path` (`-` for `standardOutput`, default the process's).
    /// - A regular file (or a new one) is replaced whole: a temporary beside it (unnamed where the file system
    ///   allows), renamed over it. An existing file
    ///   keeps its permissions (and, for root, its owner); a symbolic link is followed and its target replaced.
    /// - `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` and `/proc/self/fd/N` are this process's descriptor N, written
    ///   as it is (a file the shell opened for appending is appended to; a socket works).
    /// - Anything else (`/dev/null`, a FIFO, a terminal) is opened and written; a FIFO is waited for until a reader
    ///   opens it or `cancellation` (default none) is cancelled.
    public static func write(_ data: Data, to path: String, cancellation: Cancellation? = nil,
                             standardOutput: StandardStream = .output) throws(ImgError) {
        if path == "-" {
            do {
                try standardOutput.write(data)
            } catch {
                throw error.error
            }
            return
        }
        switch try targetWhenWriting(path) {
        case .descriptor(let descriptor):
            guard data.withUnsafeBytes({ FileWriting.writeAll(descriptor, $0) }) else {
                throw .io("cannot write \(path): \(String(cString: strerror(errno)))")
            }
        case .stream(let isFIFO):
            try writeInPlace(data, to: path, waitingForAReader: isFIFO, cancellation: cancellation)
        case .file(let resolved, let existing):
            // Made whole beside it (unnamed where the file system allows), then named in one step.
            let (directory, name) = split(resolved)
            let folder = try OutputFolder(opening: directory, followingLink: true)
            let staged = try folder.stage(.memory(data), shownAs: path) { descriptor in
                guard let existing else { return }
                _ = fchown(descriptor, existing.st_uid, existing.st_gid)
                _ = fchmod(descriptor, existing.st_mode & 0o7777)
            }
            try folder.commit(staged, as: name, shownAs: path)
        }
    }

    /// What `-o PATH` will write to.
    enum Target {
        /// A regular file, existing (with its status) or not, at its real path (symbolic links followed).
        case file(path: String, existing: stat?)
        /// One of this process's open descriptors, named by `/dev/stdout`, `/dev/fd/N` or `/proc/self/fd/N`.
        case descriptor(Int32)
        /// A device or a FIFO: opened and written where it is.
        case stream(isFIFO: Bool)
    }

    /// The descriptor `/dev/stdin|stdout|stderr`, `/dev/fd/N` or `/proc/self/fd/N` names, if it is open.
    static func descriptor(namedBy path: String) -> Int32? {
        let named: Int32?
        switch path {
        case "/dev/stdout": named = STDOUT_FILENO
        case "/dev/stderr": named = STDERR_FILENO
        default:
            let number = ["/dev/fd/", "/proc/self/fd/"].first { path.hasPrefix($0) }.flatMap { Int32(path.dropFirst($0.count)) }
            named = number.flatMap { $0 >= 0 ? $0 : nil }
        }
        guard let named, fcntl(named, F_GETFD) != -1 else { return nil }
        return named
    }

    /// Sorts out `path` before anything is fetched: an empty name, a directory, a missing directory or a dangling
    /// link is refused here, so that no work is done for an output that can't be written.
    public static func check(_ path: String) throws(ImgError) {
        guard path != "-" else { return }
        _ = try target(of: path)
    }

    /// `target(of:)` once the output is made: a path found changed since it was checked (a directory made there)
    /// is an I/O failure (exit 7), no longer a setting's (exit 2, before anything was fetched).
    private static func targetWhenWriting(_ path: String) throws(ImgError) -> Target {
        do {
            return try target(of: path)
        } catch {
            guard case .setting(let problem) = error else { throw error }
            if case .outputFileIsDirectory = problem { throw .io("cannot write \(path): it is a directory now") }
            throw .io("cannot write \(path): \(problem.message)")
        }
    }

    static func target(of path: String) throws(ImgError) -> Target {
        guard !path.isEmpty else { throw .setting(.outputFileUnnamed) }
        if let descriptor = descriptor(namedBy: path) { return .descriptor(descriptor) }
        var status = stat()
        if stat(path, &status) == 0 {
            let type = status.st_mode & S_IFMT
            if type == S_IFDIR { throw .setting(.outputFileIsDirectory(path: path)) }
            if type == S_IFSOCK { throw .io("cannot write \(path): a socket can't be opened by name") }
            if type != S_IFREG { return .stream(isFIFO: type == S_IFIFO) }
            guard let resolved = realpath(path, nil) else { throw .io("cannot write \(path): \(String(cString: strerror(errno)))") }
            defer { free(resolved) }
            let real = String(cString: resolved)
            try checkWritable(directory: split(real).directory, shownAs: path)
            try checkReplaceable(real, status, shownAs: path)
            return .file(path: real, existing: status)
        }
        guard errno == ENOENT else { throw .io("cannot write \(path): \(String(cString: strerror(errno)))") }
        if path.hasSuffix("/") { throw .setting(.outputFileNamesDirectory(path: path)) }
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

    /// The existing file `path` may be written by this user, as `>` or `cp` judge it (its own permissions), and
    /// renamed over: in a sticky folder (`/tmp`) only its owner, the folder's owner or root may replace it.
    private static func checkReplaceable(_ path: String, _ status: stat, shownAs shown: String) throws(ImgError) {
        guard faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0 else {
            throw .io("cannot write \(shown): \(String(cString: strerror(errno)))")
        }
        var folder = stat()
        let user = geteuid()
        guard stat(split(path).directory, &folder) == 0, folder.st_mode & S_ISVTX != 0,
              user != 0, status.st_uid != user, folder.st_uid != user else { return }
        throw .io("cannot write \(shown): \(String(cString: strerror(EPERM))) (another user's file in a sticky folder)")
    }

    /// `a/b/c.png` → (`a/b`, `c.png`); `c.png` → (`.`, `c.png`); `/c.png` → (`/`, `c.png`).
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    /// Opens what is at `path` for writing (no temporary: a device or pipe can't be renamed over) and writes. The
    /// open doesn't block, so that a FIFO without a reader yet is polled (every 20 ms) and an interrupt ends the wait.
    private static func writeInPlace(_ data: Data, to path: String, waitingForAReader: Bool,
                                     cancellation: Cancellation?) throws(ImgError) {
        var descriptor = open(path, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)
        while descriptor < 0, waitingForAReader, errno == ENXIO || errno == EINTR, cancellation?.isCancelled != true {
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

    /// Creates an output directory (and its parents) if missing, checks that files can be made in it, and opens it
    /// (refusing a symbolic link as its last component: names are made up in it, see `OutputFolder`). On a failure
    /// the folders it made are removed; the folder opened knows them (`OutputFolder.removeIfUnused`).
    @discardableResult
    public static func prepareDirectory(_ path: String) throws(ImgError) -> OutputFolder {
        guard !path.isEmpty else { throw .setting(.outputDirectoryUnnamed) }
        var next = path.hasPrefix("/") ? "" : "."
        var made: [String] = []
        for component in path.split(separator: "/") {
            next += "/\(component)"
            if mkdir(next, 0o777) == 0 {
                made.append(next)
            } else if errno != EEXIST {
                let reason = String(cString: strerror(errno))
                OutputFolder.remove(made)
                throw .io("cannot create output directory \(path): \(reason)")
            }
        }
        do throws(ImgError) {
            var status = stat()
            guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
                throw .io("cannot create output directory \(path): \(String(cString: strerror(ENOTDIR)))")
            }
            guard access(path, W_OK | X_OK) == 0 else {
                throw .io("cannot write into output directory \(path): \(String(cString: strerror(errno)))")
            }
            return try OutputFolder(opening: path, made: made)
        } catch {
            OutputFolder.remove(made)
            throw error
        }
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Standard output or standard error, written with write(2). A failure is an error to report, never a trap:
/// Foundation's `FileHandle.write` stops the process on a closed descriptor, a full disk or a closed pipe. The
/// process's own are `output` and `error`; a command run in process (a test) may be handed others on descriptors of
/// its own (`init(descriptor:isOutput:)`).
public struct StandardStream: Sendable, Equatable {
    /// The descriptor written to.
    public let descriptor: Int32
    /// Whether it stands for standard output (else standard error): what a failure's message names.
    public let isOutput: Bool

    /// The process's standard output (descriptor 1).
    public static let output = StandardStream(descriptor: STDOUT_FILENO, isOutput: true)
    /// The process's standard error (descriptor 2).
    public static let error = StandardStream(descriptor: STDERR_FILENO, isOutput: false)

    public init(descriptor: Int32, isOutput: Bool) {
        (self.descriptor, self.isOutput) = (descriptor, isOutput)
    }

    /// Whether a terminal reads it (`isatty`).
    public var isTerminal: Bool { isatty(descriptor) != 0 }

    /// Whether it can be written: open, and not read-only (a descriptor the caller closed is `/dev/null` opened
    /// read-only, `guardClosedDescriptors`).
    public var isWritable: Bool {
        let flags = fcntl(descriptor, F_GETFL)
        return flags >= 0 && flags & O_ACCMODE != O_RDONLY
    }

    /// Whether `path` names the file, pipe, socket or terminal it writes to (`/dev/stdout`, `/proc/self/fd/1`, the
    /// file it was redirected to); another device (`/dev/null`) is not one stream whose bytes would mix.
    public func isSameStream(as path: String) -> Bool {
        var own = stat(), named = stat()
        guard fstat(descriptor, &own) == 0, stat(path, &named) == 0 else { return false }
        return own.st_dev == named.st_dev && own.st_ino == named.st_ino && (own.st_mode & S_IFMT != S_IFCHR || isTerminal)
    }

    /// Why a write failed: the reader went away (EPIPE), or anything else (a full disk, a closed descriptor).
    public struct WriteFailure: Error, Sendable {
        /// The errno of the failed write.
        public let code: Int32
        /// Which stream.
        public let stream: StandardStream

        /// The reader of a pipe went away (`| head`): the output is no longer wanted.
        public var isBrokenPipe: Bool { code == EPIPE }

        /// `cannot write to standard output: No space left on device` (local I/O, exit 7).
        public var error: ImgError {
            .io("cannot write to standard \(stream.isOutput ? "output" : "error"): \(String(cString: strerror(code)))")
        }
    }

    /// Puts `/dev/null`, opened read-only, on a standard descriptor that the caller closed (`>&-`): otherwise the
    /// next file opened (a cache entry, an output) would take its number and receive what is meant for stdout.
    /// Writes to the stand-in then fail (EBADF) and are reported like any other failure. Call first in `main`.
    public static func guardClosedDescriptors() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 {
            let opened = open("/dev/null", O_RDONLY)
            if opened >= 0, opened != descriptor {
                dup2(opened, descriptor)
                close(opened)
            }
        }
    }

    /// Writes all of `data`.
    public func write(_ data: Data) throws(WriteFailure) {
        let complete = data.withUnsafeBytes { FileWriting.writeAll(descriptor, $0) }
        if !complete { throw WriteFailure(code: errno, stream: self) }
    }

    /// Writes `text` as UTF-8.
    public func write(_ text: String) throws(WriteFailure) {
        try write(Data(text.utf8))
    }

    /// Writes `text` and forgets a failure: for messages on standard error, which have nowhere else to go.
    public func writeIgnoringFailure(_ text: String) {
        try? write(text)
    }
}

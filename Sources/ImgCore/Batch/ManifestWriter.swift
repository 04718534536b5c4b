import Foundation

/// Writes `--manifest FILE` as the batch goes: one JSON line per record, each written with one `write(2)` as soon
/// as its line is retired (nothing is buffered, so a run killed with `kill -9` leaves every record before the kill
/// whole and at most a torn last line, which `PreviousManifest` ignores). A record that can't be written whole (a
/// full disk) is cut off again, the file left at its last whole record, and no later record is written.
public final class ManifestWriter: Sendable {
    /// The `errno` that stands for "not a regular file" (Linux has no `EFTYPE`; set only by `openForAppending`).
    private static let notRegularFile = EINVAL
    public let path: String
    private let descriptor: Int32
    private let failure = Locked<ImgError?>(nil)
    /// Called once, at the first failure to write (the batch stops: what it does next could not be recorded).
    private let failureAction = Locked<(@Sendable () -> Void)?>(nil)

    /// `{shard}` in `template` becomes `K-of-N` (`0-of-1` without a shard).
    public static func expand(_ template: String, shard: Shard?) -> String {
        template.replacingOccurrences(of: "{shard}", with: (shard ?? Shard(index: 0, count: 1)).fileLabel)
    }

    /// Opens `path`, replacing what it held; with `appending`, keeps it and adds records after it (a torn last
    /// line is ended first, so the new records start on a line of their own). A new manifest is made as outputs are:
    /// a temporary in the folder (`O_EXCL`), renamed over the path at once, so a link planted there is replaced,
    /// never written through; appending opens with `O_NOFOLLOW` and only a regular file.
    public init(path: String, appending: Bool) throws(ImgError) {
        self.path = path
        let opened = appending ? Self.openForAppending(path) : Self.createReplacing(path)
        guard opened >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link" : errno == Self.notRegularFile ? "not a regular file" : String(cString: strerror(errno))
            throw .io("cannot write the manifest '\(path)': \(reason)")
        }
        descriptor = opened
        if appending, Self.endsMidLine(opened) { write(Data([0x0A])) }
    }

    /// An existing regular file at `path`, opened to append without following a link at its last component.
    private static func openForAppending(_ path: String) -> Int32 {
        let opened = open(path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard opened >= 0 else { return -1 }
        var status = stat()
        guard fstat(opened, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(opened)
            errno = notRegularFile
            return -1
        }
        return opened
    }

    /// A new file made beside `path` (`.NAME.PID-NONCE.manifest`, `O_EXCL|O_NOFOLLOW`) and renamed over it.
    private static func createReplacing(_ path: String) -> Int32 {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let temporary = folder + "/." + url.lastPathComponent + ".\(getpid())-\(UInt32.random(in: 0...UInt32.max)).manifest"
        let opened = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard opened >= 0 else { return -1 }
        guard rename(temporary, path) == 0 else {
            let error = errno
            unlink(temporary)
            close(opened)
            errno = error
            return -1
        }
        return opened
    }

    /// Whether the opened file ends with a byte other than a newline (a torn last line); reads only that byte.
    private static func endsMidLine(_ descriptor: Int32) -> Bool {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size > 0 else { return false }
        var last: UInt8 = 0
        guard pread(descriptor, &last, 1, off_t(status.st_size - 1)) == 1 else { return false }
        return last != 0x0A
    }

    deinit { close(descriptor) }

    /// The first failure to write, if any (the command reports it and exits 7).
    public var writeFailure: ImgError? { failure.withLock { $0 } }

    /// Runs `action` at the first failure to write, on the thread that met it.
    public func onFailure(_ action: @escaping @Sendable () -> Void) {
        failureAction.withLock { $0 = action }
    }

    public func write(_ record: ManifestRecord) { write(encoded(record)) }

    public func write(_ summary: ManifestSummary) { write(encoded(summary)) }

    /// Whether two paths name one file (after `{shard}` expansion): a manifest resumed into itself is appended to.
    public static func sameFile(_ first: String, _ second: String) -> Bool {
        guard let first = FileIdentity(path: first) else { return false }
        return first == FileIdentity(path: second)
    }

    private func encoded<T: Encodable>(_ value: T) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Shown by `cat` or `tail -f` as well as read: what a terminal would act on is escaped.
        var data = ((try? encoder.encode(value)) ?? Data("{}".utf8)).escapingTerminalControlsInJSON
        data.append(0x0A)
        return data
    }

    private func write(_ data: Data) {
        guard failure.withLock({ $0 }) == nil else { return }
        guard !data.withUnsafeBytes({ FileWriting.writeAll(descriptor, $0) }) else { return }
        let text = String(cString: strerror(errno))
        // The part of the record that went in is taken out again: the file ends with its last whole record (the
        // file's end is read now, as records are written one at a time: nothing else writes it meanwhile).
        let end = lseek(descriptor, 0, SEEK_END)
        if end >= 0, let newline = lastNewline(before: end) { _ = ftruncate(descriptor, newline + 1) }
        failure.withLock { $0 = $0 ?? .io("cannot write the manifest '\(path)': \(text)") }
        failureAction.withLock { $0 }?()
    }

    /// The offset of the last newline before `end`, read backwards in blocks; -1 when there is none (the file then
    /// holds no whole record: it is emptied).
    private func lastNewline(before end: off_t) -> off_t? {
        var block = [UInt8](repeating: 0, count: 4096)
        var position = end
        while position > 0 {
            let start = max(0, position - off_t(block.count))
            let count = Int(position - start)
            guard pread(descriptor, &block, count, start) == count else { return nil }
            if let index = block[..<count].lastIndex(of: 0x0A) { return start + off_t(index) }
            position = start
        }
        return -1
    }
}

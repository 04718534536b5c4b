import Foundation

/// Writes `--manifest FILE` as the batch goes: one JSON line per record, each written with one `write(2)` as soon
/// as its line is retired (nothing is buffered, so a run killed with `kill -9` leaves every record before the kill
/// whole and at most a torn last line, which `PreviousManifest` ignores).
public final class ManifestWriter: Sendable {
    public let path: String
    private let descriptor: Int32
    private let failure = Locked<ImgError?>(nil)

    /// `{shard}` in `template` becomes `K-of-N` (`0-of-1` without a shard).
    public static func expand(_ template: String, shard: Shard?) -> String {
        template.replacingOccurrences(of: "{shard}", with: (shard ?? Shard(index: 0, count: 1)).fileLabel)
    }

    /// Opens `path`, replacing what it held; with `appending`, keeps it and adds records after it (a torn last
    /// line is ended first, so the new records start on a line of their own).
    public init(path: String, appending: Bool) throws(ImgError) {
        self.path = path
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (appending ? O_APPEND : O_TRUNC)
        let opened = open(path, flags, 0o644)
        guard opened >= 0 else { throw .io("cannot write --manifest '\(path)': \(String(cString: strerror(errno)))") }
        descriptor = opened
        if appending, Self.endsMidLine(path) { write(Data([0x0A])) }
    }

    /// Whether the file at `path` ends with a byte other than a newline (a torn last line); reads only that byte.
    private static func endsMidLine(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd(), size > 0, (try? handle.seek(toOffset: size - 1)) != nil,
              let last = try? handle.read(upToCount: 1)?.first else { return false }
        return last != 0x0A
    }

    deinit { close(descriptor) }

    /// The first failure to write, if any (the batch goes on; the command reports it and exits 7).
    public var writeFailure: ImgError? { failure.withLock { $0 } }

    public func write(_ record: ManifestRecord) { write(encoded(record)) }

    public func write(_ summary: ManifestSummary) { write(encoded(summary)) }

    /// Whether two paths name one file (after `{shard}` expansion): a manifest resumed into itself is appended to.
    public static func sameFile(_ first: String, _ second: String) -> Bool {
        var a = stat(), b = stat()
        return stat(first, &a) == 0 && stat(second, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    private func encoded<T: Encodable>(_ value: T) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        data.append(0x0A)
        return data
    }

    private func write(_ data: Data) {
        guard failure.withLock({ $0 }) == nil else { return }
        if !data.withUnsafeBytes({ FileWriting.writeAll(descriptor, $0) }) {
            let text = String(cString: strerror(errno))
            failure.withLock { $0 = $0 ?? .io("cannot write --manifest '\(path)': \(text)") }
        }
    }
}

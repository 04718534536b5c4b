import CVips
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Bytes that live in a file rather than in memory: `count` bytes from `offset` of an open descriptor (a spooled
/// download, a cached original's body after the entry's header, or a large local file). Read with `pread` in
/// windows, so no more than a window is ever held. Owns the descriptor and closes it on deinit; an unlinked file
/// stays readable for as long as the region lives.
public final class FileRegion: Sendable {
    /// The open file; only read with `pread`, so sharing it between threads is safe.
    let descriptor: Int32
    /// Where the bytes start in the file.
    public let offset: Int64
    /// How many bytes there are.
    public let count: Int
    /// The integrity digest (XXH3-128, hex) of the bytes when already known (computed while spooling, or checked
    /// on reading a cache entry); nil means `integrityDigest()` computes it.
    public let knownDigest: String?

    /// Whether the `offset` bytes before the region are room left free for a cache entry's header (a download
    /// spooled for the cache, `BodySpool`), not yet given to one: `claimHeaderRoom` gives them once.
    private let headerRoom: Locked<Bool>
    /// What writes out the file's pages and drops them from the page cache when the region is done with it
    /// (`releasePagesWhenClosed`); nil (the default) just closes it.
    private let pageReleaser = Locked<PageReleaser?>(nil)

    /// The window used to stream the bytes: 1 MiB.
    static let windowSize = 1 << 20

    /// Takes ownership of `descriptor`. `headerRoom`: the bytes before `offset` are free for an entry's header.
    init(taking descriptor: Int32, offset: Int64 = 0, count: Int, digest: String? = nil, headerRoom: Bool = false) {
        self.descriptor = descriptor
        self.offset = offset
        self.count = count
        knownDigest = digest
        self.headerRoom = Locked(headerRoom && offset > 0)
    }

    /// The open file and the room before the region for an entry's header, the first time it is asked for (a
    /// spooled download then becomes its cache entry in place, not copied); nil when there is none or it was given.
    func claimHeaderRoom() -> (descriptor: Int32, room: Int)? {
        headerRoom.withLock { free in
            defer { free = false }
            return free ? (descriptor, Int(offset)) : nil
        }
    }

    /// When the region is done with, hands its file to `releaser`, which writes its pages out and drops them from
    /// the page cache (a spooled download that became a batch's cache entry: read by its rendering, then not again
    /// soon), then closes it.
    func releasePagesWhenClosed(by releaser: PageReleaser) {
        pageReleaser.withLock { $0 = releaser }
    }

    deinit {
        if let releaser = pageReleaser.withLock({ $0 }) { releaser.release(descriptor) } else { close(descriptor) }
    }

    /// Opens a whole regular file read-only (symlinks followed: local input may be one), or nil when it can't be read.
    static func open(wholeFile path: String) -> FileRegion? {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return nil
        }
        return FileRegion(taking: descriptor, count: Int(info.st_size))
    }

    /// Reads up to `buffer.count` bytes at `position` (relative to the region); returns how many were read, short
    /// only at the end of the region or on an error.
    func read(at position: Int, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let wanted = min(buffer.count, max(0, count - position))
        var done = 0
        while done < wanted {
            let got = pread(descriptor, buffer.baseAddress! + done, wanted - done, off_t(offset) + off_t(position + done))
            if got < 0, errno == EINTR { continue }
            if got <= 0 { break }
            done += got
        }
        return done
    }

    /// Calls `body` with the bytes in order, a window at a time; false when the file ended early or a read failed.
    func forEachWindow(_ body: (UnsafeRawBufferPointer) -> Void) -> Bool {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.windowSize, alignment: 16)
        defer { buffer.deallocate() }
        var position = 0
        while position < count {
            let got = read(at: position, into: buffer)
            guard got > 0 else { return false }
            body(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            position += got
        }
        return true
    }

    /// The first `length` bytes (fewer when the region is shorter): for sniffing the format.
    func prefix(_ length: Int) -> Data {
        var data = Data(count: min(length, count))
        let got = data.withUnsafeMutableBytes { read(at: 0, into: $0) }
        return data.prefix(got)
    }

    /// Every byte in memory: only for the rare input that libvips can read from a buffer alone.
    func readAll() -> Data? {
        var data = Data(count: count)
        let got = data.withUnsafeMutableBytes { read(at: 0, into: $0) }
        return got == count ? data : nil
    }

    /// The integrity digest (XXH3-128, hex) of the bytes, streamed; nil when the file can't be read whole.
    func integrityDigest() -> String? {
        if let knownDigest { return knownDigest }
        return streamedDigest(.integrity)
    }

    /// The lower-case hex SHA-256 of the bytes, streamed; nil when the file can't be read whole.
    func sha256() -> String? { streamedDigest(.sha256) }

    private func streamedDigest(_ algorithm: DigestStream.Algorithm) -> String? {
        let digest = DigestStream(algorithm)
        guard forEachWindow({ digest.update($0) }) else { return nil }
        return digest.finish()
    }

    /// Appends the bytes to `target` at its file position, in the kernel where it can (`copy_file_range`).
    func copy(to target: Int32) throws(ImgError) {
        guard imgf_copy_range(descriptor, offset, target, Int64(count)) == 0 else {
            throw .io("cannot copy \(count) bytes: \(String(cString: strerror(errno)))")
        }
    }
}

import CVips
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where a transfer puts the body as it arrives: in memory up to `EncodedBytes.memoryLimit` (or from the start when
/// the Content-Length says it will be larger), then in an unnamed temporary file, hashed (XXH3-128) as it is written
/// when it will be cached, so that caching it needs no second pass. When the file can't be made or written (a full
/// cache file system), the body moves on to `$TMPDIR`, else into memory. Written by one libcurl callback thread at a time.
final class BodySpool {
    /// The directory for the temporary file: the cache's `tmp/` (so that publishing it copies within one file
    /// system), else `$TMPDIR`.
    private let directory: String
    /// Whether to hash the bytes that go to the file.
    private let hashing: Bool
    private var memory = Data()
    private var file: Int32 = -1
    private var fileBytes = 0
    private var digest: DigestStream?
    /// Bytes waiting to be written, so that libcurl's 16 KiB pieces become 1 MiB writes.
    private var pending = Data()
    /// Bytes left free at the start of the file for a cache entry's header (`CacheEntryFile.headerRoom` when the
    /// body will be cached, so that the file can become the entry; 0 otherwise, and once the body moved elsewhere).
    private var headerRoom = 0
    /// Why spooling failed (a full disk, an unwritable directory), once it has.
    private(set) var failure: String?
    /// The directory the file moved to after a write failed in `directory`; nil while it is there.
    private var spilledTo: String?
    /// Set once no file would take the body: it stays in memory to the end.
    private var inMemoryOnly = false

    init(directory: String?, hashing: Bool = false) {
        self.directory = directory ?? BodySpool.temporaryDirectory
        self.hashing = hashing
    }

    deinit { if file >= 0 { close(file) } }

    static var temporaryDirectory: String {
        let value = ProcessInfo.processInfo.environment["TMPDIR"] ?? ""
        return value.isEmpty ? "/tmp" : value
    }

    /// Bytes received so far.
    var count: Int { file >= 0 ? fileBytes + pending.count : memory.count + pending.count }

    /// Moves to a file before the first byte when the server announces a body over the memory limit, else makes
    /// room for it in memory at once (growing by appends would copy it several times over).
    func expect(contentLength: Int64) {
        guard file < 0, memory.isEmpty, !inMemoryOnly else { return }
        if contentLength > Int64(EncodedBytes.memoryLimit) {
            _ = startFile()
        } else if contentLength > 0 {
            memory.reserveCapacity(Int(contentLength))
        }
    }

    /// Appends bytes; false when they could not be written.
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if file < 0 {
            if inMemoryOnly || memory.count + bytes.count <= EncodedBytes.memoryLimit {
                memory.append(contentsOf: bytes)
                return true
            }
            guard startFile() else { return false }
        }
        pending.append(contentsOf: bytes)
        return pending.count < FileRegion.windowSize || flush()
    }

    /// The whole body: in memory, or the spooled file with its digest.
    func finish() -> EncodedBytes? {
        guard file >= 0 else { return .memory(memory) }
        guard flush() else { return nil }
        // The last flush may have moved the body into memory.
        guard file >= 0 else { return .memory(memory) }
        let region = FileRegion(taking: file, offset: Int64(headerRoom), count: fileBytes, digest: digest?.finish(),
                                headerRoom: headerRoom > 0)
        file = -1
        return .file(region)
    }

    /// Reads a descriptor (standard input) to its end the same way: in memory when small, else spooled.
    static func read(_ descriptor: Int32, directory: String?) throws(ImgError) -> EncodedBytes {
        let spool = BodySpool(directory: directory)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: FileRegion.windowSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let got = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if got < 0, errno == EINTR { continue }
            if got < 0 { throw .io("cannot read standard input: \(String(cString: strerror(errno)))") }
            if got == 0 { break }
            guard spool.append(UnsafeRawBufferPointer(rebasing: buffer[0..<got])) else {
                throw .io(spool.failure ?? "cannot spool standard input")
            }
        }
        guard let bytes = spool.finish() else { throw .io(spool.failure ?? "cannot spool standard input") }
        return bytes
    }

    private func startFile() -> Bool {
        file = imgf_open_anonymous(directory)
        // A cache whose tmp/ can't take it (full, read-only) must not fail the fetch: try $TMPDIR.
        if file < 0, directory != BodySpool.temporaryDirectory { file = imgf_open_anonymous(BodySpool.temporaryDirectory) }
        if hashing {
            digest = DigestStream()
            // The body starts after room for the entry's header (a hole until the header is written there).
            if file >= 0, lseek(file, off_t(CacheEntryFile.headerRoom), SEEK_SET) >= 0 { headerRoom = CacheEntryFile.headerRoom }
        }
        pending = memory
        memory = Data()
        // When neither takes a file, flush keeps the body in memory (a transfer stops it at --max-bytes).
        return flush()
    }

    /// Writes the pending bytes to the file. When that fails part way (the cache's file system is full), the bytes
    /// so far move to a file in `$TMPDIR`, else into memory, and the body goes on there: a full cache costs the
    /// caching, not the fetch.
    private func flush() -> Bool {
        if !pending.isEmpty { pending.withUnsafeBytes { digest?.update($0) } }
        if file >= 0, pending.withUnsafeBytes({ FileWriting.writeAll(file, $0) }) {
            fileBytes += pending.count
            pending.removeAll(keepingCapacity: true)
            return true
        }
        let reason = file >= 0 ? String(cString: strerror(errno)) : "no temporary file"
        return moveOut(reason: reason)
    }

    /// Moves the spooled bytes and the pending ones to `$TMPDIR` (when the file wasn't there already), else memory.
    private func moveOut(reason: String) -> Bool {
        if file >= 0, spilledTo != BodySpool.temporaryDirectory, directory != BodySpool.temporaryDirectory {
            let other = imgf_open_anonymous(BodySpool.temporaryDirectory)
            if other >= 0, imgf_copy_range(file, Int64(headerRoom), other, Int64(fileBytes)) == 0,
               pending.withUnsafeBytes({ FileWriting.writeAll(other, $0) }) {
                close(file)
                file = other
                headerRoom = 0
                spilledTo = BodySpool.temporaryDirectory
                fileBytes += pending.count
                pending.removeAll(keepingCapacity: true)
                return true
            }
            if other >= 0 { close(other) }
        }
        var whole = Data()
        if file >= 0 {
            guard let written = EntryIO.readPrefix(file, count: fileBytes, from: headerRoom), written.count == fileBytes else {
                failure = "cannot spool the body in \(directory): \(reason)"
                return false
            }
            whole = written
            close(file)
            file = -1
            headerRoom = 0
        }
        whole.append(pending)
        memory = whole
        pending = Data()
        fileBytes = 0
        inMemoryOnly = true
        return true
    }
}

import CVips
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The system calls behind entry files: no symlinks followed, temporaries created exclusively, times set explicitly.
enum EntryIO {
    /// The expiry stored for entries that never expire: the last second of year 9999.
    static let never: Double = 253_402_300_799

    /// Expiries from here on read back as "never": file systems clamp year 9999 (ext4 stops in 2446).
    static let neverThreshold: Double = 13_569_465_600 // 2400-01-01

    static func expiry(now: Date, ttl: Int64?) -> Double {
        guard let ttl else { return never }
        return min(never, now.timeIntervalSince1970 + Double(ttl))
    }

    /// Linux's `O_NOATIME` and `UTIME_OMIT` (hidden behind `_GNU_SOURCE` in Glibc's Swift module).
    private static let noAccessTime: Int32 = 0o1_000_000
    private static let omitTime = (1 << 30) - 2

    /// An entry opened for reading: its descriptor (the caller closes it), size, inode and times.
    struct OpenEntry {
        var descriptor: Int32
        var size: Int
        var inode: UInt64
        var times: (accessed: Double, modified: Double)
        /// The atime as it was, and whether reading leaves it alone (`O_NOATIME`, only for the file's owner).
        var accessTime: timespec
        var readsKeepAccessTime: Bool
    }

    /// Opens a regular file (`name` in the cache directory) for reading without following a symlink or changing its atime (the last access we
    /// record ourselves: under `relatime` a plain read would overwrite it) where `O_NOATIME` is permitted.
    /// `O_NONBLOCK`: a FIFO (or device) at an entry's path must not make the open wait; it is then refused as not a
    /// regular file (reads of a regular file ignore the flag).
    static func openEntry(_ name: String, in root: CacheRoot) -> OpenEntry? {
        var descriptor = root.openFile(name, O_RDONLY | O_NONBLOCK | noAccessTime)
        let keepsAccessTime = descriptor >= 0
        if !keepsAccessTime, errno == EPERM { descriptor = root.openFile(name, O_RDONLY | O_NONBLOCK) }
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            return nil
        }
        return OpenEntry(descriptor: descriptor, size: Int(info.st_size), inode: UInt64(info.st_ino),
                         times: (seconds(info.st_atim), seconds(info.st_mtim)), accessTime: info.st_atim,
                         readsKeepAccessTime: keepsAccessTime)
    }

    /// Up to `count` bytes of an open file from `start` (default its beginning); nil on a read error.
    static func readPrefix(_ descriptor: Int32, count: Int, from start: Int = 0) -> Data? {
        var data = Data(count: count)
        let read = data.withUnsafeMutableBytes { raw -> Int in
            var offset = 0
            while offset < count {
                let got = pread(descriptor, raw.baseAddress! + offset, count - offset, off_t(start + offset))
                if got < 0, errno == EINTR { continue }
                if got < 0 { return -1 }
                if got == 0 { break }
                offset += got
            }
            return offset
        }
        return read < 0 ? nil : data.prefix(read)
    }

    /// Reads up to `limit` bytes (nil: the whole file) of a regular file (`name` in the cache directory) without changing its access time:
    /// opened with `O_NOATIME` where permitted, else read normally and the atime put back to what it was.
    /// Returns the bytes and the file's size and inode; nil when it can't be opened.
    static func readUntouched(_ name: String, in root: CacheRoot, limit: Int? = nil) -> (data: Data, size: Int, inode: UInt64)? {
        guard let entry = openEntry(name, in: root) else { return nil }
        defer { close(entry.descriptor) }
        let data = readPrefix(entry.descriptor, count: min(entry.size, limit ?? entry.size)) ?? Data()
        if !entry.readsKeepAccessTime {
            var after = stat()
            if fstat(entry.descriptor, &after) == 0, seconds(after.st_atim) != seconds(entry.accessTime) {
                var times = [entry.accessTime, timespec(tv_sec: 0, tv_nsec: omitTime)]
                futimens(entry.descriptor, &times)
            }
        }
        return (data, entry.size, entry.inode)
    }

    static func seconds(_ time: timespec) -> Double { Double(time.tv_sec) + Double(time.tv_nsec) / 1e9 }

    static func timespecOf(_ seconds: Double) -> timespec {
        let whole = seconds.rounded(.down)
        return timespec(tv_sec: Int(whole), tv_nsec: Int((seconds - whole) * 1e9))
    }

    /// Makes a download spooled for the cache its own entry: writes the header into the room left before the body,
    /// sets the times and links the unnamed file in as a temporary `tmp/PID-RANDOM.tmp` of the cache directory;
    /// returns that name.
    /// Nil when it can't (no room, or already used by another entry; a header too long for it; the file elsewhere
    /// or not unnamed): the caller copies the body instead. No fsync, as for `writeTemporary`. `releasingPages`
    /// (default nil): what releases the file's pages from the page cache once the region is done with (it is still
    /// read by the rendering).
    static func linkSpooled(_ region: FileRegion, metadata: CacheEntryMetadata, in root: CacheRoot, accessed: Double,
                            expires: Double, releasingPages releaser: PageReleaser? = nil) -> String? {
        guard let (descriptor, room) = region.claimHeaderRoom(),
              let header = CacheEntryFile.encodeHeader(metadata, filling: room) else { return nil }
        let written = header.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        guard written == header.count else { return nil }
        var times = [timespecOf(accessed), timespecOf(expires)]
        futimens(descriptor, &times)
        let name = temporaryName()
        guard imgf_link_unnamed_at(descriptor, root.descriptor, name) == 0 else { return nil }
        if let releaser { region.releasePagesWhenClosed(by: releaser) }
        return name
    }

    /// A new temporary's name in the cache directory: `tmp/PID-RANDOM.tmp`.
    static func temporaryName() -> String { "tmp/\(getpid())-\(UInt64.random(in: 0...UInt64.max)).tmp" }

    /// Writes `parts` in order (a header and a body, each from where it lies), then the bytes of `region` if given
    /// (copied in the kernel, never through memory), to a new temporary file `tmp/PID-RANDOM.tmp` of the cache
    /// directory (created exclusively, 0600) and returns its name.
    /// No fsync: a torn file after a power loss fails its digest check and is treated as a miss.
    /// `releasingPages` (default nil): what writes the file's pages out and drops them from the page cache, on its
    /// own thread (`PageReleaser`), for a large entry not read again soon.
    static func writeTemporary(_ parts: Data..., then region: FileRegion? = nil, in root: CacheRoot, accessed: Double,
                               expires: Double, releasingPages releaser: PageReleaser? = nil) throws(ImgError) -> String {
        let name = temporaryName()
        let descriptor = root.openFile(name, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        guard descriptor >= 0 else { throw .io("cannot write \(root.shown(name)): \(String(cString: strerror(errno)))") }
        var failure = FileWriting.write(parts, then: region, to: descriptor)
        if failure == nil {
            var times = [timespecOf(accessed), timespecOf(expires)]
            futimens(descriptor, &times)
            if let releaser {
                let copy = dup(descriptor)
                if copy >= 0 { releaser.release(copy) }
            }
        }
        if close(descriptor) != 0, failure == nil { failure = String(cString: strerror(errno)) }
        if let failure {
            root.unlink(name)
            throw .io("cannot write \(root.shown(name)): \(failure)")
        }
        return name
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A cache directory opened once (`TrustedPath`: checked from `/` down, `O_DIRECTORY|O_NOFOLLOW`), and every file
/// operation in it made relative to that descriptor (`openat`, `mkdirat`, `renameat`, `unlinkat`, `fstatat`,
/// `utimensat`), never by its path: renaming or replacing the path, or any folder on the way to it, afterwards
/// cannot redirect a read or a write. Names given to its methods are relative to the directory
/// (`entries/ab/<hash>/original`); below it, only this user (and root) can make or rename anything.
/// `path` is what messages show.
public final class CacheRoot: @unchecked Sendable { // owns a directory descriptor, closed once in deinit
    /// The directory as given (made absolute for nothing: messages show it as the user wrote it).
    public let path: String
    /// The open directory.
    let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        (self.path, self.descriptor) = (path, descriptor)
    }

    deinit { close(descriptor) }

    /// Opens the directory at `directory`, refusing it (`ImgError.unsafeCacheDirectory`, exit 7) when another user
    /// could swap it or a folder on the way. With `create`, makes what is missing (mode 0700) and the cache's own
    /// folders (`entries/`, `tmp/`, `locks/`) and `CACHEDIR.TAG`; without, nil when it does not exist. A folder that
    /// can't be made or opened (a read-only file system, no permission) is `.cacheUnavailable`.
    public static func open(_ directory: String, create: Bool) throws(ImgError) -> CacheRoot? {
        let descriptor: Int32?
        do {
            descriptor = try TrustedPath.openDirectory(directory, create: create)
        } catch {
            switch error {
            case .unsafe(let refusal):
                throw .unsafeCacheDirectory(refusal)
            case .system(let path, let code, let creating):
                let reason = String(cString: strerror(code))
                if creating { throw .cacheUnavailable("cannot create \(path): \(reason)") }
                throw .cacheUnavailable("cannot open the cache directory \(directory): \(path): \(reason)")
            }
        }
        guard let descriptor else { return nil }
        let root = CacheRoot(path: directory, descriptor: descriptor)
        if create { try root.prepareFolders() }
        return root
    }

    /// Makes `entries/`, `tmp/` and `locks/` (0700) where missing, and `CACHEDIR.TAG` (0644) for backup tools.
    func prepareFolders() throws(ImgError) {
        for folder in ["entries", "tmp", "locks"] where mkdirat(descriptor, folder, 0o700) != 0 && errno != EEXIST {
            throw .cacheUnavailable("cannot create \(shown(folder)): \(String(cString: strerror(errno)))")
        }
        let tag = openat(descriptor, "CACHEDIR.TAG", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard tag >= 0 else { return }
        let text = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by imgfetch.\n# For information about cache directory tags, see https://bford.info/cachedir/\n"
        // A tag that can't be written costs nothing but the hint to backup tools.
        _ = text.withCString { write(tag, $0, strlen($0)) }
        close(tag)
    }

    /// The path messages show for a name in the directory.
    public func shown(_ name: String) -> String { path.hasSuffix("/") ? path + name : path + "/" + name }

    /// The directory as a path that the kernel resolves through the open descriptor (`/proc/self/fd/N/NAME`), for
    /// code that takes a path (the download spool): it reaches the folder opened, wherever its path leads now.
    func anchoredPath(_ name: String) -> String { "/proc/self/fd/\(descriptor)/\(name)" }

    // MARK: system calls relative to the directory (never following a link in the last component)

    func openFile(_ name: String, _ flags: Int32, mode: mode_t = 0o600) -> Int32 {
        openat(descriptor, name, flags | O_NOFOLLOW | O_CLOEXEC, mode)
    }

    func openFolder(_ name: String) -> Int32 {
        openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    }

    @discardableResult
    func unlink(_ name: String) -> Int32 { unlinkat(descriptor, name, 0) }

    @discardableResult
    func removeFolder(_ name: String) -> Int32 { unlinkat(descriptor, name, AT_REMOVEDIR) }

    @discardableResult
    func rename(_ from: String, _ to: String) -> Int32 { renameat(descriptor, from, descriptor, to) }

    /// `lstat` of a name: nil when it can't be had.
    func status(_ name: String) -> stat? {
        var info = stat()
        return fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info : nil
    }

    func exists(_ name: String) -> Bool { status(name) != nil }

    /// Why nothing in the folder `name` could be made, renamed or removed now, found without trying (`faccessat`
    /// of write and search, for this process's effective user: what an `unlinkat` in it would meet): 0 when it
    /// could, else the `errno` (`EACCES` for a folder not writable, `EROFS` on a read-only file system).
    func refusal(toChange name: String) -> Int32 {
        faccessat(descriptor, name, W_OK | X_OK, AT_EACCESS) == 0 ? 0 : errno
    }

    /// Sets atime (last access) and mtime (expiry) of a file, not following a symlink; false only when it is not
    /// there (a file that can't be changed, on a read-only cache, is there).
    @discardableResult
    func setTimes(_ name: String, accessed: Double, expires: Double) -> Bool {
        var times = [EntryIO.timespecOf(accessed), EntryIO.timespecOf(expires)]
        return utimensat(descriptor, name, &times, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT
    }

    /// `mkdir -p` of a folder below the directory, each new folder 0700.
    func makeFolders(_ name: String) throws(ImgError) {
        var made = ""
        for component in name.split(separator: "/") {
            made += made.isEmpty ? String(component) : "/" + component
            if mkdirat(descriptor, made, 0o700) != 0, errno != EEXIST {
                throw .io("cannot create \(shown(made)): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The names in a folder below the directory, without `.` and `..`; empty when it can't be read.
    func names(in folder: String) -> [String] {
        let opened = openFolder(folder)
        guard opened >= 0 else { return [] }
        defer { close(opened) }
        return DirectoryListing.children(of: opened).map(\.name)
    }

    /// A new name for a folder about to be deleted, in the cache's `tmp/`: `tmp/PID-NONCE.removing`.
    func removalName() -> String { "tmp/\(getpid())-\(UInt64.random(in: 0...UInt64.max)).removing" }
}

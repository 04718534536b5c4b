import CRenderer
import Foundation
import ImgCore
#if canImport(Glibc)
import Glibc
#endif

/// The renderer's folder, open once (`O_DIRECTORY|O_NOFOLLOW`) and used through its descriptor only, so that it
/// can't be swapped for another after it was checked. It must belong to this user and be writable by no one else:
/// then no other user can plant or squat a socket in it. Created (mode 0700, with its parents) when asked.
final class RendererDirectory: Sendable {
    let path: String
    let descriptor: Int32

    /// Why a folder is refused.
    enum Problem: Error, Equatable {
        case cannotOpen(path: String, errno: Int32)
        case notOwned(path: String, owner: uid_t)
        case writableByOthers(path: String, mode: mode_t)

        /// The refusal as the CLI shows it: one line.
        var error: ImgError {
            switch self {
            case .cannotOpen(let path, let code):
                .io("cannot use the renderer folder \(path): \(String(cString: strerror(code)))")
            case .notOwned(let path, let owner):
                .io("refusing the renderer folder \(path): it belongs to uid \(owner), not to this user")
            case .writableByOthers(let path, let mode):
                .io("refusing the renderer folder \(path): others may write to it (mode \(String(mode & 0o7777, radix: 8)))")
            }
        }
    }

    /// Opens (and, with `create`, first makes) the folder at `path` and checks it.
    init(_ path: String, create: Bool) throws(Problem) {
        if create { Self.makePath(path) }
        let descriptor = imgf_open_directory(path)
        guard descriptor >= 0 else { throw .cannotOpen(path: path, errno: errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            let code = errno
            close(descriptor)
            throw .cannotOpen(path: path, errno: code)
        }
        if status.st_uid != geteuid() {
            close(descriptor)
            throw .notOwned(path: path, owner: status.st_uid)
        }
        if status.st_mode & 0o022 != 0 {
            close(descriptor)
            throw .writableByOthers(path: path, mode: status.st_mode)
        }
        (self.path, self.descriptor) = (path, descriptor)
    }

    deinit { close(descriptor) }

    /// Makes the folder and its missing parents, mode 0700 (what exists is left as it is, and checked by the caller).
    private static func makePath(_ path: String) {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            _ = mkdir(prefix, 0o700)
        }
    }

    /// The names in the folder.
    func names() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd/\(descriptor)")) ?? []
    }

    /// Removes a file of the folder (never through a link: unlinkat removes the name itself).
    func remove(_ name: String) { _ = unlinkat(descriptor, name, 0) }

    /// Takes the lock file `name` (created 0600) for as long as the returned descriptor is open, and writes this
    /// process's id in it (`holder` reads it: the renderer is found by its lock even when its socket file is gone);
    /// nil when another process holds it (a renderer runs at that name) or it can't be made.
    func lock(_ name: String) -> Int32? {
        while true {
            let lock = openat(descriptor, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard lock >= 0 else { return nil }
            guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
                close(lock)
                return nil
            }
            // A holder that was leaving may have removed the file between our open and our lock: lock the file
            // that is there now.
            var held = stat(), current = stat()
            if fstat(lock, &held) == 0, fstatat(descriptor, name, &current, AT_SYMLINK_NOFOLLOW) == 0,
               held.st_ino == current.st_ino, held.st_dev == current.st_dev {
                let record = "\(getpid())\n"
                _ = ftruncate(lock, 0)
                _ = record.withCString { pwrite(lock, $0, strlen($0), 0) }
                return lock
            }
            close(lock)
        }
    }

    /// Whether some process holds the lock file `name` (its lock alone: `holder` also reads who).
    func isLocked(_ name: String) -> Bool {
        let lock = openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard lock >= 0 else { return false }
        defer { close(lock) }
        return flock(lock, LOCK_SH | LOCK_NB) != 0
    }

    /// The process that holds the lock file `name`, as it wrote itself in it: nil when nobody holds it, 0 while
    /// its holder has not written its id yet (it has just taken it).
    func holder(_ name: String) -> Int32? {
        let lock = openat(descriptor, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard lock >= 0 else { return nil }
        defer { close(lock) }
        guard flock(lock, LOCK_SH | LOCK_NB) != 0 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = read(lock, &bytes, bytes.count)
        let text = count > 0 ? String(decoding: bytes[..<count], as: UTF8.self) : ""
        return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0 > 0 ? $0 : nil } ?? 0
    }
}

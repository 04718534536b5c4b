import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Opens a private directory once, walking to it from `/` one folder at a time (`openat` on the folder before,
/// never by path), so that what is checked is what is opened: sshd's StrictModes for a directory. Every folder on
/// the way must belong to this user or root and be writable by no one else unless it is sticky (`/tmp`); the
/// directory itself must belong to this user, be writable by no one else, and not be a symbolic link. A symbolic
/// link on the way is followed (resolved once, here) when it belongs to this user or root, refused otherwise.
/// Missing folders are made (mode 0700) when asked, each in the folder checked before it.
public enum TrustedPath {
    /// Why a directory could not be opened.
    public enum Failure: Error, Sendable, Equatable {
        /// Another user could swap it or a folder on the way to it.
        case unsafe(UnsafeDirectory)
        /// A system call refused: `path` (the directory or the folder on the way), the `errno`, and whether it was
        /// the making of a missing folder.
        case system(path: String, code: Int32, creating: Bool)
    }

    /// Linux's `O_PATH` (hidden behind `_GNU_SOURCE` in Glibc's Swift module): a folder reached through, not read,
    /// so that an ancestor this user may only search (mode 0711) can be walked.
    static let pathOnly: Int32 = 0o10_000_000

    /// The most symbolic links followed on the way, as the kernel's own limit: 40.
    static let linkLimit = 40

    /// `path` made absolute against the working directory (only joined: nothing is resolved).
    public static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }

    /// Opens `directory` (read-only, `O_DIRECTORY|O_NOFOLLOW|O_CLOEXEC`) after checking it and every folder on the way
    /// to it; the caller owns the descriptor. Nil when it (or a folder on the way) does not exist and `create` is
    /// false; with `create`, what is missing is made with `mode` (default 0700).
    public static func openDirectory(_ directory: String, create: Bool, mode: mode_t = 0o700) throws(Failure) -> Int32? {
        var walk = Walk(directory: directory, create: create, mode: mode)
        defer { walk.closeAll() }
        return try walk.run()
    }

    /// One walk: the folders opened so far (`/` first), and the names still to go.
    private struct Walk {
        let directory: String
        let create: Bool
        let mode: mode_t
        var opened: [(descriptor: Int32, path: String)] = []
        var pending: [String]
        var links = 0

        init(directory: String, create: Bool, mode: mode_t) {
            (self.directory, self.create, self.mode) = (directory, create, mode)
            pending = Self.components(TrustedPath.absolute(directory))
        }

        static func components(_ path: String) -> [String] {
            path.split(separator: "/").map(String.init).filter { $0 != "." }
        }

        mutating func closeAll() {
            for folder in opened { close(folder.descriptor) }
            opened.removeAll()
        }

        mutating func run() throws(Failure) -> Int32? {
            try openRoot()
            var retries = 0
            while let name = pending.first {
                pending.removeFirst()
                if name == ".." {
                    if opened.count > 1 { close(opened.removeLast().descriptor) }
                    continue
                }
                switch try step(name) {
                case .done: retries = 0
                case .missing: return nil
                case .again:
                    // Made meanwhile, or swapped between the stat and the open: look again, a few times.
                    retries += 1
                    if retries > 8 { throw .system(path: join(name), code: EAGAIN, creating: false) }
                    pending.insert(name, at: 0)
                }
            }
            return try openFinal()
        }

        private mutating func openRoot() throws(Failure) {
            let root = open("/", pathOnly | O_DIRECTORY | O_CLOEXEC)
            guard root >= 0 else { throw .system(path: "/", code: errno, creating: false) }
            opened.append((root, "/"))
            try checkAncestor(root, path: "/")
        }

        private func join(_ name: String) -> String {
            let parent = opened.last?.path ?? "/"
            return parent == "/" ? "/" + name : parent + "/" + name
        }

        private enum Step { case done, missing, again }

        private mutating func step(_ name: String) throws(Failure) -> Step {
            let parent = opened[opened.count - 1].descriptor, path = join(name)
            var info = stat()
            guard fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                guard errno == ENOENT else { throw .system(path: path, code: errno, creating: false) }
                guard create else { return .missing }
                if mkdirat(parent, name, mode) != 0, errno != EEXIST { throw .system(path: path, code: errno, creating: true) }
                return .again
            }
            switch info.st_mode & S_IFMT {
            case S_IFLNK:
                try follow(name, in: parent, path: path, owner: info.st_uid)
                return .done
            case S_IFDIR:
                let descriptor = openat(parent, name, pathOnly | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                guard descriptor >= 0 else {
                    if errno == ELOOP || errno == ENOTDIR || errno == ENOENT { return .again }
                    throw .system(path: path, code: errno, creating: false)
                }
                opened.append((descriptor, path))
                // The directory itself is checked (more strictly) once opened to be read.
                if !pending.isEmpty { try checkAncestor(descriptor, path: path) }
                return .done
            default:
                throw .unsafe(UnsafeDirectory(directory: directory, path: path, reason: .notDirectory,
                                              isAncestor: !pending.isEmpty))
            }
        }

        /// Puts a link's target in its place: refused when it is the directory itself, or another user's.
        private mutating func follow(_ name: String, in parent: Int32, path: String, owner: uid_t) throws(Failure) {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlinkat(parent, name, &buffer, buffer.count - 1)
            let target = count > 0 ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
            if pending.isEmpty {
                throw .unsafe(UnsafeDirectory(directory: directory, path: path, reason: .symbolicLink(target: target),
                                              isAncestor: false))
            }
            guard owner == geteuid() || owner == 0 else {
                throw .unsafe(UnsafeDirectory(directory: directory, path: path, reason: .foreignLink(owner: owner), isAncestor: true))
            }
            links += 1
            guard links <= linkLimit, !target.isEmpty else {
                throw .unsafe(UnsafeDirectory(directory: directory, path: path, reason: .tooManyLinks, isAncestor: true))
            }
            if target.hasPrefix("/") {
                while opened.count > 1 { close(opened.removeLast().descriptor) }
            }
            pending = Self.components(target) + pending
        }

        /// An ancestor must be this user's or root's, and writable by others only if sticky.
        private func checkAncestor(_ descriptor: Int32, path: String) throws(Failure) {
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { throw .system(path: path, code: errno, creating: false) }
            if info.st_uid != geteuid(), info.st_uid != 0 {
                throw .unsafe(UnsafeDirectory(directory: directory, path: path, reason: .foreignOwner(owner: info.st_uid),
                                              isAncestor: true))
            }
            if info.st_mode & 0o022 != 0, info.st_mode & S_ISVTX == 0 {
                throw .unsafe(UnsafeDirectory(directory: directory, path: path, reason: .writableByOthers(mode: info.st_mode),
                                              isAncestor: true))
            }
        }

        /// The directory itself, opened to be read: this user's, and writable by no one else.
        private mutating func openFinal() throws(Failure) -> Int32 {
            let last = opened[opened.count - 1]
            let descriptor = openat(last.descriptor, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard descriptor >= 0 else { throw .system(path: last.path, code: errno, creating: false) }
            var info = stat()
            let refusal: UnsafeDirectory.Reason? = if fstat(descriptor, &info) != 0 {
                nil
            } else if info.st_uid != geteuid() {
                .foreignOwner(owner: info.st_uid)
            } else if info.st_mode & 0o022 != 0 {
                .writableByOthers(mode: info.st_mode)
            } else {
                nil
            }
            if let refusal {
                close(descriptor)
                throw .unsafe(UnsafeDirectory(directory: directory, path: last.path, reason: refusal, isAncestor: false))
            }
            return descriptor
        }
    }
}

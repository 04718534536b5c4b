#if canImport(Glibc)
import Glibc
#endif

/// Something at an entry's name (`entries/XX/HASH/original` or `HASH.variant`) that is not a regular file: a
/// directory, a symbolic link, a FIFO, a socket or a device. It is no entry (a lookup misses it) but it stands where
/// every fetch of its URL would write one, so that nothing of that URL can be cached: `cache verify` lists it as
/// damaged, `--repair`, `clear` and `remove` remove it (a link itself, never its target; a directory only when empty).
public struct IrregularEntry: Sendable, Equatable {
    /// The entry folder below `entries/`: `XX/<sha256(original key)>`.
    public var folder: String
    /// `original` or `<sha256(variant key)>.variant`.
    public var name: String
    /// The file type bits of its `lstat` (`S_IFDIR`, `S_IFLNK`, …).
    public var type: UInt32
    public var inode: UInt64
    /// Its last access (its `lstat`'s atime), in seconds since 1970.
    public var lastAccess: Double

    public init(folder: String, name: String, type: UInt32, inode: UInt64, lastAccess: Double) {
        (self.folder, self.name, self.type, self.inode, self.lastAccess) = (folder, name, type, inode, lastAccess)
    }

    public var isOriginal: Bool { name == "original" }

    /// Its name in the cache directory: `entries/XX/<hash>/NAME`.
    var relativeName: String { "entries/\(folder)/\(name)" }

    /// What it is, in words, from its file type bits: `a directory`, `a symbolic link`, `a FIFO`, `a socket`,
    /// `a device`.
    public var kind: String {
        switch type {
        case S_IFDIR: "a directory"
        case S_IFLNK: "a symbolic link"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        default: "a device"
        }
    }

    /// Removes what is at an entry's name `name` of the open folder `folder` when it is not a regular file: a link,
    /// FIFO, socket or device is unlinked (a link itself, never its target), a directory removed only when empty
    /// (what it holds is not imgfetch's to delete). `inode`, when given, must still be the one found. Returns 0 when
    /// removed, else the `errno` (`ENOTEMPTY` for a directory that holds anything; `ESTALE` when it was replaced).
    static func remove(_ name: String, in folder: Int32, inode: UInt64? = nil) -> Int32 {
        var info = stat()
        guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { return errno }
        let type = info.st_mode & S_IFMT
        guard type != S_IFREG, inode.map({ $0 == UInt64(info.st_ino) }) ?? true else { return ESTALE }
        return unlinkat(folder, name, type == S_IFDIR ? AT_REMOVEDIR : 0) == 0 ? 0 : errno
    }

    /// What `remove` would return for what is at `name` of the open folder `folder` (of `type`), found without
    /// removing it: `ENOTEMPTY` for a directory that holds anything, else 0.
    static func forecastRemoval(_ name: String, in folder: Int32, type: mode_t) -> Int32 {
        guard type == S_IFDIR else { return 0 }
        let child = openat(folder, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard child >= 0 else { return errno }
        defer { close(child) }
        return DirectoryListing.children(of: child).isEmpty ? 0 : ENOTEMPTY
    }
}

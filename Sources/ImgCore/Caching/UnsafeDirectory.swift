#if canImport(Glibc)
import Glibc
#endif

/// Why a private directory (the cache directory, the warm renderer's folder) is refused: which folder on the way
/// to it (`path`, the directory itself or one of its ancestors) and what is wrong with it. Another user who can
/// rename what a folder holds can swap the directory (or any folder below) for one of her own while it is in use.
public struct UnsafeDirectory: Error, Sendable, Equatable {
    public enum Reason: Sendable, Equatable {
        /// The directory itself is a symbolic link (to `target`): cleaning would act on the folder it points to.
        case symbolicLink(target: String)
        /// A symbolic link on the way belongs to another user (`owner`), who may point it elsewhere.
        case foreignLink(owner: UInt32)
        /// The folder belongs to another user (`owner`; for an ancestor, neither this user nor root).
        case foreignOwner(owner: UInt32)
        /// Group or others may write to the folder (`mode`): for an ancestor, without the sticky bit (such as /tmp
        /// has, which lets no one but its owner rename what another user made).
        case writableByOthers(mode: UInt32)
        /// Something on the way is neither a folder nor a symbolic link.
        case notDirectory
        /// More than 40 symbolic links on the way (a loop).
        case tooManyLinks
    }

    /// The directory asked for, as given.
    public var directory: String
    /// The folder (or link) refused: `directory` itself, or an ancestor as reached from `/`.
    public var path: String
    public var reason: Reason
    /// Whether the refused folder is an ancestor (or a link on the way), not the directory itself.
    public var isAncestor: Bool

    public init(directory: String, path: String, reason: Reason, isAncestor: Bool) {
        (self.directory, self.path, self.reason, self.isAncestor) = (directory, path, reason, isAncestor)
    }

    /// What is wrong, in words: "it is a symbolic link to /x", "/srv/shared is writable by others (mode 777) and not sticky".
    public var problem: String {
        switch reason {
        case .symbolicLink(let target):
            return "it is a symbolic link\(target.isEmpty ? "" : " to \(target)"); give the directory itself"
        case .foreignLink(let owner):
            return "\(path) is a symbolic link owned by uid \(owner), who may point it elsewhere"
        case .foreignOwner(let owner):
            return isAncestor
                ? "\(path) belongs to uid \(owner), who may rename what it holds"
                : "owned by uid \(owner), not by you (uid \(geteuid()))"
        case .writableByOthers(let mode):
            let octal = String(mode & 0o7777, radix: 8)
            return isAncestor
                ? "\(path) is writable by others (mode \(octal)) and not sticky, so they may rename what it holds"
                : "it is group or world writable (mode \(octal)); chmod 700 it"
        case .notDirectory:
            return isAncestor ? "\(path) is not a directory" : "it is not a directory"
        case .tooManyLinks:
            return "too many symbolic links on the way to it"
        }
    }
}

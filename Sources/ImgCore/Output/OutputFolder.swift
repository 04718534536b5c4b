import CVips
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A folder outputs are written into, opened once (`O_DIRECTORY`, and `O_NOFOLLOW` for `-O DIR`), with every name
/// resolved relative to it (`openat`, `linkat`, `renameat`). An output is made whole under a temporary and then
/// takes its name in one step: a symbolic link, FIFO or device planted at the name is replaced, never written
/// through or opened.
///
/// Temporaries are unnamed (`O_TMPFILE`) where the file system has them, so a process killed at any moment leaves
/// nothing; elsewhere (and past `unnamedLimit` files held open at once) they are `.imgfetch-PID-NONCE.part`,
/// and opening the folder removes those whose process no longer exists (abandoned by a killed run).
public final class OutputFolder: @unchecked Sendable { // owns a directory descriptor, closed on deinit
    /// The folder as given.
    public let path: String
    let descriptor: Int32
    /// The folders made to open it (`OutputWriter.prepareDirectory`), outermost first; none when it existed.
    let made: [String]
    /// Unnamed files held open at once before further temporaries are named; default 256 (each holds a descriptor
    /// until its output is named, and a batch may hold a window of them).
    static let unnamedLimit = 256
    private let unnamedOpen = Locked(0)
    private let unnamedSupported: Bool
    private let spaceFailure = Locked<String?>(nil)

    /// Why the folder's file system refused to take more (`ENOSPC`, `EDQUOT`: the system's words), once a write
    /// into it failed so; nil until then. A batch stops starting lines on it: every later line would fail alike.
    public var outOfSpace: String? { spaceFailure.withLock { $0 } }

    /// Remembers an `errno` of a failed write when it says the file system is full or over quota.
    private func noteFailure(_ code: Int32) {
        guard code == ENOSPC || code == EDQUOT else { return }
        spaceFailure.withLock { if $0 == nil { $0 = String(cString: strerror(code)) } }
    }

    /// Opens `path`. `followingLink`: whether a symbolic link as the folder's last component is followed (the
    /// folder of `-o FILE`, already resolved) or refused (`-O DIR`, exit 7). Removes abandoned temporaries in it.
    public init(opening path: String, followingLink: Bool = false, made: [String] = []) throws(ImgError) {
        (self.path, self.made) = (path, made)
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followingLink ? 0 : O_NOFOLLOW)
        let opened = open(OutputFolder.withoutTrailingSlashes(path), flags)
        guard opened >= 0 else {
            if errno == ELOOP || errno == ENOTDIR, !followingLink, OutputFolder.isSymbolicLink(path) {
                throw .io("cannot write into output directory \(path): it is a symbolic link; give the directory it points to")
            }
            throw .io("cannot write into output directory \(path): \(String(cString: strerror(errno)))")
        }
        descriptor = opened
        unnamedSupported = access("/proc/self/fd", F_OK) == 0
        removeAbandonedTemporaries()
    }

    deinit { close(descriptor) }

    /// Removes the folders made to open this one while they are still empty: a command refused after the folder
    /// was prepared leaves nothing behind.
    public func removeIfUnused() {
        OutputFolder.remove(made)
    }

    /// Removes the empty folders of `made`, innermost first (`rmdir` leaves one that is not empty).
    static func remove(_ made: [String]) {
        for folder in made.reversed() where rmdir(folder) != 0 { return }
    }

    /// `path` without its trailing slashes (`/` stays): `link/` would follow the link.
    private static func withoutTrailingSlashes(_ path: String) -> String {
        var named = path
        while named.count > 1, named.hasSuffix("/") { named.removeLast() }
        return named
    }

    private static func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(withoutTrailingSlashes(path), &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    // MARK: writing

    /// Writes `bytes` whole to a new temporary in the folder (a file region is copied in the kernel), lets `finish`
    /// act on its descriptor (permissions, owner), and returns it for `commit`. Nothing is left on failure.
    public func stage(_ bytes: EncodedBytes, mode: mode_t = 0o644, shownAs: String? = nil,
                      finish: (Int32) -> Void = { _ in }) throws(ImgError) -> StagedOutput {
        let shown = shownAs ?? "a file in \(path)"
        let (target, temporaryName) = try create(mode: mode, shownAs: shown)
        var failure: String?
        switch bytes {
        case .memory(let data):
            if !data.withUnsafeBytes({ FileWriting.writeAll(target, $0) }) {
                noteFailure(errno)
                failure = String(cString: strerror(errno))
            }
        case .file(let region):
            do { try region.copy(to: target) } catch {
                noteFailure(errno)
                failure = error.message
            }
        }
        if failure == nil {
            finish(target)
            // The mode given at creation is masked by the umask, as a plain creat would be.
        }
        if temporaryName != nil {
            if close(target) != 0, failure == nil {
                noteFailure(errno)
                failure = String(cString: strerror(errno))
            }
        }
        let staged = StagedOutput(descriptor: temporaryName == nil ? target : -1, temporaryName: temporaryName, folder: self)
        if let failure {
            staged.discard()
            throw .io("cannot write \(shown): \(failure)")
        }
        return staged
    }

    /// Gives a staged output its name in the folder, replacing whatever has that name (a file of an earlier run, a
    /// symbolic link, a FIFO: never opened). The staged bytes are discarded on failure.
    public func commit(_ staged: StagedOutput, as name: String, shownAs: String? = nil) throws(ImgError) {
        let shown = shownAs ?? "\(path)/\(name)"
        guard staged.finish() else { throw .internalFailure("output \(shown) committed twice") }
        var linked = staged.temporaryName
        var reason: String?
        if linked == nil {
            // A new name takes the file in one step; a taken one goes through a named temporary and a rename.
            if imgf_link_unnamed_at(staged.descriptor, descriptor, name) == 0 {
                staged.release(removing: false)
                return
            }
            if errno == EEXIST {
                let temporary = OutputFolder.temporaryName()
                if imgf_link_unnamed_at(staged.descriptor, descriptor, temporary) == 0 { linked = temporary }
            }
            if linked == nil {
                noteFailure(errno)
                reason = String(cString: strerror(errno))
            }
        }
        if let linked, renameat(descriptor, linked, descriptor, name) != 0 {
            noteFailure(errno)
            reason = String(cString: strerror(errno))
            unlinkat(descriptor, linked, 0)
        }
        staged.release(removing: false)
        if let reason { throw .io("cannot write \(shown): \(reason)") }
    }

    /// Writes `data` under `name` whole or not at all (`stage`, then `commit`).
    public func write(_ data: Data, as name: String, shownAs: String? = nil) throws(ImgError) {
        let staged = try stage(.memory(data), shownAs: shownAs ?? "\(path)/\(name)")
        try commit(staged, as: name, shownAs: shownAs)
    }

    /// An unnamed file (when supported and under the limit), else a new `.imgfetch-PID-NONCE.part`.
    private func create(mode: mode_t, shownAs shown: String) throws(ImgError) -> (Int32, String?) {
        let reserved = unnamedSupported && unnamedOpen.withLock { count in
            guard count < OutputFolder.unnamedLimit else { return false }
            count += 1
            return true
        }
        if reserved {
            let unnamed = Self.outsideUmaskChanges { imgf_open_unnamed_at(descriptor, UInt32(mode)) }
            if unnamed >= 0 { return (unnamed, nil) }
            let reason = errno
            unnamedClosed()
            noteFailure(reason)
            if reason != EOPNOTSUPP, reason != EISDIR, reason != EINVAL {
                throw .io("cannot write \(shown): \(String(cString: strerror(reason)))")
            }
        }
        let (named, name) = try createNamed(mode: mode, shownAs: shown)
        return (named, name)
    }

    /// A new `.imgfetch-PID-NONCE.part`, open for writing.
    private func createNamed(mode: mode_t, shownAs shown: String) throws(ImgError) -> (Int32, String) {
        for _ in 0..<8 {
            let name = OutputFolder.temporaryName()
            let named = Self.outsideUmaskChanges {
                openat(descriptor, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            }
            if named >= 0 { return (named, name) }
            if errno != EEXIST { break }
        }
        let reason = errno
        noteFailure(reason)
        // The file to write is made beside the target first: a refusal of the folder's says that it is the folder.
        let byFolder = [ENOENT, EACCES, EPERM, EROFS, ENOTDIR, ENOSPC, EDQUOT, EOPNOTSUPP].contains(reason)
        throw .io("cannot write \(shown): " + (byFolder ? "no file can be made in \(path) (\(String(cString: strerror(reason))))"
                                                    : String(cString: strerror(reason))))
    }

    /// A file written as it goes (a tar shard): a new named temporary in the folder, open for writing (the
    /// descriptor is the caller's to close), and its staged output to `commit` under its name once it is whole, or
    /// to discard. Killed meanwhile, the process leaves the temporary, which the next run opening the folder removes.
    public func createGrowing(mode: mode_t = 0o644, shownAs shown: String) throws(ImgError) -> (Int32, StagedOutput) {
        let (named, name) = try createNamed(mode: mode, shownAs: shown)
        return (named, StagedOutput(descriptor: -1, temporaryName: name, folder: self))
    }

    /// Remembers why a write into the folder failed (a full file system stops the batch).
    func noteWriteFailure(_ code: Int32) { noteFailure(code) }

    func unnamedClosed() { unnamedOpen.withLock { $0 -= 1 } }

    /// Runs `create` (which creates a file, its mode masked by the umask) while liborc cannot be changing the umask:
    /// liborc 0.4.33, Debian 12's, sets it to 0066 for a moment whenever it maps new code memory, inside the compile
    /// that orc_guard.c holds its lock around, so an output made by another thread then would be 0600, not 0644.
    /// Errno is what `create` left.
    static func outsideUmaskChanges(_ create: () -> Int32) -> Int32 {
        imgf_orc_guard_enter()
        let result = create(), reason = errno
        imgf_orc_guard_leave()
        errno = reason
        return result
    }

    // MARK: abandoned temporaries

    /// `.imgfetch-PID-NONCE.part`: short, so an output name near the 255-byte limit still has room beside it.
    static func temporaryName() -> String { ".imgfetch-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).part" }

    /// The process id in a temporary's name, if it is one of ours.
    static func owner(ofTemporary name: String) -> pid_t? {
        guard let parts = PidNonceName.parts(of: name, prefix: ".imgfetch-", suffix: ".part"), let pid = pid_t(parts.pid),
              pid > 0 else { return nil }
        return pid
    }

    /// Removes the folder's temporaries whose process is gone (no process with that id here): what a killed run
    /// left. Another process's temporaries, and this one's, stay. Returns how many were removed.
    @discardableResult
    public func removeAbandonedTemporaries() -> Int {
        var removed = 0
        for (name, _) in DirectoryListing.children(of: descriptor) {
            guard let owner = OutputFolder.owner(ofTemporary: name), owner != getpid(),
                  kill(owner, 0) != 0, errno == ESRCH else { continue }
            var info = stat()
            guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            if unlinkat(descriptor, name, 0) == 0 { removed += 1 }
        }
        return removed
    }
}

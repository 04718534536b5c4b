import CVips
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Finished output bytes waiting for their name in an `OutputFolder`: an unnamed file (`O_TMPFILE`, held open, gone
/// with the process however it ends) or, where the file system has none, a hidden `.imgfetch-PID-NONCE.part` file
/// that a later run recognises as abandoned once its process is gone. Discarded on deinit unless committed.
public final class StagedOutput: @unchecked Sendable { // owns a descriptor and a temporary; given up once
    /// The unnamed file's descriptor; -1 for a named temporary (closed once written).
    let descriptor: Int32
    /// The named temporary in the folder; nil for an unnamed file.
    let temporaryName: String?
    private let folder: OutputFolder
    private let done = Locked(false)

    init(descriptor: Int32, temporaryName: String?, folder: OutputFolder) {
        self.descriptor = descriptor
        self.temporaryName = temporaryName
        self.folder = folder
    }

    /// Marks it given up (committed or discarded); true the first time.
    func finish() -> Bool {
        done.withLock { finished in
            defer { finished = true }
            return !finished
        }
    }

    /// Drops the bytes: the unnamed file is closed, the named temporary removed.
    public func discard() {
        guard finish() else { return }
        release(removing: true)
    }

    /// Closes the descriptor and, with `removing`, unlinks the named temporary.
    func release(removing: Bool) {
        if descriptor >= 0 {
            close(descriptor)
            folder.unnamedClosed()
        }
        if removing, let temporaryName { unlinkat(folder.descriptor, temporaryName, 0) }
    }

    deinit { discard() }
}

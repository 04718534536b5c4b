import CVips
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension OutputFolder {
    /// Writes `data` under `name` whole or not at all, only when nothing has that name yet (`stage`, then
    /// `commitNew`).
    func writeNew(_ data: Data, as name: String) throws(ImgError) {
        try commitNew(stage(.memory(data), shownAs: "\(path)/\(name)"), as: name)
    }

    /// Gives a staged output its name in the folder only when nothing has that name yet (`imgf_rename_new_at` for a
    /// named temporary, a link for an unnamed file): unlike `commit`, it never replaces a file. When the name is
    /// taken (another process wrote a file of that name meanwhile), or the rename fails otherwise, the staged bytes
    /// are discarded and what has the name is left as it is.
    func commitNew(_ staged: StagedOutput, as name: String) throws(ImgError) {
        let shown = "\(path)/\(name)"
        guard staged.finish() else { throw .internalFailure("output \(shown) committed twice") }
        let named: Bool
        if let temporary = staged.temporaryName {
            named = imgf_rename_new_at(descriptor, temporary, name) == 0
        } else {
            named = imgf_link_unnamed_at(staged.descriptor, descriptor, name) == 0
        }
        let reason = errno
        staged.release(removing: !named)
        guard !named else { return }
        noteWriteFailure(reason)
        if reason == EEXIST {
            throw .io("cannot name \(shown): a file of that name appeared while it was written (another process "
                      + "writing into \(path)?); it is left as it is, and this one is not kept")
        }
        throw .io("cannot write \(shown): \(String(cString: strerror(reason)))")
    }
}

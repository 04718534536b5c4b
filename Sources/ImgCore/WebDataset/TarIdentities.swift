#if canImport(Glibc)
import Glibc
#endif

/// For `--resume` with a WebDataset output: whether a sample recorded in a tar is still in it. The tar must be a
/// complete tar of this run's layout in the output folder (a regular file at its name: a tar torn by a kill is only
/// a temporary) whose stats carry the id recorded with the sample; a tar of that name written by a later run holds
/// other samples. Each tar's stats are read once.
final class TarIdentities: Sendable {
    let layout: WebDatasetLayout
    private let ids = Locked<[String: String?]>([:])

    init(layout: WebDatasetLayout) { self.layout = layout }

    /// Why the sample recorded in tar `name` with id `id` is not there; nil when it is.
    func mismatch(tar name: String, id: String?, in folder: OutputFolder?) -> ResumeMismatch? {
        guard layout.tarNumber(of: name) != nil else { return .otherPath }
        guard let folder, let id else { return .tarMissing }
        let known = ids.withLock { $0[name] }
        let current = known ?? currentID(of: name, in: folder)
        if known == nil { ids.withLock { $0[name] = .some(current) } }
        guard let current else { return .tarMissing }
        return current == id ? nil : .tarReplaced
    }

    /// The id of complete tar `name` (its stats' id); nil when there is no such tar or its stats don't read.
    private func currentID(of name: String, in folder: OutputFolder) -> String? {
        var info = stat()
        guard fstatat(folder.descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG
        else { return nil }
        return TarStats.read(ofTar: name, in: folder)?.id
    }
}

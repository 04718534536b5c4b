import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Fast directory reading with `opendir`/`readdir`, never following symlinks.
enum DirectoryListing {
    /// The names in a folder, without `.` and `..`; empty when it can't be read.
    static func names(in folder: String) -> [String] {
        guard let handle = opendir(folder) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Deletes a folder and everything below it (symlinks are unlinked, not followed); counts files and bytes.
    @discardableResult
    static func removeTree(_ path: String) -> (entries: Int, bytes: Int64) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return (0, 0) }
        if info.st_mode & S_IFMT != S_IFDIR {
            unlink(path)
            return (1, Int64(info.st_size))
        }
        var total = (entries: 0, bytes: Int64(0))
        for name in names(in: path) {
            let removed = removeTree("\(path)/\(name)")
            total.entries += removed.entries
            total.bytes += removed.bytes
        }
        rmdir(path)
        return total
    }
}

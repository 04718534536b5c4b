import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Fast directory reading of open folders with `fdopendir`/`readdir`, never following symlinks.
enum DirectoryListing {
    /// Calls `body` with each name in a folder (without `.` and `..`) as `readdir` reads it, holding none of them:
    /// for folders of a file per key (`locks/`), whose listing would grow with the cache. `body` may unlink the name.
    /// `folder` is an open folder; the descriptor stays open.
    static func forEachName(in folder: Int32, _ body: (String) -> Void) {
        let copy = dup(folder)
        guard copy >= 0, let handle = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return
        }
        defer { closedir(handle) }
        // The copy shares the folder's reading position: start from its first name.
        rewinddir(handle)
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != ".", name != ".." { body(name) }
        }
    }

    /// The names (without `.` and `..`) and `d_type`s in an open folder; the descriptor stays open.
    static func children(of descriptor: Int32) -> [(name: String, type: Int32)] {
        let copy = dup(descriptor)
        guard copy >= 0, let handle = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(handle) }
        rewinddir(handle)
        var result: [(name: String, type: Int32)] = []
        while let entry = readdir(handle) {
            let type = Int32(entry.pointee.d_type)
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != ".", name != ".." { result.append((name, type)) }
        }
        return result
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import ImgCore

/// The clock of a cache directory, moved on without waiting. Every time the cache judges by is a file's time (an
/// entry's expiry is its mtime and its last access its atime; a temporary's, a lock's, the last clean's and the last
/// prune's age is their mtime), so moving all of them back by `seconds` is what `seconds` passing does to the
/// directory, for every imgfetch that reads it: the binary under test judges the aged files by the real clock.
enum CacheClock {
    /// Moves every file and folder under `directory` (the folder itself included) `seconds` into the past. An expiry
    /// of never (`EntryIO.neverThreshold` or later) stays never.
    static func advance(_ directory: String, by seconds: Int) throws {
        let paths = [directory] + (FileManager.default.subpaths(atPath: directory) ?? []).map { directory + "/" + $0 }
        for path in paths {
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }  // gone meanwhile (a temporary renamed)
            let modified = EntryIO.seconds(info.st_mtim)
            let times = [moved(info.st_atim, by: seconds),
                         modified >= EntryIO.neverThreshold ? info.st_mtim : moved(info.st_mtim, by: seconds)]
            guard utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW) == 0 else {
                throw TestFailure("cannot move the times of \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    private static func moved(_ time: timespec, by seconds: Int) -> timespec {
        var moved = time
        moved.tv_sec -= seconds
        return moved
    }
}

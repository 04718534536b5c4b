import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Finds, creates and checks the cache directory.
public enum CacheDirectory {
    /// `--cache-dir`, else `$IMGFETCH_CACHE_DIR`, else `$XDG_CACHE_HOME/imgfetch`, else `~/.cache/imgfetch`.
    public static func resolve(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let option, !option.isEmpty { return option }
        if let value = environment["IMGFETCH_CACHE_DIR"], !value.isEmpty { return value }
        if let value = environment["XDG_CACHE_HOME"], value.hasPrefix("/") { return value + "/imgfetch" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.cache/imgfetch"
    }

    /// Creates the directory (0700) and its folders, refusing it when others may write to it.
    static func prepare(_ directory: String) throws(ImgError) {
        do {
            try makePath(directory, mode: 0o700)
        } catch {
            throw .cacheUnavailable(error.message)
        }
        try checkSafety(directory)
        for folder in ["entries", "tmp", "locks"] {
            do {
                try makePath("\(directory)/\(folder)", mode: 0o700)
            } catch {
                throw .cacheUnavailable(error.message)
            }
        }
        let tag = "\(directory)/CACHEDIR.TAG"
        if access(tag, F_OK) != 0 {
            let text = "Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by imgfetch.\n# For information about cache directory tags, see https://bford.info/cachedir/\n"
            // A tag that can't be written costs nothing but the hint to backup tools.
            _ = FileManager.default.createFile(atPath: tag, contents: Data(text.utf8), attributes: [.posixPermissions: 0o644])
        }
    }

    /// Refuses a directory that is a symbolic link (its last component; cleaning would act on the folder it points
    /// to), group or world writable, or owned by another user.
    public static func checkSafety(_ directory: String) throws(ImgError) {
        var info = stat()
        var named = directory
        while named.count > 1, named.hasSuffix("/") { named.removeLast() }
        if lstat(named, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: named)).map { " to \($0)" } ?? ""
            throw .io("refusing cache directory \(directory): it is a symbolic link\(target); give the directory itself")
        }
        guard stat(directory, &info) == 0 else {
            throw .io("cache directory \(directory): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .io("cache directory \(directory) is not a directory") }
        if info.st_uid != geteuid() {
            throw .io("refusing cache directory \(directory): owned by uid \(info.st_uid), not by you (uid \(geteuid()))")
        }
        if info.st_mode & 0o022 != 0 {
            throw .io("refusing cache directory \(directory): it is group or world writable (mode \(String(info.st_mode & 0o777, radix: 8))); chmod 700 it")
        }
    }

    /// `mkdir -p`, each new folder with `mode`.
    static func makePath(_ path: String, mode: mode_t = 0o700) throws(ImgError) {
        if mkdir(path, mode) == 0 || errno == EEXIST { return }
        guard errno == ENOENT else { throw .io("cannot create \(path): \(String(cString: strerror(errno)))") }
        let parent = (path as NSString).deletingLastPathComponent
        guard !parent.isEmpty, parent != path else { throw .io("cannot create \(path)") }
        try makePath(parent, mode: mode)
        if mkdir(path, mode) != 0 && errno != EEXIST {
            throw .io("cannot create \(path): \(String(cString: strerror(errno)))")
        }
    }
}

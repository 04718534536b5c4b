import Foundation

/// Why a local input can't be read, in the system's words, said once: `No such file or directory`,
/// `Permission denied`, `Is a directory` (the message is shown after the input's name, as `cat` shows it).
enum LocalFileError {
    static func reason(_ path: String) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else { return String(cString: strerror(errno)) }
        if info.st_mode & S_IFMT == S_IFDIR { return String(cString: strerror(EISDIR)) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        close(descriptor)
        if info.st_mode & S_IFMT != S_IFREG { return "not a regular file" }
        return "cannot read it"
    }
}

extension ImageSource {
    /// Whether this is a local file no image can be read from, whatever a cache holds: missing or out of reach
    /// (its key can't be made), not a regular file (it is never read, so never cached) or one the user may not read.
    /// The pipeline fails it with `LocalFileError.reason`; a command can tell before it opens, or makes, a cache
    /// directory for it.
    public var isUnreadableFile: Bool {
        guard case .file(let path) = self else { return false }
        var info = stat()
        return stat(path, &info) != 0 || info.st_mode & S_IFMT != S_IFREG
            || faccessat(AT_FDCWD, path, R_OK, AT_EACCESS) != 0
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// The names imgfetch gives its temporaries, `PREFIX` `PID-NONCE` `SUFFIX` (both parts whole numbers): in a cache's
/// `tmp/` (`CacheNames`) and beside outputs (`OutputFolder`).
enum PidNonceName {
    /// The process id and nonce of `name`, as written; nil for a name of another shape.
    static func parts(of name: String, prefix: String = "", suffix: String) -> (pid: Substring, nonce: Substring)? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        let parts = name.dropFirst(prefix.count).dropLast(suffix.count).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (48...57).contains($0) } }) else { return nil }
        return (parts[0], parts[1])
    }

    /// Whether the process that named `name` (`PID-NONCE` with `suffix`) still runs on this machine: a live
    /// process's file is its work in progress, whatever its age. False for a name of another shape.
    static func writerIsRunning(_ name: String, suffix: String) -> Bool {
        guard let pid = parts(of: name, suffix: suffix).flatMap({ pid_t($0.pid) }), pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }
}

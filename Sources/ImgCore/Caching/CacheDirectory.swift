import Foundation

/// Finds the cache directory (`CacheRoot` opens, checks and creates it).
public enum CacheDirectory {
    /// `--cache-dir`, else `$IMGFETCH_CACHE_DIR`, else `$XDG_CACHE_HOME/imgfetch`, else `~/.cache/imgfetch`.
    public static func resolve(option: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let option, !option.isEmpty { return option }
        if let value = environment["IMGFETCH_CACHE_DIR"], !value.isEmpty { return value }
        if let value = environment["XDG_CACHE_HOME"], value.hasPrefix("/") { return value + "/imgfetch" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.cache/imgfetch"
    }
}

/// How a folder given on the command line is spelled in reports (`-v`, `--json`, the manifest): repeated slashes
/// collapsed, `.` components and trailing slashes dropped, so `-O thumbs/` reports `thumbs/p017.jpg`. `..` and
/// symbolic links are left as given (resolving them could change which folder is meant).
enum PathSpelling {
    static func normalised(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).filter { $0 != "." }
        let joined = parts.joined(separator: "/")
        if absolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }
}

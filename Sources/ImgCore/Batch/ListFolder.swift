import Glibc

/// A folder given as a batch's list: the lists in it, as a dataset published in parts keeps them
/// (`laion400m-meta/part-00000-….parquet`, …). Its regular files (or links to one), not its subfolders, in the
/// byte order of their names (as `ls` sorts them in the C locale), but for names starting with `.` or `_` (hidden
/// files, and the `_SUCCESS` markers and `.crc` files Spark and Hadoop write beside their parts) and, when the
/// format is decided by extension (`ListFormat.auto`), files not ending in a list's extension (a README, images).
public enum ListFolder {
    /// The extensions of lists, for a format decided by extension.
    public static let listExtensions = ["txt", "csv", "tsv", "jsonl", "ndjson", "parquet"]

    /// Whether `path` names a folder (following a link).
    public static func isFolder(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    /// The lists in the folder at `path` for lists of `format`, as paths starting with it; a usage error when it
    /// can't be read or holds none.
    public static func lists(in path: String, format: ListFormat) throws(ImgError) -> [String] {
        guard let folder = opendir(path) else {
            throw .usage("list folder '\(path)' can't be read: \(String(cString: strerror(errno)))")
        }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let first = name.utf8.first, first != UInt8(ascii: "."), first != UInt8(ascii: "_") else { continue }
            if format == .auto, !listExtensions.contains(name.split(separator: ".").last.map { $0.lowercased() } ?? "") {
                continue
            }
            let file = path.hasSuffix("/") ? path + name : path + "/" + name
            var status = stat()
            if stat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG { names.append(file) }
        }
        guard !names.isEmpty else {
            let kinds = format == .auto ? "no file ending ." + listExtensions.joined(separator: ", .") + "; " : ""
            throw .usage("list folder '\(path)' holds no list (\(kinds)names starting with '.' or '_' are skipped)")
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}

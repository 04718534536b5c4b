import Foundation
import ImgCore
#if canImport(Glibc)
import Glibc
#endif

/// Where the warm renderer (`imgfetch renderer serve`) of one user, one imgfetch executable and one libvips
/// environment listens: a socket file in a folder of the user's own that no other user can create files in
/// (`RendererDirectory`). Peers check each other's user on every connection all the same.
public struct RendererAddress: Sendable, Hashable, CustomStringConvertible {
    /// The folder of the socket file.
    public let directory: String
    /// The socket file's name in it.
    public let name: String
    /// What every renderer name of this executable path starts with, whatever its build (`renderer-PATH-`); nil
    /// when `IMGFETCH_RENDERER_SOCKET` names the socket (then there is only that one).
    public let pathPrefix: String?

    public init(directory: String, name: String, pathPrefix: String? = nil) {
        (self.directory, self.name, self.pathPrefix) = (directory, name, pathPrefix)
    }

    /// The socket file's path.
    public var path: String { directory + "/" + name }
    public var description: String { path }

    /// The version of the messages client and renderer exchange; part of the name, so that they always match.
    static let protocolVersion = 3
    static let suffix = ".sock"

    /// `IMGFETCH_RENDERER_SOCKET` when set (a path, or a file name in the default folder); else
    /// `renderer-PATH-BUILD.sock` in the default folder (`defaultDirectory`), where PATH is a hash of this
    /// executable's path and BUILD one of the executable (size, modification time), the protocol version and the
    /// `VIPS_*` and `G_*` environment that changes how libvips behaves: an upgraded binary or a different libvips
    /// setting gets a renderer of its own, and `renderer status|stop` still find the older ones by PATH.
    public static func current(environment: [String: String]) -> RendererAddress {
        let folder = defaultDirectory(environment: environment)
        if let given = environment["IMGFETCH_RENDERER_SOCKET"], !given.isEmpty {
            guard given.contains("/") else { return RendererAddress(directory: folder, name: given) }
            let url = URL(fileURLWithPath: given)
            return RendererAddress(directory: url.deletingLastPathComponent().path, name: url.lastPathComponent)
        }
        var identity = ["protocol=\(protocolVersion)", "version=\(Version.current)"]
        let executable = executablePath()
        if let executable {
            var status = stat()
            if stat(executable, &status) == 0 {
                identity.append("exe=\(executable):\(status.st_size):\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)")
            }
        }
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) where key.hasPrefix("VIPS") || key.hasPrefix("G_") {
            identity.append("\(key)=\(value)")
        }
        let prefix = "renderer-\(Digest.sha256(executable ?? "?").prefix(12))-"
        let build = Digest.sha256(identity.joined(separator: "\n")).prefix(12)
        return RendererAddress(directory: folder, name: prefix + build + suffix, pathPrefix: prefix)
    }

    /// `$XDG_RUNTIME_DIR/imgfetch` when `XDG_RUNTIME_DIR` is an absolute path; else the folder `renderer` in the
    /// default cache directory (`$IMGFETCH_CACHE_DIR`, `$XDG_CACHE_HOME/imgfetch`, `~/.cache/imgfetch`; never
    /// `--cache-dir`, so that every command finds the same renderer).
    public static func defaultDirectory(environment: [String: String]) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/imgfetch" }
        return CacheDirectory.resolve(option: nil, environment: environment) + "/renderer"
    }

    /// The names of other builds of this path in `names` (a listing of the folder).
    func otherBuilds(in names: [String]) -> [String] {
        guard let pathPrefix else { return [] }
        return names.filter { $0.hasPrefix(pathPrefix) && $0.hasSuffix(Self.suffix) && $0 != name }.sorted()
    }

    /// Whether `name` is the socket name of a build of this executable path (`renderer-PATH-BUILD.sock`).
    func isOfThisPath(_ name: String) -> Bool {
        name == self.name || (pathPrefix.map { name.hasPrefix($0) && name.hasSuffix(Self.suffix) } ?? false)
    }

    /// Whether `process` runs this executable's path (a build replaced on disk since it started included).
    static func runsThisPath(_ process: Int32) -> Bool {
        guard let mine = executablePath(), var theirs = link("/proc/\(process)/exe") else { return false }
        if theirs.hasSuffix(" (deleted)") { theirs.removeLast(" (deleted)".count) }
        return theirs == mine
    }

    /// The path of the running executable (`/proc/self/exe`), nil when it is gone (replaced on disk) or unknown.
    static func executablePath() -> String? {
        guard let path = link("/proc/self/exe") else { return nil }
        return path.hasSuffix(" (deleted)") ? nil : path
    }

    /// The target of a symbolic link (as /proc shows a process's executable), nil when it can't be read.
    static func link(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where the warm renderer (`imgfetch renderer serve`) of one user, one imgfetch executable and one libvips
/// environment listens: a name in Linux's abstract socket namespace, so there is no socket file to clean up after
/// a crash and none to plant in a shared directory. Peers check each other's user on every connection.
public struct RendererAddress: Sendable, Hashable, CustomStringConvertible {
    /// The abstract socket name, without its leading NUL.
    public let name: String

    public init(name: String) { self.name = name }

    public var description: String { "@\(name)" }

    /// The version of the messages client and renderer exchange; part of the name, so that they always match.
    static let protocolVersion = 1

    /// `IMGFETCH_RENDERER_SOCKET` when set; else `imgfetch-renderer-UID-HASH`, where HASH covers this executable
    /// (path, size, modification time), the protocol version and the `VIPS_*` and `G_*` environment that changes
    /// how libvips behaves. An upgraded binary or a different libvips setting so gets a renderer of its own.
    public static func current(environment: [String: String]) -> RendererAddress {
        if let name = environment["IMGFETCH_RENDERER_SOCKET"], !name.isEmpty { return RendererAddress(name: name) }
        var identity = ["protocol=\(protocolVersion)", "version=\(Version.current)"]
        if let executable = executablePath() {
            var status = stat()
            if stat(executable, &status) == 0 {
                identity.append("exe=\(executable):\(status.st_size):\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)")
            } else {
                identity.append("exe=\(executable)")
            }
        }
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) where key.hasPrefix("VIPS") || key.hasPrefix("G_") {
            identity.append("\(key)=\(value)")
        }
        let hash = Digest.sha256(identity.joined(separator: "\n")).prefix(16)
        return RendererAddress(name: "imgfetch-renderer-\(geteuid())-\(hash)")
    }

    /// The path of the running executable (`/proc/self/exe`), nil when it is gone (replaced on disk) or unknown.
    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return path.hasSuffix(" (deleted)") ? nil : path
    }
}

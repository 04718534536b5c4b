/// The program's version, then the libraries it runs with, one line each
/// (`libvips 8.14.1`, `libcurl 7.88.1 (OpenSSL/3.0.17)`, `libxxhash 0.8.1`), or as one JSON object.
/// A library that cannot be opened is reported as unavailable, with the reason.
public struct VersionReport: Encodable, Equatable, Sendable {
    /// imgfetch's own version (the VERSION file's).
    public let imgfetch: String
    /// libvips' version; nil when it could not be read (see `unavailable`).
    public let libvips: String?
    /// libcurl's version; nil when it could not be read.
    public let libcurl: String?
    /// libcurl's TLS library and its version; nil when it has none.
    public let tls: String?
    public let libxxhash: String
    /// Why a library's version could not be read, by library name; absent when every one was read.
    public let unavailable: [String: String]?

    public init(_ versions: RuntimeVersions, imgfetch: String = Version.current) {
        self.imgfetch = imgfetch
        var unavailable: [String: String] = [:]
        func value(_ reading: RuntimeVersions.Reading, _ name: String) -> String? {
            switch reading {
            case .version(let text): return text
            case .unavailable(let reason): unavailable[name] = reason; return nil
            }
        }
        libvips = value(versions.vips, "libvips")
        libcurl = value(versions.curl, "libcurl")
        tls = versions.curlTLS
        libxxhash = versions.xxhash
        self.unavailable = unavailable.isEmpty ? nil : unavailable
    }

    /// The text form, one line each, ending in a newline.
    public var text: String {
        func line(_ name: String, _ version: String?, _ suffix: String = "") -> String {
            version.map { "\(name) \($0)\(suffix)" } ?? "\(name) unavailable (\(unavailable?[name] ?? "unknown"))"
        }
        return [
            "imgfetch \(imgfetch)",
            line("libvips", libvips),
            line("libcurl", libcurl, tls.map { " (\($0))" } ?? ""),
            "libxxhash \(libxxhash)",
        ].joined(separator: "\n") + "\n"
    }
}

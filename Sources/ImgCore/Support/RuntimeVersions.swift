import CCurl
import CVips
import CXXHash

/// The versions of the C libraries this process runs with: read from the libraries
/// themselves (libvips.so.42 and libcurl.so.4 as the loaders open them, libxxhash as linked), not from the headers
/// the program was built against.
public struct RuntimeVersions: Sendable, Equatable {
    /// One library's version, or why it could not be read (the library could not be opened).
    public enum Reading: Sendable, Equatable {
        case version(String)
        case unavailable(String)
    }

    /// libvips' version ("8.14.1").
    public let vips: Reading
    /// libcurl's version ("7.88.1").
    public let curl: Reading
    /// libcurl's TLS library and its version ("OpenSSL/3.0.17"); nil when libcurl has none or could not be opened.
    public let curlTLS: String?
    /// libxxhash's version ("0.8.1"), from XXH_versionNumber.
    public let xxhash: String

    /// Reads the versions now; opens libvips and libcurl without starting them.
    public static func read() -> RuntimeVersions {
        var vipsText = [CChar](repeating: 0, count: 512)
        let vipsStatus = imgf_vips_runtime_version(&vipsText, vipsText.count)
        var curlText = [CChar](repeating: 0, count: 512)
        var tlsText = [CChar](repeating: 0, count: 256)
        let curlStatus = imgf_curl_runtime_version(&curlText, curlText.count, &tlsText, tlsText.count)
        let tls = String(decoding: tlsText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return RuntimeVersions(vips: reading(vipsStatus, vipsText), curl: reading(curlStatus, curlText),
                               curlTLS: curlStatus == 0 && !tls.isEmpty ? tls : nil,
                               xxhash: xxhashVersion(XXH_versionNumber()))
    }

    /// "0.8.1" from XXH_versionNumber's major * 10000 + minor * 100 + release.
    static func xxhashVersion(_ number: UInt32) -> String {
        "\(number / 10_000).\(number / 100 % 100).\(number % 100)"
    }

    private static func reading(_ status: Int32, _ text: [CChar]) -> Reading {
        let string = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return status == 0 ? .version(string) : .unavailable(string)
    }
}

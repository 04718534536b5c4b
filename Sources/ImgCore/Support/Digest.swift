import CVips
import Foundation

/// SHA-256 through glib (which comes with libvips); needs no `vips_init`, so cache hits can use it.
public enum Digest {
    /// The lower-case hexadecimal SHA-256 of `data`.
    public static func sha256(_ data: some ContiguousBytes) -> String {
        data.withUnsafeBytes { raw in
            guard let hex = imgf_sha256_hex(raw.baseAddress, raw.count) else { return "" }
            defer { g_free(hex) }
            return String(cString: hex)
        }
    }

    /// The SHA-256 of a string's UTF-8 bytes.
    public static func sha256(_ text: String) -> String {
        sha256(Data(text.utf8))
    }
}

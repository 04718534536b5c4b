import CVips
import CXXHash
import Foundation

/// Hashes: SHA-256 through glib (which comes with libvips) for names derived from keys and for credentials, and
/// XXH3-128 through xxHash for the integrity of cache entries' bytes (not a defence against tampering: it finds torn
/// and damaged files, ~30x faster than SHA-256). Neither needs `vips_init`, so cache hits can use them.
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

    /// The XXH3-128 of `data` as 32 lower-case hex digits (xxHash's canonical order: high half first).
    public static func integrity(_ data: some ContiguousBytes) -> String {
        data.withUnsafeBytes { raw in hex(XXH3_128bits(raw.baseAddress, raw.count)) }
    }

    static func hex(_ hash: XXH128_hash_t) -> String {
        func half(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return half(hash.high64) + half(hash.low64)
    }
}

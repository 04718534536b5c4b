import CVips
import Foundation

/// SHA-256 over bytes that arrive in pieces (a body as it downloads, a file read in windows), through glib's
/// `GChecksum`. One owner at a time: not safe to update from two threads at once.
final class DigestStream {
    private var checksum: OpaquePointer?

    init() {
        checksum = g_checksum_new(G_CHECKSUM_SHA256)
    }

    deinit { if let checksum { g_checksum_free(checksum) } }

    /// Adds the next bytes.
    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let checksum, let base = bytes.baseAddress, bytes.count > 0 else { return }
        g_checksum_update(checksum, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    /// The lower-case hex digest of everything added; no more updates may follow.
    func finish() -> String {
        guard let checksum, let hex = g_checksum_get_string(checksum) else { return "" }
        return String(cString: hex)
    }
}

import CVips
import CXXHash
import Foundation

/// A digest over bytes that arrive in pieces (a body as it downloads, a file read in windows): by default the
/// integrity digest (XXH3-128, as `Digest.integrity`), or SHA-256 (glib's `GChecksum`, as `Digest.sha256`).
/// One owner at a time: not safe to update from two threads at once.
final class DigestStream {
    enum Algorithm { case integrity, sha256 }

    private var state: OpaquePointer?
    private var checksum: OpaquePointer?

    init(_ algorithm: Algorithm = .integrity) {
        switch algorithm {
        case .integrity:
            state = XXH3_createState()
            if let state { XXH3_128bits_reset(state) }
        case .sha256:
            checksum = g_checksum_new(G_CHECKSUM_SHA256)
        }
    }

    deinit {
        if let state { XXH3_freeState(state) }
        if let checksum { g_checksum_free(checksum) }
    }

    /// Adds the next bytes.
    func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        if let state { XXH3_128bits_update(state, base, bytes.count) }
        if let checksum { g_checksum_update(checksum, base.assumingMemoryBound(to: UInt8.self), bytes.count) }
    }

    /// The lower-case hex digest of everything added; no more updates may follow.
    func finish() -> String {
        if let state { return Digest.hex(XXH3_128bits_digest(state)) }
        guard let checksum, let hex = g_checksum_get_string(checksum) else { return "" }
        return String(cString: hex)
    }
}

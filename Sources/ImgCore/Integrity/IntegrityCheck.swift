import CVips
import Foundation

/// Decides from the bytes alone, deterministically and before any decoding, whether an input's pixel data is
/// complete, per format as its reference decoder decides it (libvips 8.14 lets truncated files through
/// intermittently under its thread pool, so its `fail_on` can't be relied on for this). What follows the pixel
/// data (a missing end marker, a missing trailer, junk after the end) is tolerated, as libjpeg, libpng and giflib
/// tolerate it. The bytes are read through a `ByteReader`, a window at a time for a file.
enum IntegrityCheck {
    /// The worst damage found, or nil when the pixel data is all there (other formats: always nil). `reader`
    /// reads `input` (by default through `input.reader()`; tests give one with tiny windows). `memoryLimit`
    /// bounds what libjpeg may allocate for a JPEG's check (default: no bound of ours). A check that inflates
    /// (PNG) stops after `timeLimit` seconds (default 60) with the render-time limit. With `decodeBoundsPNGTail`
    /// (default false), a complete PNG's image data is not inflated for its bound alone (`PNGCheck`).
    static func damage(in input: VipsInput, format: ImageFormat, reader: ByteReader? = nil,
                       memoryLimit: Int64 = 0, timeLimit: Double = 60,
                       decodeBoundsPNGTail: Bool = false) throws(ImgError) -> DataDamage? {
        let bytes = reader ?? input.reader()
        switch format {
        case .jpeg: return try JPEGCheck.damage(in: input, reader: bytes, memoryLimit: memoryLimit)
        case .png:
            return try PNGCheck.damage(in: bytes, timeLimit: timeLimit, deadline: Date() + timeLimit,
                                       decodeBoundsTail: decodeBoundsPNGTail)
        case .gif: return GIFCheck.damage(in: bytes)
        case .webp: return webpDamage(in: bytes)
        default: return nil
        }
    }

    /// RIFF chunks: the RIFF chunk, and the image chunks in it (VP8, VP8L, VP8X, ALPH, ANMF), must hold the bytes
    /// they declare; bytes after the RIFF chunk are ignored, as libwebp ignores them.
    static func webpDamage(in bytes: ByteReader) -> DataDamage? {
        guard let head = bytes.bytes(at: 0, length: 12) else {
            return DataDamage(severity: .truncated, message: "truncated: the file ends inside the WebP header (\(bytes.count) bytes)")
        }
        let declared = littleEndian32(head, at: 4) + 8
        if bytes.count < declared {
            return DataDamage(severity: .truncated,
                              message: "truncated: the WebP file declares \(declared) bytes, only \(bytes.count) are there")
        }
        var offset = 12
        while offset + 8 <= declared, let chunk = bytes.bytes(at: offset, length: 8) {
            let size = littleEndian32(chunk, at: 4)
            let type = String(decoding: chunk[0..<4], as: UTF8.self)
            if offset + 8 + size > declared {
                return DataDamage(severity: .truncated,
                                  message: "truncated: the WebP \(type.trimmingCharacters(in: .whitespaces)) chunk declares \(size) bytes, only \(declared - offset - 8) are there")
            }
            offset += 8 + size + (size & 1)
        }
        return nil
    }

    private static func littleEndian32(_ bytes: [UInt8], at index: Int) -> Int {
        Int(bytes[index]) | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2]) << 16 | Int(bytes[index + 3]) << 24
    }
}

import Foundation

/// Removes the metadata chunks of a WebP file: libvips 8.14.1's webpsave writes an EXIF chunk (a fresh one with
/// the resolution and orientation when the image has none) even with `strip`.
enum WebPMetadata {
    /// The chunks that hold metadata: the ICC profile, EXIF and XMP.
    static let metadataChunks: Set<String> = ["ICCP", "EXIF", "XMP "]
    /// The bits of the VP8X flags byte that announce those chunks (ICC 0x20, EXIF 0x08, XMP 0x04).
    static let metadataFlags: UInt8 = 0x20 | 0x08 | 0x04

    /// `data` without its metadata chunks, the VP8X flags and the RIFF size updated to match; `data` unchanged
    /// when it is not a well-formed extended WebP (a simple one carries no metadata).
    static func stripped(_ data: Data) -> Data {
        let bytes = [UInt8](data)
        guard bytes.count >= 12, bytes[0..<4] == [0x52, 0x49, 0x46, 0x46][...], bytes[8..<12] == Array("WEBP".utf8)[...] else {
            return data
        }
        var output = Array(bytes[0..<12])
        var offset = 12
        var removed = false
        while offset + 8 <= bytes.count {
            let name = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let size = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16 | Int(bytes[offset + 7]) << 24
            let end = offset + 8 + size + (size & 1)
            guard end <= bytes.count || (end == bytes.count + 1 && size & 1 == 1) else { return data }
            let chunkEnd = min(end, bytes.count)
            if metadataChunks.contains(name) {
                removed = true
            } else {
                var chunk = Array(bytes[offset..<chunkEnd])
                if name == "VP8X", chunk.count > 8 { chunk[8] &= ~metadataFlags }
                output += chunk
            }
            offset = end
        }
        guard removed, offset >= bytes.count else { return data }
        let riffSize = UInt32(output.count - 8)
        for index in 0..<4 { output[4 + index] = UInt8(truncatingIfNeeded: riffSize >> (8 * UInt32(index))) }
        return Data(output)
    }
}

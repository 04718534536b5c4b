import CVips
import Foundation

/// Decides from the bytes alone whether a JPEG, PNG, GIF or WebP file was cut short.
/// libvips 8.14 lets truncated files through intermittently under its thread pool, so this check is deterministic
/// and comes before any decoding. The bytes are read through a `ByteReader`, so a large file is checked a window
/// at a time rather than held whole.
enum TruncationCheck {
    /// True when the container's own structure shows the file ends early.
    static func isTruncated(_ bytes: ByteReader, format: ImageFormat) -> Bool {
        switch format {
        case .jpeg: return !jpegHasEndAfterLastScan(bytes)
        case .png: return !pngHasEnd(bytes)
        case .gif: return !gifHasTrailer(bytes)
        case .webp: return webpDeclaresMore(bytes)
        default: return false
        }
    }

    /// The last start-of-scan marker (FF DA) must be followed by an end-of-image marker (FF D9).
    /// Inside entropy-coded data FF is always followed by 00 or a restart marker, so FF D9 can't appear by accident.
    private static func jpegHasEndAfterLastScan(_ bytes: ByteReader) -> Bool {
        var lastScan = -1, lastEnd = -1
        var start = 0
        var previousWasMarker = false
        bytes.scan(from: 0, length: bytes.count) { window in
            guard let base = window.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return true }
            let count = window.count
            func note(_ byte: UInt8, markerAt position: Int) {
                if byte == 0xDA { lastScan = position } else if byte == 0xD9 { lastEnd = position }
            }
            if previousWasMarker { note(base[0], markerAt: start - 1) }
            var index = 0
            while index < count, let found = memchr(base + index, 0xFF, count - index) {
                let at = UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
                if at + 1 < count { note(base[at + 1], markerAt: start + at) }
                index = at + 1
            }
            previousWasMarker = base[count - 1] == 0xFF
            start += count
            return true
        }
        return lastScan >= 0 && lastEnd > lastScan
    }

    /// A PNG chunk's length and type: the 8 bytes before its data.
    private static func chunkHeader(_ bytes: ByteReader, at offset: Int) -> (length: Int, type: [UInt8])? {
        guard let head = bytes.bytes(at: offset, length: 8) else { return nil }
        let length = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        return (length, Array(head[4..<8]))
    }

    private static let endChunk = Array("IEND".utf8)

    /// True when a PNG chunk's CRC does not match its bytes: libvips reports these as warnings that its thread
    /// pool lets through intermittently, so they are checked here, deterministically, with zlib's CRC-32.
    static func hasBadChecksum(_ bytes: ByteReader, format: ImageFormat) -> Bool {
        guard format == .png else { return false }
        var offset = 8
        while offset + 12 <= bytes.count {
            guard let (length, type) = chunkHeader(bytes, at: offset),
                  offset + 12 + length <= bytes.count, length < Int(UInt32.max) else { return false }
            var computed = type.withUnsafeBytes { imgf_crc32(0, $0.baseAddress, 4) }
            let complete = bytes.scan(from: offset + 8, length: length) { window in
                computed = imgf_crc32(computed, window.baseAddress, UInt32(window.count))
                return true
            }
            guard complete, let crc = bytes.bytes(at: offset + 8 + length, length: 4) else { return false }
            let stored = UInt(crc[0]) << 24 | UInt(crc[1]) << 16 | UInt(crc[2]) << 8 | UInt(crc[3])
            if computed != stored { return true }
            if type == endChunk { return false }
            offset += 12 + length
        }
        return false
    }

    /// Walks the chunks: the file must reach an IEND chunk with every chunk complete.
    private static func pngHasEnd(_ bytes: ByteReader) -> Bool {
        var offset = 8
        while offset + 12 <= bytes.count {
            guard let (length, type) = chunkHeader(bytes, at: offset) else { return false }
            let next = offset + 12 + length
            guard next <= bytes.count else { return false }
            if type == endChunk { return true }
            offset = next
        }
        return false
    }

    /// Walks the blocks: the file must reach the trailer (3B) with every block complete.
    private static func gifHasTrailer(_ bytes: ByteReader) -> Bool {
        guard bytes.count >= 13, let flags = bytes.byte(at: 10) else { return false }
        var offset = 13
        if flags & 0x80 != 0 { offset += 3 << (Int(flags & 0x07) + 1) }
        func skipSubBlocks() -> Bool {
            while let size = bytes.byte(at: offset) {
                offset += 1
                if size == 0 { return true }
                offset += Int(size)
            }
            return false
        }
        while let introducer = bytes.byte(at: offset) {
            switch introducer {
            case 0x3B:
                return true
            case 0x21:
                offset += 2
                guard skipSubBlocks() else { return false }
            case 0x2C:
                guard offset + 10 <= bytes.count, let localFlags = bytes.byte(at: offset + 9) else { return false }
                offset += 10
                if localFlags & 0x80 != 0 { offset += 3 << (Int(localFlags & 0x07) + 1) }
                offset += 1
                guard skipSubBlocks() else { return false }
            default:
                return false
            }
        }
        return false
    }

    /// The RIFF header states the file's length: fewer bytes than that means it was cut.
    private static func webpDeclaresMore(_ bytes: ByteReader) -> Bool {
        guard let head = bytes.bytes(at: 0, length: 12) else { return true }
        let declared = Int(head[4]) | Int(head[5]) << 8 | Int(head[6]) << 16 | Int(head[7]) << 24
        return bytes.count < declared + 8
    }
}

import CVips
import Foundation

/// Decides from the bytes alone whether a JPEG, PNG, GIF or WebP file was cut short.
/// libvips 8.14 lets truncated files through intermittently under its thread pool, so this check is deterministic
/// and comes before any decoding.
enum TruncationCheck {
    /// True when the container's own structure shows the file ends early.
    static func isTruncated(_ data: Data, format: ImageFormat) -> Bool {
        let bytes = [UInt8](data)
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
    private static func jpegHasEndAfterLastScan(_ bytes: [UInt8]) -> Bool {
        var lastScan = -1, lastEnd = -1
        var index = 0
        while index + 1 < bytes.count {
            if bytes[index] == 0xFF {
                if bytes[index + 1] == 0xDA { lastScan = index } else if bytes[index + 1] == 0xD9 { lastEnd = index }
            }
            index += 1
        }
        return lastScan >= 0 && lastEnd > lastScan
    }

    /// True when a PNG chunk's CRC does not match its bytes: libvips reports these as warnings that its thread
    /// pool lets through intermittently, so they are checked here, deterministically, with zlib's CRC-32.
    static func hasBadChecksum(_ data: Data, format: ImageFormat) -> Bool {
        guard format == .png else { return false }
        return data.withUnsafeBytes { raw -> Bool in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
            var offset = 8
            while offset + 12 <= raw.count {
                let length = Int(base[offset]) << 24 | Int(base[offset + 1]) << 16 | Int(base[offset + 2]) << 8 | Int(base[offset + 3])
                guard offset + 12 + length <= raw.count, length < Int(UInt32.max) else { return false }
                let stored = UInt(base[offset + 8 + length]) << 24 | UInt(base[offset + 9 + length]) << 16
                    | UInt(base[offset + 10 + length]) << 8 | UInt(base[offset + 11 + length])
                let computed = imgf_crc32(0, base + offset + 4, UInt32(length + 4))
                if computed != stored { return true }
                if base[offset + 4] == 0x49, base[offset + 5] == 0x45, base[offset + 6] == 0x4E, base[offset + 7] == 0x44 { return false }
                offset += 12 + length
            }
            return false
        }
    }

    /// Walks the chunks: the file must reach an IEND chunk with every chunk complete.
    private static func pngHasEnd(_ bytes: [UInt8]) -> Bool {
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let type = bytes[(offset + 4)..<(offset + 8)]
            let next = offset + 12 + length
            guard length >= 0, next <= bytes.count else { return false }
            if Array(type) == Array("IEND".utf8) { return true }
            offset = next
        }
        return false
    }

    /// Walks the blocks: the file must reach the trailer (3B) with every block complete.
    private static func gifHasTrailer(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 13 else { return false }
        var offset = 13
        let flags = bytes[10]
        if flags & 0x80 != 0 { offset += 3 << (Int(flags & 0x07) + 1) }
        func skipSubBlocks() -> Bool {
            while offset < bytes.count {
                let size = Int(bytes[offset])
                offset += 1
                if size == 0 { return true }
                offset += size
            }
            return false
        }
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x3B:
                return true
            case 0x21:
                offset += 2
                guard skipSubBlocks() else { return false }
            case 0x2C:
                guard offset + 10 <= bytes.count else { return false }
                let localFlags = bytes[offset + 9]
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
    private static func webpDeclaresMore(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 12 else { return true }
        let declared = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        return bytes.count < declared + 8
    }
}

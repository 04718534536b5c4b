import CVips
import Foundation

/// JPEG: truncated when the entropy-coded data of the last scan ends before the image's last MCU row, as libjpeg's
/// "Premature end of JPEG file" with rows missing. A missing end-of-image marker after complete data is not.
enum JPEGCheck {
    /// `memoryLimit` (bytes, 0 for none) is libjpeg's `max_memory_to_use` for the check, with room for libjpeg's
    /// own tables on top (`slack`): a check that would need more gives no verdict (the decode-memory limit judged
    /// the header before). Throws when the check can't be made (libjpeg's functions not found or another version's,
    /// no memory for the check): a JPEG cut short would otherwise pass as whole.
    static func damage(in input: VipsInput, reader: ByteReader, memoryLimit: Int64 = 0) throws(ImgError) -> DataDamage? {
        // The usual case costs one pass of memchr: an end-of-image marker after the last scan means nothing is cut.
        let markers = scanMarkers(reader)
        // Counted again as libjpeg reads the stream only when the bytes hold that many FF DA anywhere (an embedded
        // thumbnail, data after the end, a Motion Photo's video): rarely.
        if markers.scans > maxScans, streamScans(reader, limit: maxScans) > maxScans {
            return DataDamage(severity: .corrupt, message: "corrupt jpeg data: more than \(maxScans) scans (a "
                              + "progressive JPEG that would take minutes to decode)", undecodable: true)
        }
        if markers.endAfterLastScan { return nil }
        var rows: Int32 = 0, height: Int32 = 0
        let limit = memoryLimit > 0 ? Int(clamping: memoryLimit.saturatingAdding(slack)) : 0
        let result: Int32 = switch input {
        case .buffer(let bytes):
            imgf_jpeg_rows(bytes.pointer.assumingMemoryBound(to: UInt8.self), bytes.count, -1, 0, limit, &rows, &height)
        case .region(let region):
            imgf_jpeg_rows(nil, region.count, region.descriptor, region.offset, limit, &rows, &height)
        }
        if result == -2 { throw .internalFailure("the JPEG integrity check can't be made (libjpeg not usable, or no memory)") }
        guard result == 1 else { return nil }
        return height > 0 ? .truncated(row: Int(rows), of: Int(height))
            : DataDamage(severity: .truncated, message: "truncated: the file ends inside the JPEG header (\(input.count) bytes)")
    }

    /// What libjpeg may allocate beyond the decode-memory limit for its tables and buffers: 16 MiB.
    static let slack: Int64 = 16 << 20

    /// The most start-of-scan markers a JPEG may have: 500, as libjpeg-turbo's own tools bound them. libjpeg reads
    /// every scan of a progressive JPEG before its first row, and each costs a pass over all the image's
    /// coefficients (7 ms for 64 megapixels): a small file of thousands of empty scans took minutes, where
    /// neither `--max-render-time` nor a signal could stop it. Encoders write 10 or so.
    static let maxScans = 500

    /// The scans of the JPEG's stream as libjpeg reads it, to its end-of-image marker: each segment skipped by its
    /// length (an embedded thumbnail's markers with it), each scan's entropy-coded data up to the next marker.
    /// Stops counting past `limit`.
    static func streamScans(_ bytes: ByteReader, limit: Int) -> Int {
        var index = 2, scans = 0
        while scans <= limit, bytes.byte(at: index) == 0xFF, let marker = bytes.byte(at: index + 1) {
            switch marker {
            case 0xFF: index += 1  // a fill byte before the marker
            case 0xD9: return scans
            case 0x01, 0xD0...0xD7: index += 2
            default:
                guard let high = bytes.byte(at: index + 2), let low = bytes.byte(at: index + 3) else { return scans }
                index += 2 + Int(high) << 8 + Int(low)
                guard marker == 0xDA else { continue }
                scans += 1
                // The entropy-coded data: FF is followed by 00 (a stuffed byte) or a restart marker in it.
                while let byte = bytes.byte(at: index) {
                    if byte == 0xFF, let next = bytes.byte(at: index + 1), next != 0, !(0xD0...0xD7).contains(next) { break }
                    index += 1
                }
            }
        }
        return scans
    }

    /// Whether the last start-of-scan marker (FF DA) is followed by an end-of-image marker (FF D9), and how many
    /// start-of-scan markers there are (any FF DA, so an embedded thumbnail's count too). Inside entropy-coded data
    /// FF is always followed by 00 or a restart marker, so FF D9 and FF DA can't appear there by accident.
    static func scanMarkers(_ bytes: ByteReader) -> (endAfterLastScan: Bool, scans: Int) {
        var lastScan = -1, lastEnd = -1, scans = 0
        var start = 0
        var previousWasMarker = false
        bytes.scan(from: 0, length: bytes.count) { window in
            guard let base = window.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return true }
            let count = window.count
            func note(_ byte: UInt8, markerAt position: Int) {
                if byte == 0xDA {
                    lastScan = position
                    scans += 1
                } else if byte == 0xD9 {
                    lastEnd = position
                }
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
        return (lastScan >= 0 && lastEnd > lastScan, scans)
    }
}

/// The sizes of a TIFF's pages, read from its chain of image file directories (IFDs) in one pass: libvips opens
/// a page by walking the chain from the first IFD, so asking it page by page costs the square of the pages (4,000
/// pages of 1 × 1 took 207 s).
///
/// Edge cases:
/// - Classic TIFF (`II*\0`, `MM\0*`: 12-byte entries, 32-bit offsets) and BigTIFF (`II+\0`, `MM\0+`: 20-byte
///   entries, 64-bit offsets), either byte order.
/// - A page's width and height are tags 256 and 257 as SHORT, LONG or LONG8 with a count of 1; a page without
///   both, an offset past the end or an IFD seen before (a loop) ends the reading with no answer (nil).
/// - An IFD of more than `maxEntries` entries is no answer either.
/// - At most `limit` pages are read; the chain ends at a next-IFD offset of 0.
enum TIFFPages {
    /// The most entries an IFD may have here (real ones have a few dozen): 4096.
    static let maxEntries = 4096

    /// The (width, height) of each page in order, at most `limit` of them; nil when the bytes are no TIFF this
    /// reader follows to its end or to `limit`.
    static func sizes(_ reader: ByteReader, limit: Int) -> [(width: Int, height: Int)]? {
        guard let head = reader.bytes(at: 0, length: 16), let layout = Layout(head) else { return nil }
        var sizes: [(width: Int, height: Int)] = []
        var offset = layout.firstIFD(head)
        var seen: Set<Int> = []
        while offset != 0, sizes.count < limit {
            guard seen.insert(offset).inserted, let (size, next) = page(at: offset, reader, layout) else { return nil }
            sizes.append(size)
            offset = next
        }
        return sizes
    }

    /// One IFD: the page's size and the next IFD's offset.
    private static func page(at offset: Int, _ reader: ByteReader, _ layout: Layout) -> ((width: Int, height: Int), Int)? {
        guard offset < reader.count, let countBytes = reader.bytes(at: offset, length: layout.countBytes) else {
            return nil
        }
        let count = layout.number(countBytes, at: 0, bytes: layout.countBytes)
        guard count > 0, count <= maxEntries else { return nil }
        let entriesStart = offset + layout.countBytes
        guard let entries = reader.bytes(at: entriesStart, length: count * layout.entryBytes + layout.offsetBytes) else {
            return nil
        }
        var width: Int?, height: Int?
        for index in 0..<count {
            let at = index * layout.entryBytes
            let tag = layout.number(entries, at: at, bytes: 2)
            guard tag == 256 || tag == 257 else { continue }
            let type = layout.number(entries, at: at + 2, bytes: 2)
            let valueAt = at + 4 + layout.offsetBytes
            guard layout.number(entries, at: at + 4, bytes: layout.offsetBytes) == 1 else { return nil }
            let value: Int
            switch type {
            case 3: value = layout.number(entries, at: valueAt, bytes: 2)
            case 4: value = layout.number(entries, at: valueAt, bytes: 4)
            case 16 where layout.offsetBytes == 8: value = layout.number(entries, at: valueAt, bytes: 8)
            default: return nil
            }
            if tag == 256 { width = value } else { height = value }
        }
        guard let width, let height else { return nil }
        return ((width, height), layout.number(entries, at: count * layout.entryBytes, bytes: layout.offsetBytes))
    }

    /// Byte order and field widths of classic TIFF or BigTIFF.
    private struct Layout {
        var littleEndian: Bool
        /// 4 for classic TIFF, 8 for BigTIFF: offsets, counts of values and the next-IFD offset.
        var offsetBytes: Int

        init?(_ head: [UInt8]) {
            switch (head[0], head[1]) {
            case (0x49, 0x49): littleEndian = true
            case (0x4D, 0x4D): littleEndian = false
            default: return nil
            }
            let version = littleEndian ? Int(head[2]) | Int(head[3]) << 8 : Int(head[2]) << 8 | Int(head[3])
            switch version {
            case 42: offsetBytes = 4
            case 43: offsetBytes = 8
            default: return nil
            }
        }

        /// The bytes of an IFD's entry count: 2, or 8 in BigTIFF.
        var countBytes: Int { offsetBytes == 4 ? 2 : 8 }
        /// The bytes of one entry: 12, or 20 in BigTIFF.
        var entryBytes: Int { offsetBytes == 4 ? 12 : 20 }

        func firstIFD(_ head: [UInt8]) -> Int { number(head, at: offsetBytes == 4 ? 4 : 8, bytes: offsetBytes) }

        /// An unsigned number of `bytes` bytes in this byte order, clamped to `Int.max`.
        func number(_ bytes: [UInt8], at index: Int, bytes count: Int) -> Int {
            var value: UInt64 = 0
            for position in 0..<count {
                let byte = UInt64(bytes[index + (littleEndian ? count - 1 - position : position)])
                value = value << 8 | byte
            }
            return Int(clamping: value)
        }
    }
}

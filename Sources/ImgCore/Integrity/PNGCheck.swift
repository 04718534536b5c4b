import CVips
import Foundation

/// PNG: truncated when the IDAT zlib stream does not reach its end or inflates to fewer bytes than the image needs
/// (height × (1 + row bytes), per Adam7 pass when interlaced), whatever follows it (a missing IEND, junk after it).
/// A bad checksum on an ancillary chunk is a warning (libpng drops the chunk and goes on); on a critical chunk
/// (IHDR, PLTE, IDAT) it is corrupt, but for IDAT of an image without interlace whose data still inflates whole
/// and checks out (its zlib stream ends, Adler-32 right, with every byte the image needs): a warning, as libvips
/// (libpng) reads that one at its default level, and refuses the others.
///
/// Image data that inflates to more than `excessAllowed` past what the image needs is refused at every level:
/// libpng inflates the rest of the stream after the last row in one call that nothing stops (a 10 MB IDAT of
/// deflate blocks inflates to 10 GiB). The inflating stops there, and at the check's deadline.
enum PNGCheck {
    /// How far past the image's bytes its data may inflate: 64 MiB (as for a compressed HTTP body).
    static let excessAllowed = 64 << 20
    /// The most a deflate stream can inflate to per byte (258 bytes from a 2-bit code, in the limit).
    static let deflateRatio = 1032
    /// The compressed bytes inflated between two looks at the deadline: 64 KiB (at most 64 MiB out).
    static let inflateSlice = 64 << 10

    /// What IHDR says.
    struct Header: Equatable {
        var width: Int, height: Int, bitDepth: Int, colorType: Int, interlaced: Bool

        /// Samples per pixel of the colour type (0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA).
        var channels: Int { [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colorType] ?? 1 }

        /// The filtered bytes of a row `width` pixels wide: a filter byte and the packed samples.
        func filteredRowBytes(width: Int) -> Int {
            1 + width.saturatingMultiplied(by: channels * bitDepth).saturatingAdding(7) / 8
        }

        /// The (width, height) of each pass holding pixels: one pass, or Adam7's seven.
        var passes: [(width: Int, height: Int)] {
            guard interlaced else { return [(width, height)] }
            let adam7 = [(0, 8, 0, 8), (4, 8, 0, 8), (0, 4, 4, 8), (2, 4, 0, 4), (0, 2, 2, 4), (1, 2, 0, 2), (0, 1, 1, 2)]
            return adam7.map { x0, dx, y0, dy in
                (width > x0 ? (width - x0 + dx - 1) / dx : 0, height > y0 ? (height - y0 + dy - 1) / dy : 0)
            }
        }

        /// The bytes the IDAT stream must inflate to (at most `Int.max`: IHDR's sizes go up to 2^31-1 each, so
        /// the product can overflow, and saturates).
        var neededBytes: Int {
            passes.reduce(0) { total, pass in
                pass.width == 0 || pass.height == 0 ? total : total.saturatingAdding(passBytes(pass))
            }
        }

        /// The filtered bytes of one pass (or of the whole image, not interlaced), saturating.
        func passBytes(_ pass: (width: Int, height: Int)) -> Int {
            pass.height.saturatingMultiplied(by: filteredRowBytes(width: pass.width))
        }

        /// The last complete row once `inflated` bytes are there: in the image, or for an interlaced image the row
        /// of the full image that the pass reached.
        func rowReached(inflated: Int) -> Int {
            var left = inflated
            let adam7Rows = [(0, 8), (0, 8), (4, 8), (0, 4), (2, 4), (0, 2), (1, 2)]
            for (index, pass) in passes.enumerated() where pass.width > 0 && pass.height > 0 {
                let rowBytes = filteredRowBytes(width: pass.width), passBytes = passBytes(pass)
                if left < passBytes {
                    let rows = left / rowBytes
                    guard interlaced else { return rows }
                    let (y0, dy) = adam7Rows[index]
                    return min(height, y0 + rows * dy)
                }
                left -= passBytes
            }
            return height
        }
    }

    /// The damage in a PNG's chunks (read by `PNGChunks`, whose rules for chunk lengths and the header apply).
    /// Inflating the image data stops at `deadline` with the render-time limit (`timeLimit` seconds). With
    /// `decodeBoundsTail` (default false; true when a decode bounded by `PNGTailGuard` follows), a complete file whose
    /// checksums hold is not inflated to see whether its data could overrun: the decode stops such data itself, and a
    /// decode that fails is checked again in full (`PNGTailGuard.refusal`).
    static func damage(in bytes: ByteReader, timeLimit: Double = 60, deadline: Date = .distantFuture,
                       decodeBoundsTail: Bool = false) throws(ImgError) -> DataDamage? {
        var worstChecksum: DataDamage?
        var reachedEnd = false, badCriticalChunks: Set<String> = [], imageDataBytes = 0
        // Chunk walk: checksums, and whether the file reaches a complete IEND.
        // A chunk length over 2^31-1 ends the walk as the end of the bytes would: whether the pixels before it are
        // all there is what decides (libspng stops reading there too).
        PNGChunks.walk(bytes) { chunk in
            guard chunk.complete else { return false }
            if chunk.isType("IDAT") { imageDataBytes = imageDataBytes.saturatingAdding(chunk.length) }
            if let bad = checksumDamage(bytes, chunk) {
                if worstChecksum.map({ $0.severity < bad.severity }) ?? true { worstChecksum = bad }
                if bad.severity == .corrupt { badCriticalChunks.insert(String(decoding: chunk.type, as: UTF8.self)) }
            }
            if chunk.isType("IEND") { reachedEnd = true; return false }
            return true
        }
        guard let ihdr = PNGChunks.header(bytes) else {
            if reachedEnd, worstChecksum?.severity != .corrupt { return worstChecksum }
            guard bytes.count >= PNGChunks.firstChunk + 8 + 13 else {
                return DataDamage(severity: .truncated, message: "truncated: the file ends before the PNG header (\(bytes.count) bytes)")
            }
            return DataDamage(severity: .corrupt, message: "corrupt png data: the first chunk is not a 13-byte IHDR")
        }
        let header = Header(width: ihdr.width, height: ihdr.height, bitDepth: ihdr.bitDepth, colorType: ihdr.colorType,
                            interlaced: ihdr.interlaced)
        let needed = header.neededBytes, bound = needed.saturatingAdding(excessAllowed)
        // A complete file whose checksums hold is read as it is, unless its data could inflate past the bound.
        let couldOverrun = !decodeBoundsTail && imageDataBytes.saturatingMultiplied(by: deflateRatio) > bound
        guard !reachedEnd || worstChecksum?.severity == .corrupt || couldOverrun else { return worstChecksum }
        // The file does not reach IEND, a critical chunk fails its checksum, or the data could overrun: inflate
        // what image data there is to see whether the pixels are all there.
        let (inflated, ended, clean) = try inflateImageData(bytes, bound: bound, timeLimit: timeLimit, deadline: deadline)
        if inflated > bound {
            return DataDamage(severity: .corrupt, message: "corrupt png data: the image data inflates past the "
                              + "\(needed) bytes a \(header.width)x\(header.height) image needs (a decompression bomb)",
                              undecodable: true)
        }
        if reachedEnd, worstChecksum?.severity != .corrupt { return worstChecksum }  // inflated for the bound only
        if let worstChecksum, worstChecksum.severity == .corrupt {
            guard clean, inflated >= needed, !header.interlaced, badCriticalChunks == ["IDAT"] else { return worstChecksum }
            return DataDamage(severity: .warning, message: worstChecksum.message
                .replacingOccurrences(of: "corrupt png data: the", with: "the png") + " (its image data inflates whole)")
        }
        if inflated >= needed, ended { return worstChecksum }
        return .truncated(row: header.rowReached(inflated: min(inflated, max(needed - 1, 0))), of: header.height)
    }

    /// A chunk whose stored CRC does not match its type and data.
    private static func checksumDamage(_ bytes: ByteReader, _ chunk: PNGChunks.Chunk) -> DataDamage? {
        let offset = chunk.offset, length = chunk.length, type = chunk.type
        var computed = type.withUnsafeBytes { imgf_crc32(0, $0.baseAddress, 4) }
        guard bytes.scan(from: offset + 8, length: length, { window in
            computed = imgf_crc32(computed, window.baseAddress, UInt32(window.count))
            return true
        }), let crc = bytes.bytes(at: offset + 8 + length, length: 4) else { return nil }
        guard computed != UInt(PNGChunks.bigEndian32(crc, at: 0)) else { return nil }
        let name = String(decoding: type, as: UTF8.self)
        // Bit 5 of the first letter: upper case is critical, lower case ancillary.
        return type[0] & 0x20 == 0
            ? DataDamage(severity: .corrupt, message: "corrupt png data: the \(name) chunk fails its checksum")
            : DataDamage(severity: .warning, message: "the png \(name) chunk fails its checksum (ignored)")
    }

    /// Inflates the IDAT chunks in order, the last one as far as the file goes, up to `bound` bytes (a few bytes more
    /// tell it was passed): how many bytes, and whether the zlib stream reached its end (or an error that ends it),
    /// and whether it reached it cleanly (no data error, its Adler-32 right). Past `deadline`, throws the
    /// render-time limit.
    private static func inflateImageData(_ bytes: ByteReader, bound: Int, timeLimit: Double,
                                         deadline: Date) throws(ImgError) -> (inflated: Int, ended: Bool, clean: Bool) {
        guard let inflater = imgf_inflater_new() else { return (0, false, false) }
        defer { imgf_inflater_free(inflater) }
        var status: Int32 = 0, late = false
        var seenImageData = false
        PNGChunks.walk(bytes) { chunk in
            guard chunk.isType("IDAT") else { return !seenImageData }  // the image data is one run of IDAT chunks
            seenImageData = true
            let available = min(chunk.length, bytes.count - chunk.dataOffset)
            bytes.scan(from: chunk.dataOffset, length: available) { window in
                var offset = 0
                while offset < window.count, status == 0, !late {
                    let slice = min(inflateSlice, window.count - offset)
                    status = imgf_inflater_feed(inflater, window.baseAddress! + offset, slice, UInt64(bound))
                    offset += slice
                    late = Date() > deadline
                }
                return status == 0 && !late
            }
            return status == 0 && !late
        }
        if late, status == 0 { throw .overLimit(.renderTime(seconds: timeLimit)) }
        // A data error is not for this check to judge: the stream ended there, as far as inflating goes.
        return (Int(clamping: imgf_inflater_total(inflater)), status != 0, status == 1)
    }
}

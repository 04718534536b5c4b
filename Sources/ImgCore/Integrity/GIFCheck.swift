/// GIF: truncated when the file ends inside a frame's LZW data before its pixels do; corrupt when the data holds a
/// code that can't be (libnsgif, libvips' GIF loader, fails that frame, and libvips 8.14 loses the failure now and
/// then under its thread pool), the frames before it whole. A frame whose LZW data ends early inside a complete
/// file (its sub-blocks reach their terminator, more follows) is a warning: libnsgif leaves the missing pixels
/// transparent and reads on, every frame of it. Tolerated, as giflib and libnsgif tolerate them: stray bytes
/// between blocks, a missing trailer, garbage or a cut-off block after the last complete frame.
enum GIFCheck {
    static func damage(in bytes: ByteReader) -> DataDamage? {
        guard bytes.count >= 13, let flags = bytes.byte(at: 10) else {
            return DataDamage(severity: .truncated, message: "truncated: the file ends inside the GIF header (\(bytes.count) bytes)")
        }
        var offset = 13
        if flags & 0x80 != 0 { offset += 3 << (Int(flags & 0x07) + 1) }
        var frame = 0
        var shortFrame: DataDamage?
        while offset < bytes.count, let introducer = bytes.byte(at: offset) {
            switch introducer {
            case 0x3B:
                return shortFrame
            case 0x21:
                offset += 2
                guard skipSubBlocks(bytes, &offset) else { return shortFrame }  // a cut extension: no pixels lost
            case 0x2C:
                // A frame whose descriptor is cut off has no pixels to lose; one with none before it is no image.
                guard let descriptor = bytes.bytes(at: offset, length: 10), let codeSize = bytes.byte(at: offset + 10 + colorTableLength(descriptor[9])) else {
                    return frame == 0 ? .truncated(row: 0, of: 0) : shortFrame
                }
                let width = Int(descriptor[5]) | Int(descriptor[6]) << 8, height = Int(descriptor[7]) | Int(descriptor[8]) << 8
                offset += 10 + colorTableLength(descriptor[9]) + 1
                let count = LZWCounter.count(bytes, from: &offset, minimumCodeSize: Int(codeSize), wanted: width * height)
                if count.invalidCode {
                    return .invalidGIFCode(row: width > 0 ? count.pixels / width : 0, of: height, frame: frame)
                }
                if count.pixels < width * height, width > 0 {
                    guard count.terminated else {
                        return .truncated(row: count.pixels / width, of: height, frame: frame == 0 && offset >= bytes.count ? nil : frame)
                    }
                    shortFrame = shortFrame ?? .shortGIFFrame(row: count.pixels / width, of: height, frame: frame)
                }
                frame += 1
            default:
                offset += 1  // a stray byte between blocks
            }
        }
        return frame == 0 ? DataDamage(severity: .truncated, message: "truncated: the GIF file ends before its first frame") : shortFrame
    }

    private static func colorTableLength(_ flags: UInt8) -> Int { flags & 0x80 != 0 ? 3 << (Int(flags & 0x07) + 1) : 0 }

    /// Moves past data sub-blocks up to their terminator; false when the file ends first.
    private static func skipSubBlocks(_ bytes: ByteReader, _ offset: inout Int) -> Bool {
        while let size = bytes.byte(at: offset) {
            offset += 1
            if size == 0 { return true }
            offset += Int(size)
        }
        return false
    }
}

/// Counts the pixels a frame's LZW data decodes to, without decoding them: each code's string length is its
/// prefix's plus one.
enum LZWCounter {
    /// What a frame's LZW data gives.
    struct Count: Equatable {
        /// The pixels decoded, up to the ones wanted; up to the invalid code when there is one.
        var pixels: Int
        /// A code that can't be: past the next free table entry, or a first code (after a clear) outside the
        /// initial table. libnsgif fails the frame there (lenient decoders, ImageMagick's, guess on).
        var invalidCode = false
        /// The sub-blocks reached their terminator: the frame's data is complete as written, whatever it decodes to.
        var terminated = false
    }

    /// Reads the sub-blocks from `offset` (left past the terminator, or at the end of the file) and returns how many
    /// pixels they give, up to `wanted`, and whether they hold an invalid code.
    static func count(_ bytes: ByteReader, from offset: inout Int, minimumCodeSize: Int, wanted: Int) -> Count {
        guard (1...11).contains(minimumCodeSize) else { return Count(pixels: 0) }
        let clear = 1 << minimumCodeSize, end = clear + 1
        var lengths = [Int32](repeating: 1, count: 4096)
        var codeSize = minimumCodeSize + 1, next = end + 1, previous = -1
        var bitBuffer = 0, bitCount = 0, produced = 0
        var finished = false, invalidCode = false
        while let size = bytes.byte(at: offset) {
            offset += 1
            if size == 0 { return Count(pixels: produced, invalidCode: invalidCode, terminated: true) }
            // The last sub-block may be cut: its bytes up to the end of the file still count.
            let available = min(Int(size), bytes.count - offset)
            if !finished { bytes.scan(from: offset, length: available) { consume($0); return !finished } }
            offset += Int(size)
            if available < Int(size) { offset = bytes.count; return Count(pixels: produced, invalidCode: invalidCode) }
        }
        return Count(pixels: produced, invalidCode: invalidCode)

        func consume(_ block: UnsafeRawBufferPointer) {
            for byte in block where !finished {
                bitBuffer |= Int(byte) << bitCount
                bitCount += 8
                while bitCount >= codeSize, !finished {
                    let code = bitBuffer & ((1 << codeSize) - 1)
                    bitBuffer >>= codeSize
                    bitCount -= codeSize
                    if code == clear {
                        codeSize = minimumCodeSize + 1; next = end + 1; previous = -1
                        continue
                    }
                    if code == end { finished = true; break }
                    var length: Int32
                    if previous < 0 {
                        guard code < clear else { invalidCode = true; finished = true; break }
                        length = 1
                    } else if code < next {
                        length = lengths[code]
                        if next < 4096 { lengths[next] = lengths[previous] + 1; next += 1 }
                    } else if code == next, next < 4096 {
                        length = lengths[previous] + 1
                        lengths[next] = length; next += 1
                    } else {
                        invalidCode = true  // a code that can't be
                        finished = true
                        break
                    }
                    produced += Int(length)
                    previous = code
                    if produced >= wanted { finished = true; break }
                    if next == 1 << codeSize, codeSize < 12 { codeSize += 1 }
                }
            }
        }
    }
}

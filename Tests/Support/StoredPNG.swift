import CVips
import Foundation

/// Writes large test images without an encoder: an RGB PNG whose rows are stored (deflate without compression),
/// so its size is about 3·width·height bytes whatever the pixels are: noise (a few dozen random rows, repeated) or
/// rows the caller gives.
enum StoredPNG {
    /// Writes a `width`×`height` PNG of noise to `path` (width up to 21844, so that a row fits in one stored block).
    static func write(width: Int, height: Int, to path: String) throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let rows: [[UInt8]] = (0..<61).map { _ in
            (0..<(3 * width)).map { _ in
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                return UInt8(truncatingIfNeeded: state >> 24)
            }
        }
        try write(width: width, height: height, to: path) { rows[$0 % rows.count] }
    }

    /// Writes a `width`×`height` PNG whose row `y` is `row(y)`: `3 * width` bytes, red, green, blue a pixel.
    static func write(width: Int, height: Int, to path: String, row: (Int) -> [UInt8]) throws {
        let rowBytes = 1 + 3 * width
        precondition(rowBytes <= 0xFFFF)
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw TestFailure("cannot create \(path)") }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }

        var header = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        header += chunk("IHDR", bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + Data([8, 2, 0, 0, 0]))
        try handle.write(contentsOf: header)

        var adler: UInt = 1
        var data = Data([0x78, 0x01])
        for y in 0..<height {
            let row = [0] + row(y)
            precondition(row.count == rowBytes)
            let last = y == height - 1
            let length = UInt16(rowBytes)
            data.append(last ? 1 : 0)
            data.append(contentsOf: [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)])
            data.append(contentsOf: row)
            adler = row.withUnsafeBytes { imgf_adler32(adler, $0.baseAddress, UInt32($0.count)) }
            if last { data += bigEndian(UInt32(adler)) }
            if data.count >= 1 << 20 || last {
                try handle.write(contentsOf: chunk("IDAT", data))
                data = Data()
            }
        }
        try handle.write(contentsOf: chunk("IEND", Data()))
    }

    private static func bigEndian(_ value: UInt32) -> Data {
        Data([UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)])
    }

    /// Length, type, data and CRC-32 of type and data.
    private static func chunk(_ type: String, _ data: Data) -> Data {
        let body = Data(type.utf8) + data
        let crc = body.withUnsafeBytes { imgf_crc32(0, $0.baseAddress, UInt32($0.count)) }
        return bigEndian(UInt32(data.count)) + body + bigEndian(UInt32(crc))
    }
}

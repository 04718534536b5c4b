import Foundation

/// A progressive JPEG with a great many scans: the segments of `base` (a progressive JPEG) up to its first scan
/// (the DC one), then `scans` AC scans of its first component that code no coefficient (one end-of-band run after
/// another), then the end of the image. libjpeg reads every scan before the first row, each a pass over all the
/// component's `blocks` blocks of coefficients: small bytes, long decodes.
enum ScanBomb {
    static func make(from base: Data, scans: Int, blocks: Int) throws -> Data {
        let bytes = [UInt8](base)
        var index = 2
        var made: [UInt8] = [0xFF, 0xD8]
        while true {
            guard index + 4 <= bytes.count, bytes[index] == 0xFF else { throw TestFailure("not a JPEG segment at \(index)") }
            let marker = bytes[index + 1]
            let end = index + 2 + Int(bytes[index + 2]) << 8 + Int(bytes[index + 3])
            guard marker == 0xDA else {
                made += bytes[index..<end]
                index = end
                continue
            }
            // The first scan's entropy-coded data ends at the first marker that is neither a stuffed 00 nor a restart.
            var data = end
            while data + 1 < bytes.count, bytes[data] != 0xFF || bytes[data + 1] == 0 || (0xD0...0xD7).contains(bytes[data + 1]) {
                data += 1
            }
            made += bytes[index..<data]
            break
        }
        // AC table 3: one code of one bit, for end-of-band runs of 2^14 blocks and more (14 extra bits).
        made += [0xFF, 0xC4, 0x00, 0x14, 0x13, 1] + [UInt8](repeating: 0, count: 15) + [0xE0]
        let runs = (blocks + (1 << 14) - 1) >> 14
        let scan: [UInt8] = [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x03, 0x01, 0x3F, 0x00]
            + [UInt8](repeating: 0, count: (runs * 15 + 7) / 8)
        for _ in 0..<scans { made += scan }
        return Data(made + [0xFF, 0xD9])
    }
}

import Foundation
import Testing
import CVips
@testable import ImgCore

/// Numbers read from input whose products or sums overflow (issue #38 item 4): each is judged, never trapped on.
/// Without the saturating arithmetic each of these ends the process with SIGILL (exit 132).
@Suite("Overflow traps")
struct OverflowTrapTests {
    /// A 1-byte-wide box: 4-byte big-endian size, 4-letter type, then `body`.
    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
        let size = UInt32(8 + body.count)
        return withUnsafeBytes(of: size.bigEndian, Array.init) + Array(type.utf8) + body
    }

    /// An AVIF of ~90 bytes: `ftyp` (brand avif) and a `meta` box holding one `ispe` (full box, version 0) that
    /// declares `width` × `height`; no image data.
    static func avif(width: UInt32, height: UInt32) -> Data {
        let ftyp = box("ftyp", Array("avif".utf8) + [0, 0, 0, 0] + Array("avifmif1miaf".utf8))
        let ispe = box("ispe", [0, 0, 0, 0] + withUnsafeBytes(of: width.bigEndian, Array.init)
                       + withUnsafeBytes(of: height.bigEndian, Array.init))
        let meta = box("meta", [0, 0, 0, 0] + box("iprp", box("ipco", ispe)))
        return Data(ftyp + meta)
    }

    /// A PNG chunk with its CRC.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        let crc = UInt32(typed.withUnsafeBytes { imgf_crc32(0, $0.baseAddress, UInt32($0.count)) })
        return withUnsafeBytes(of: UInt32(data.count).bigEndian, Array.init) + typed + withUnsafeBytes(of: crc.bigEndian, Array.init)
    }

    /// A ~70-byte PNG: IHDR 2^31-1 × 2^31-1, RGBA 16-bit, one IDAT with a few bytes of a zlib stream, no IEND.
    static func hugePNG() -> Data {
        let side = withUnsafeBytes(of: UInt32(0x7FFF_FFFF).bigEndian, Array.init)
        let ihdr = chunk("IHDR", side + side + [16, 6, 0, 0, 0])
        let idat = chunk("IDAT", [0x78, 0x01, 0x00, 0x00, 0x80, 0xFF, 0x7F, 0x00])
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + ihdr + idat)
    }

    @Test func anAVIFDeclaringTheLargestSizeIsOverThePixelLimit() throws {
        let data = Self.avif(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF)
        let size = data.withUnsafeBytes { HEIFSize.largest(ByteReader(memory: $0)) }
        #expect(size?.width == 0xFFFF_FFFF && size?.height == 0xFFFF_FFFF)
        // Two boxes: the larger product wins even when both saturate or one does.
        let two = Self.avif(width: 3, height: 3) + Self.box("ispe", [0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(two.withUnsafeBytes { HEIFSize.largest(ByteReader(memory: $0)) }?.width == 0xFFFF_FFFF)
        var input = VipsInput(.memory(data))
        #expect(throws: ImgError.self) { try ImageDecoder.checkHeader(&input, isRemote: true, options: DecodeOptions()) }
    }

    @Test func aPNGDeclaringTheLargestSizeIsTruncatedNotATrap() throws {
        let header = PNGCheck.Header(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF, bitDepth: 16, colorType: 6, interlaced: false)
        #expect(header.neededBytes == Int.max)
        #expect(PNGCheck.Header(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF, bitDepth: 16, colorType: 6, interlaced: true).neededBytes == Int.max)
        #expect(header.rowReached(inflated: 100) == 0)
        let data = Self.hugePNG()
        let damage = try data.withUnsafeBytes { try IntegrityCheck.damage(in: VipsInput(.memory(data)), format: .png, reader: ByteReader(memory: $0)) }
        #expect(damage?.severity == .truncated)
        #expect(damage?.message.contains("of 2147483647") == true, "\(damage?.message ?? "nil")")
    }

    @Test func aContentRangeEndingAtTheLargestOffsetDoesNotMatch() {
        let parsed = RangedDownload.contentRange("bytes 0-9223372036854775807/*")
        #expect(parsed?.last == Int64.max)
        #expect(parsed.map { RangedDownload.range($0, covers: 10, from: 0) } == false)
        let huge = (first: Int64.max - 1, last: Int64.max, total: Int64?.none)
        #expect(!RangedDownload.range(huge, covers: 10, from: Int64.max - 1))
        #expect(RangedDownload.range(huge, covers: 2, from: Int64.max - 1))
        #expect(RangedDownload.range((first: 0, last: 9, total: 10), covers: 10, from: 0))
        #expect(!RangedDownload.range((first: 0, last: 9, total: 10), covers: 9, from: 0))
    }

    /// The crafted files end to end, as local inputs: one line, exit 5, no crash.
    @Test func theCraftedFilesAreRefusedFromTheCommandLine() throws {
        let work = try TemporaryDirectory()
        for (name, data) in [("huge.avif", Self.avif(width: 0xFFFF_FFFF, height: 0xFFFF_FFFF)), ("huge.png", Self.hugePNG())] {
            let path = work.file(name)
            try data.write(to: URL(fileURLWithPath: path))
            let result = try Imgfetch.run([path, "-o", work.file(name + ".out.jpg"), "--no-cache"])
            #expect(result.status == 5, "\(name): \(result.status) \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(name): \(result.stderr)")
        }
    }
}

extension OverflowTrapTests {
    /// The refusal's wording of a saturated pixel count: it rounded by adding half a megapixel first.
    @Test func theLargestPixelCountIsWorded() {
        #expect(RefusalMessage.megapixels(Int64.max) == "9223372036855 MP")
        #expect(RefusalMessage.megapixels(12_500_000) == "13 MP")
        #expect(RefusalMessage.megapixels(12_499_999) == "12 MP")
    }
}

import Foundation
import Testing
@testable import ImgCore
@testable import ImgRenderer

/// Hand-made byte strings for the one JPEG marker walker (`JPEGMarkers`) and the one PNG chunk reader
/// (`PNGChunks`), and for their callers: the renderer's reply check, the decode-memory estimate, the PNG check.
@Suite("JPEG markers and PNG chunks")
struct HeaderParsingTests {
    // MARK: JPEG

    static let soi: [UInt8] = [0xFF, 0xD8]

    /// A frame segment: marker `code`, `width`×`height`, `components` with 2×2 sampling for the first.
    static func sof(_ code: UInt8 = 0xC0, width: Int = 300, height: Int = 200, components: Int = 3) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, code, 0, UInt8(8 + 3 * components), 8,
                              UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF), UInt8(components)]
        for index in 0..<components { bytes += [UInt8(index + 1), index == 0 ? 0x22 : 0x11, 0] }
        return bytes
    }

    /// A start-of-scan segment with `components` components, then a little entropy-coded data.
    static func sos(_ components: Int = 3) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xDA, 0, UInt8(6 + 2 * components), UInt8(components)]
        for index in 0..<components { bytes += [UInt8(index + 1), 0] }
        return bytes + [0, 63, 0, 0x12, 0x34]
    }

    /// An APPn-like segment of `count` content bytes.
    static func segment(_ code: UInt8, _ count: Int) -> [UInt8] {
        [0xFF, code, UInt8((count + 2) >> 8), UInt8((count + 2) & 0xFF)] + [UInt8](repeating: 0x55, count: count)
    }

    /// (what, bytes, expected width×height or nil).
    static let jpegCases: [(String, [UInt8], (Int, Int)?)] = [
        ("plain", soi + segment(0xE0, 14) + sof() + sos(), (300, 200)),
        ("fill bytes before a marker", soi + [0xFF, 0xFF, 0xFF] + segment(0xE0, 4) + [0xFF, 0xFF] + sof() + sos(), (300, 200)),
        ("RSTn and TEM stand alone", soi + [0xFF, 0xD0, 0xFF, 0x01, 0xFF, 0xD7] + sof(width: 7, height: 9) + sos(), (7, 9)),
        ("extraneous bytes before a marker (skipped, as libjpeg)", soi + [0x00, 0x12, 0xFF, 0x00] + sof() + sos(), (300, 200)),
        ("a second SOI", soi + soi + sof() + sos(), nil),
        ("EOI before the frame", soi + [0xFF, 0xD9] + sof() + sos(), nil),
        ("segment length 0", soi + [0xFF, 0xE0, 0x00, 0x00] + sof() + sos(), nil),
        ("segment length 1", soi + [0xFF, 0xE0, 0x00, 0x01] + sof() + sos(), nil),
        ("segment past the end", soi + [0xFF, 0xE1, 0x40, 0x00, 1, 2, 3], nil),
        ("frame past the end", soi + Array(sof().prefix(12)), nil),
        ("cut after SOI", soi, nil),
        ("no SOI", [0xFF, 0xE0] + sof() + sos(), nil),
        ("frame length not 8 + 3n", soi + { var frame = sof(); frame[3] += 1; return frame }() + [0] + sos(), nil),
        ("frame of no components", soi + [0xFF, 0xC0, 0, 8, 8, 0, 1, 0, 1, 0] + sos(), nil),
        ("DHT, JPG and DAC are no frames", soi + [0xFF, 0xC4] + Array(sof().dropFirst(2)) + [0xFF, 0xC8] + Array(sof().dropFirst(2))
            + [0xFF, 0xCC] + Array(sof().dropFirst(2)) + sof(0xC1, width: 5, height: 6) + sos(), (5, 6)),
    ]

    @Test(arguments: 0..<jpegCases.count)
    func jpegFrameEdgeCases(_ index: Int) {
        let (what, bytes, expected) = Self.jpegCases[index]
        let frame = JPEGMarkers.frame(in: Data(bytes))
        #expect(frame.map { [$0.width, $0.height] } == expected.map { [$0.0, $0.1] }, "\(what)")
        let header = JPEGMarkers.header(in: Data(bytes))
        #expect(header.map { [$0.width, $0.height] } == expected.map { [$0.0, $0.1] }, "\(what) (to the first scan)")
        // The renderer's reply check reads the same size (on today's main it misread fill bytes and a second SOI).
        let size = ReplyCheck.headerSize(Data(bytes), format: .jpeg)
        #expect(size.map { [$0.width, $0.height] } == expected.map { [$0.0, $0.1] }, "\(what) (reply check)")
    }

    @Test func startOfFrameMarkersAreExactlyTheThirteen() {
        let frames = (0xC0...0xCF).map(UInt8.init).filter(JPEGMarkers.isStartOfFrame)
        #expect(frames == [0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF])
        for code in frames {
            let header = JPEGMarkers.header(in: Data(Self.soi + Self.sof(code) + Self.sos()))
            #expect(header?.code == code)
            #expect(header?.progressive == [0xC2, 0xC6, 0xCA, 0xCE].contains(code), "SOF \(String(code, radix: 16))")
        }
    }

    @Test func headerReadsTheFirstScanAndRefusesTwoFrames() {
        let severalScans = JPEGMarkers.header(in: Data(Self.soi + Self.sof() + Self.sos(1)))
        #expect(severalScans?.firstScanComponents == 1)
        #expect(severalScans.map(DecodeMemory.needsEveryCoefficient) == true)
        #expect(JPEGMarkers.header(in: Data(Self.soi + Self.sof() + Self.sos())).map(DecodeMemory.needsEveryCoefficient) == false)
        #expect(JPEGMarkers.header(in: Data(Self.soi + Self.sof() + Self.sof(0xC2) + Self.sos())) == nil, "two SOF markers")
        #expect(JPEGMarkers.frame(in: Data(Self.soi + Self.sof() + Self.sof(0xC2) + Self.sos()))?.code == 0xC0)
        #expect(JPEGMarkers.header(in: Data(Self.soi + Self.sos() + Self.sof())) == nil, "a scan before the frame")
    }

    @Test func aProgressiveHeaderAfterFillBytesIsEstimatedWhole() {
        let bytes = Data(Self.soi + [0xFF, 0xFF] + Self.sof(0xC2, width: 4000, height: 3000) + Self.sos(1))
        let frame = JPEGMarkers.header(in: bytes)
        // 250 × 188 MCUs of 16×16: 4 blocks of luma and 1 of each chroma a MCU, 128 bytes a block.
        #expect(frame.map(DecodeMemory.coefficientBytes).map(Int.init) == 250 * 188 * 6 * 128)
    }

    // MARK: PNG

    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func be32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    static func chunk(_ type: String, _ data: [UInt8], length: UInt32? = nil) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return be32(length ?? UInt32(data.count)) + typed + be32(crc32(typed))
    }

    static func ihdr(width: UInt32 = 1, height: UInt32 = 1, interlace: UInt8 = 0) -> [UInt8] {
        be32(width) + be32(height) + [8, 0, 0, 0, interlace]
    }

    /// One 1×1 grey row (filter 0, sample 0) in a zlib stream of one stored block.
    static let onePixel: [UInt8] = [0x78, 0x01, 0x01, 0x02, 0x00, 0xFD, 0xFF, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01]

    /// (what, bytes, expected width×height or nil).
    static let pngCases: [(String, [UInt8], (Int, Int)?)] = [
        ("plain", signature + chunk("IHDR", ihdr(width: 640, height: 480)) + chunk("IEND", []), (640, 480)),
        ("IHDR without its CRC", signature + Array(chunk("IHDR", ihdr(width: 3, height: 2)).dropLast(4)), (3, 2)),
        ("truncated IHDR", signature + Array(chunk("IHDR", ihdr()).prefix(18)), nil),
        ("IHDR of 12 bytes", signature + chunk("IHDR", Array(ihdr().prefix(12))), nil),
        ("IHDR of 14 bytes", signature + chunk("IHDR", ihdr() + [0]), nil),
        ("first chunk not IHDR", signature + chunk("tEXt", Array("a\0b".utf8)) + chunk("IHDR", ihdr()), nil),
        ("no chunks", signature, nil),
    ]

    @Test(arguments: 0..<pngCases.count)
    func pngHeaderEdgeCases(_ index: Int) {
        let (what, bytes, expected) = Self.pngCases[index]
        let header = PNGChunks.header(in: Data(bytes))
        #expect(header.map { [$0.width, $0.height] } == expected.map { [$0.0, $0.1] }, "\(what)")
        // The reply check reads the same (on today's main it read bytes 16-23 whatever chunk held them).
        let size = ReplyCheck.headerSize(Data(bytes), format: .png)
        #expect(size.map { [$0.width, $0.height] } == expected.map { [$0.0, $0.1] }, "\(what) (reply check)")
    }

    static func damage(_ bytes: [UInt8]) -> DataDamage? {
        try? IntegrityCheck.damage(in: VipsInput(.memory(Data(bytes))), format: .png)
    }

    @Test func pngCheckJudgesTheHeaderByTheSameRules() {
        #expect(Self.damage(Self.signature + Self.chunk("IHDR", Self.ihdr()) + Self.chunk("IDAT", Self.onePixel) + Self.chunk("IEND", [])) == nil)
        #expect(Self.damage(Self.signature + Array(Self.chunk("IHDR", Self.ihdr()).prefix(20)))?.message
                == "truncated: the file ends before the PNG header (28 bytes)")
        // On today's main an IHDR after another chunk was taken as the header.
        let late = Self.damage(Self.signature + Self.chunk("tEXt", Array("a\0b".utf8)) + Self.chunk("IHDR", Self.ihdr())
                               + Self.chunk("IDAT", Self.onePixel))
        #expect(late == DataDamage(severity: .corrupt, message: "corrupt png data: the first chunk is not a 13-byte IHDR"))
        #expect(Self.damage(Self.signature + Self.chunk("IHDR", Self.ihdr())) == .truncated(row: 0, of: 1))
    }

    @Test func aChunkLengthOver31BitsEndsTheWalk() {
        let bytes = Self.signature + Self.chunk("IHDR", Self.ihdr()) + Self.chunk("IDAT", Self.onePixel)
            + Self.chunk("tEXt", [1, 2, 3], length: 0x8000_0000)
        let end = Data(bytes).withUnsafeBytes { memory in
            var types: [String] = []
            let end = PNGChunks.walk(ByteReader(memory: memory)) { types.append($0.name); return true }
            return (types, end)
        }
        #expect(end.0 == ["IHDR", "IDAT"])
        #expect(end.1 == .invalidLength(offset: 8 + 25 + 25))
        // The pixels before it are all there: as a file cut there, nothing is missing.
        #expect(Self.damage(bytes) == nil)
        let cut = Self.signature + Self.chunk("IHDR", Self.ihdr()) + Self.chunk("IDAT", Array(Self.onePixel.prefix(9)))
            + Self.chunk("tEXt", [], length: 0xFFFF_FFFF)
        #expect(Self.damage(cut) == .truncated(row: 0, of: 1))
    }
}

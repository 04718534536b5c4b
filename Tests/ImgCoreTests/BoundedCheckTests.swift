import Foundation
import Testing
@testable import ImgCore

/// The integrity checks that read an input before it is decoded stay within the limits (issue #38 items 5–7):
/// a crafted header can't make them allocate or work past what `--max-decode-memory`, `--max-pixels`,
/// `--max-frames` and `--max-render-time` allow.
@Suite("Bounded checks")
struct BoundedCheckTests {
    let work: TemporaryDirectory

    init() throws {
        work = try TemporaryDirectory()
    }

    /// A JPEG marker segment: FF, code, a big-endian length counting itself, the body.
    static func segment(_ code: UInt8, _ body: [UInt8]) -> [UInt8] {
        [0xFF, code, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
    }

    /// A 135-byte truncated progressive JPEG: SOI, a DQT of all 1s, SOF2 declaring 16000 × 16000 with 3 components
    /// at 1×1 sampling, one DC Huffman table (a single 1-bit code), a DC-first SOS of the 3 components, 8 zero data
    /// bytes, and no EOI. libjpeg allocates every coefficient of the declared image (1.5 GB) to read it.
    static func truncatedProgressiveJPEG() -> Data {
        let quantization = segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        let frame = segment(0xC2, [8, 0x3E, 0x80, 0x3E, 0x80, 3, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0])
        let huffman = segment(0xC4, [0x00, 1] + [UInt8](repeating: 0, count: 15) + [0])
        let scan = segment(0xDA, [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 0, 0])
        return Data([0xFF, 0xD8] + quantization + frame + huffman + scan + [UInt8](repeating: 0, count: 8))
    }

    /// Before: the integrity check read the data first, 1,548 MB peak and ~7 s, then exit 5 whatever the limits.
    /// Now the frame header is judged against the limits first: refused at once, in one line, in little memory.
    @Test func aTruncatedProgressiveJPEGIsJudgedByItsHeaderFirst() throws {
        let path = work.file("cut.jpg")
        try Self.truncatedProgressiveJPEG().write(to: URL(fileURLWithPath: path))
        // The decode-memory limit (the pixels let through), and the default limits (its 256 MP is over --max-pixels).
        for limits in [["--max-decode-memory", "16M", "--max-pixels", "300000000"], []] {
            let started = Date()
            let result = try Imgfetch.measured([path, "--no-cache", "-o", work.file("out.jpg")] + limits)
            let seconds = Date().timeIntervalSince(started)
            #expect(result.status == 5, "\(limits): \(result.status) \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(limits): \(result.stderr)")
            let named = limits.isEmpty ? "--max-pixels" : "--max-decode-memory 16 MiB"
            #expect(result.stderr.contains(named), "\(limits): \(result.stderr)")
            #expect(result.peakKiB < 200 * 1024, "\(limits): peak \(result.peakKiB) KiB")
            #expect(seconds < 5, "\(limits): \(seconds) s")
        }
        #expect(!FileManager.default.fileExists(atPath: work.file("out.jpg")))
    }

    /// libjpeg's `max_memory_to_use` bounds the check itself: under a 16 MiB limit it gives no verdict instead
    /// of allocating the 1.5 GB (it has no backing store), where without a limit it finds the data cut short.
    @Test func theJPEGCheckIsBoundedByTheDecodeMemoryLimit() throws {
        try VipsRuntime.start()  // the check uses the libjpeg libvips loads, looked up once
        let data = Self.truncatedProgressiveJPEG()
        let input = VipsInput(.memory(data))
        let bounded = data.withUnsafeBytes { JPEGCheck.damage(in: input, reader: ByteReader(memory: $0), memoryLimit: 16 << 20) }
        #expect(bounded == nil)
    }
}

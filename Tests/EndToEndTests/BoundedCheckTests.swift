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
        let bounded = try data.withUnsafeBytes { try JPEGCheck.damage(in: input, reader: ByteReader(memory: $0), memoryLimit: 16 << 20) }
        #expect(bounded == nil)
    }

    /// Writes a PNG to `path` whose IDAT holds `megabytes` MiB of zlib stream: a 2-byte zlib header, then blocks of
    /// 1 MiB of zeros each ended by a full flush (so every block is whole and starts on a byte), the same ~1 KB block
    /// repeated, without the end of the stream: each MiB of it inflates to about 1 GiB. IHDR declares `width` ×
    /// `height` grey 8-bit; `withEnd` adds IEND, so the file is complete and every checksum holds.
    func writeInflationBomb(_ path: String, megabytes: Int, width: Int = 1, height: Int = 1, withEnd: Bool) throws {
        let result = try Imgfetch.run(["-c", """
            import struct, sys, zlib
            def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
            path, mb, w, h, end = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == '1'
            c = zlib.compressobj(9)
            zeros = bytes(1 << 20)
            first = c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH)
            block = c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH)
            png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 0, 0, 0, 0))
            png += chunk(b'IDAT', first + block * (mb * 1024 - 1)) + (chunk(b'IEND', b'') if end else b'')
            open(path, 'wb').write(png)
            """, path, "\(megabytes)", "\(width)", "\(height)", withEnd ? "1" : "0"], program: "/usr/bin/env", prefix: ["python3"])
        guard result.status == 0 else { throw TestFailure("python3: \(result.stderr)") }
    }

    /// Before: a 1 × 1 PNG with a 10 MB IDAT (10 GiB inflated) took 20 s in the check and was called truncated
    /// without IEND; with IEND the check let it through and libpng inflated all of it in one call (19 s, exit 0;
    /// neither --max-render-time nor SIGINT stopped it). Now the check stops 64 MiB past the image's bytes and
    /// refuses it at every level, complete or not, at once.
    @Test func aPNGWhoseDataInflatesFarPastTheImageIsRefusedAtOnce() throws {
        for withEnd in [true, false] {
            let path = work.file("bomb-\(withEnd).png")
            try writeInflationBomb(path, megabytes: 2, withEnd: withEnd)
            for level in ["truncated", "none"] {
                let started = Date()
                let result = try Imgfetch.run([path, "--no-cache", "--fail-on", level, "-o", work.file("out.webp")])
                let seconds = Date().timeIntervalSince(started)
                #expect(result.status == 5, "IEND \(withEnd), \(level): \(result.status) \(result.stderr)")
                #expect(result.stderr.contains("inflates past the 2 bytes a 1x1 image needs"), "\(result.stderr)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
                #expect(seconds < 5, "IEND \(withEnd), \(level): \(seconds) s")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: work.file("out.webp")))
    }

    /// A PNG's IHDR is judged against the limits before its data is inflated: 20000 × 20000 is over --max-pixels
    /// (before: the check inflated its 2 GiB, then called it truncated).
    @Test func aPNGHeaderOverTheLimitsIsRefusedBeforeItsDataIsInflated() throws {
        let path = work.file("big.png")
        try writeInflationBomb(path, megabytes: 2, width: 20000, height: 20000, withEnd: false)
        let result = try Imgfetch.run([path, "--no-cache", "-o", work.file("out.png")])
        #expect(result.status == 5 && result.stderr.contains("--max-pixels"), "\(result.status) \(result.stderr)")
    }

    /// The inflating looks at its deadline between 64 KiB slices of input: past it, the check throws the
    /// render-time limit (`--max-render-time`) instead of inflating on; in time, it stops at the bound.
    @Test func thePNGCheckStopsAtItsDeadline() throws {
        let path = work.file("slow.png")
        try writeInflationBomb(path, megabytes: 1, width: 8000, height: 8000, withEnd: false)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let outcome = data.withUnsafeBytes { bytes in
            Result { () throws(ImgError) -> DataDamage? in
                try PNGCheck.damage(in: ByteReader(memory: bytes), timeLimit: 3, deadline: Date() - 1)
            }
        }
        guard case .failure(.overLimit(.renderTime(let seconds), _)) = outcome else {
            Issue.record("\(outcome)")
            return
        }
        #expect(seconds == 3)
        let inTime = data.withUnsafeBytes { bytes in Result { () throws(ImgError) -> DataDamage? in
            try PNGCheck.damage(in: ByteReader(memory: bytes))
        } }
        let damage = (try? inTime.get()).flatMap { $0 }
        #expect(damage?.undecodable == true && damage?.refused(at: .none) == true, "\(inTime)")
    }
}

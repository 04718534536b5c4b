import Foundation
import Testing
@testable import ImgCore

/// Data that ends early or fails a checksum inside a complete file is a decoder quirk, not truncation (issue #38
/// item 10): decoded as libvips decodes it at the default level, with a note (`-v`), refused at `--fail-on warning`;
/// a file that ends before its image does stays refused.
@Suite("Decoder quirks")
struct DecoderQuirkTests {
    /// LZW data at minimum code size 2 (3-bit codes: clear 4, end 5) for `pixels` pixels of colour 1, a clear
    /// code before each so that the code size never grows, then the end code; packed least significant bit first.
    static func lzw(pixels: Int) -> [UInt8] {
        let codes = (0..<pixels).flatMap { _ in [4, 1] } + [5]
        var bytes: [UInt8] = [], buffer = 0, bits = 0
        for code in codes {
            buffer |= code << bits
            bits += 3
            while bits >= 8 { bytes.append(UInt8(buffer & 0xFF)); buffer >>= 8; bits -= 8 }
        }
        if bits > 0 { bytes.append(UInt8(buffer)) }
        return bytes
    }

    /// A 4×4 GIF89a of two frames, global colour table of 4 colours, each frame behind a graphic control extension
    /// (delay 10, colour 0 transparent): the first frame's LZW data gives `firstPixels` pixels and its end code, in
    /// sub-blocks closed by their terminator; the second frame is whole; then the trailer. With `firstPixels` < 16
    /// the first frame's data ends early inside a complete file.
    static func gif(firstPixels: Int) -> Data {
        var bytes = Array("GIF89a".utf8) + [4, 0, 4, 0, 0x81, 0, 0] + [0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]
        bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]
        for pixels in [firstPixels, 16] {
            bytes += [0x21, 0xF9, 4, 0x09, 10, 0, 0, 0]
            bytes += [0x2C, 0, 0, 0, 0, 4, 0, 4, 0, 0, 2]
            let data = lzw(pixels: pixels)
            bytes += [UInt8(data.count)] + data + [0]
        }
        return Data(bytes + [0x3B])
    }

    static func render(_ data: Data, failOn: FailOn = .standard, format: ImageFormat = .png) throws(ImgError) -> EncodedImage {
        var decoding = DecodeOptions()
        decoding.failOn = failOn
        return try Rendering.render(.memory(data), isRemote: true, chain: ProcessingChain(),
                                        encoding: OutputEncoding(format: format), decoding: decoding)
    }

    @Test func aGIFFrameWhoseDataEndsEarlyInsideACompleteFileIsAWarning() throws {
        let data = Self.gif(firstPixels: 6)
        let damage = data.withUnsafeBytes { GIFCheck.damage(in: ByteReader(memory: $0)) }
        #expect(damage?.severity == .warning && damage?.wholeFrames == nil, "\(String(describing: damage))")
        #expect(Self.gif(firstPixels: 16).withUnsafeBytes { GIFCheck.damage(in: ByteReader(memory: $0)) } == nil)
        for _ in 0..<10 {
            let animation = try Self.render(data, format: .gif)
            #expect(animation.frames == 2 && animation.damage == nil)
            #expect(animation.notes.contains { $0.contains("gif frame 1's data ends at row 1 of 4") }, "\(animation.notes)")
        }
        #expect(throws: ImgError.self) { try Self.render(data, failOn: .warning) }
        // Cut inside the second frame's LZW data (its 13 bytes end 2 bytes before the file): the file ends before
        // the image does.
        let cut = data.prefix(data.count - 8)
        #expect(throws: ImgError.self) { try Self.render(Data(cut)) }
        #expect(cut.withUnsafeBytes { GIFCheck.damage(in: ByteReader(memory: $0)) }?.severity == .truncated)
    }

    /// From the command line: read with a note under -v, refused (exit 5) at --fail-on warning.
    @Test func theShortGIFFrameFromTheCommandLine() throws {
        let work = try TemporaryDirectory()
        let path = work.file("short.gif")
        try Self.gif(firstPixels: 6).write(to: URL(fileURLWithPath: path))
        let read = try Imgfetch.runInProcess([path, "-v", "--resize", "2x", "--no-cache", "-o", work.file("out.gif")])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(read.stderr.contains("gif 2x2") && FileManager.default.fileExists(atPath: work.file("out.gif")))
        #expect(read.stderr.contains("note: warning: gif frame 1's data ends"), "\(read.stderr)")
        let refused = try Imgfetch.runInProcess([path, "--fail-on", "warning", "--resize", "2x", "--no-cache", "-o", work.file("refused.gif")])
        #expect(refused.status == 5, "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.file("refused.gif")))
    }
}

import Foundation
import Testing
@testable import ImgCore

/// The PNG tail guard (`Sources/CVips/png_tail_guard.c`): the test runner exports its stand-ins as imgfetch does. Once
/// libvips has read a PNG through it, a complete PNG's image data is not inflated before its decode (`PNGCheck`); the
/// decode stops libpng's inflating past the last row, and the rendering still refuses a decompression bomb as the
/// check did.
@Suite("PNG tail guard", .serialized)
struct PNGTailGuardTests {
    static func render(_ data: Data, failOn: FailOn) throws(ImgError) -> EncodedImage {
        var decoding = DecodeOptions()
        decoding.failOn = failOn
        return try Rendering.render(.memory(data), isRemote: false, chain: ProcessingChain.parse("resize(16x16)"),
                                    encoding: OutputEncoding(format: .png), decoding: decoding)
    }

    /// A 1 x 1 grey PNG, complete with IEND and every checksum right, whose IDAT holds 2 MiB of zlib stream that
    /// inflates to 2 GiB (blocks of 1 MiB of zeros, each ended by a full flush, without the stream's end).
    static func bomb(interlaced: Bool) throws -> Data {
        let result = try Imgfetch.run(["-c", """
            import struct, sys, zlib
            def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
            c = zlib.compressobj(9)
            first = c.compress(bytes(1 << 20)) + c.flush(zlib.Z_FULL_FLUSH)
            block = c.compress(bytes(1 << 20)) + c.flush(zlib.Z_FULL_FLUSH)
            header = struct.pack('>IIBBBBB', 1, 1, 8, 0, 0, 0, int(sys.argv[1]))
            png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', header) + chunk(b'IDAT', first + block * 2047) + chunk(b'IEND', b'')
            sys.stdout.buffer.write(png)
            """, interlaced ? "1" : "0"], program: "/usr/bin/env", prefix: ["python3"])
        guard result.status == 0 else { throw TestFailure("python3: \(result.stderr)") }
        return result.stdout
    }

    @Test func aCompleteBombIsStoppedInItsDecodeAndRefusedAtEveryLevel() throws {
        let photo = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.png"))
        _ = try Self.render(photo, failOn: .standard)
        #expect(PNGTailGuard.boundsDecodes, "libvips read the PNG through the guard")
        for interlaced in [false, true] {
            let bomb = try Self.bomb(interlaced: interlaced)
            let complete = try bomb.withUnsafeBytes { bytes in
                try PNGCheck.damage(in: ByteReader(memory: bytes), decodeBoundsTail: true)
            }
            #expect(complete == nil, "a complete file is left to the guarded decode")
            for level in [FailOn.none, .standard] {
                let stopsBefore = PNGTailGuard.stops, started = Date()
                let outcome = Result { () throws(ImgError) in try Self.render(bomb, failOn: level) }
                guard case .failure(let error) = outcome else {
                    Issue.record("interlaced \(interlaced), \(level): rendered")
                    continue
                }
                #expect(error.message.contains("inflates past the 2 bytes a 1x1 image needs"), "\(error.message)")
                #expect(PNGTailGuard.stops > stopsBefore, "the decode was stopped by the guard, not refused before it")
                #expect(Date().timeIntervalSince(started) < 5, "interlaced \(interlaced), \(level)")
            }
        }
    }

    /// A PNG whose data ends with its image renders as before under the guard: the same bytes with and without the
    /// check's inflating.
    @Test func aPNGThatEndsWithItsImageRendersUnstopped() throws {
        let photo = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.png"))
        _ = try Self.render(photo, failOn: .standard)
        let stopsBefore = PNGTailGuard.stops
        for name in ["sample.png", "rgba.png", "indexed.png", "trans-x.png"] {
            let data = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/" + name))
            let image = try Self.render(data, failOn: .warning)
            #expect(image.damage == nil && image.width > 0, "\(name)")
        }
        #expect(PNGTailGuard.stops == stopsBefore)
    }

    /// A complete 64 x 64 PNG whose zlib stream goes on for 200 KB of incompressible bytes after the image's rows
    /// (inflating to 200 KB, no bomb): decoded at `none` and `truncated`; at `error` the guard's stop fails the decode.
    @Test func dataGoingOnPastTheImageWithoutABombIsDecodedUpToTruncated() throws {
        let result = try Imgfetch.run(["-c", """
            import hashlib, struct, sys, zlib
            def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
            rows = b''.join(b'\\x00' + bytes((x * 4) % 256 for x in range(64)) for y in range(64))
            junk = b''.join(hashlib.sha256(struct.pack('>I', i)).digest() for i in range(6250))
            header = struct.pack('>IIBBBBB', 64, 64, 8, 0, 0, 0, 0)
            png = b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', header) + chunk(b'IDAT', zlib.compress(rows + junk, 9))
            sys.stdout.buffer.write(png + chunk(b'IEND', b''))
            """], program: "/usr/bin/env", prefix: ["python3"])
        guard result.status == 0 else { throw TestFailure("python3: \(result.stderr)") }
        let photo = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.png"))
        _ = try Self.render(photo, failOn: .standard)
        for level in [FailOn.none, .truncated] {
            let image = try Self.render(result.stdout, failOn: level)
            #expect(image.width == 16 && image.damage == nil, "\(level)")
        }
        let strict = Result { () throws(ImgError) in try Self.render(result.stdout, failOn: .error) }
        guard case .failure(let error) = strict else { Issue.record("rendered at error"); return }
        #expect(error.message.contains("libpng read error"), "\(error.message)")
    }
}

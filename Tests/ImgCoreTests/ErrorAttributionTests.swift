import CVips
import Foundation
import Testing
@testable import ImgCore

/// libvips keeps one error buffer for the process; renderings side by side used to read each other's messages
/// (or an empty one, cleared by another). Each rendering's failure and message are now its own (#19.10).
@Suite("Error attribution")
struct ErrorAttributionTests {
    /// Inputs that pass imgfetch's own checks and fail inside libvips, each with a message of its own: a 12-bit
    /// JPEG (refused while its header is read), a PNG whose deflate stream is damaged under valid CRCs (fails
    /// while libvips' workers decode it), and a subsampled TIFF.
    static func badInputs() throws -> [(name: String, data: Data)] {
        var jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg")))
        var offset = 2
        while offset + 4 < jpeg.count, jpeg[offset] == 0xFF {
            let type = jpeg[offset + 1], length = Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3])
            if (0xC0...0xC2).contains(type) { jpeg[offset + 4] = 12; break }
            offset += 2 + length
        }
        var png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/rgba.png")))
        offset = 8
        while offset + 12 <= png.count {
            let length = Int(png[offset]) << 24 | Int(png[offset + 1]) << 16 | Int(png[offset + 2]) << 8 | Int(png[offset + 3])
            if png[(offset + 4)..<(offset + 8)].elementsEqual(Array("IDAT".utf8)) {
                for index in (offset + 8 + length / 2)..<(offset + 8 + length / 2 + 16) { png[index] ^= 0x5A }
                let crc = png[(offset + 4)..<(offset + 8 + length)].withUnsafeBytes { UInt32(imgf_crc32(0, $0.baseAddress, UInt32($0.count))) }
                png.replaceSubrange((offset + 8 + length)..<(offset + 12 + length),
                                    with: [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)])
                break
            }
            offset += 12 + length
        }
        let tiff = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/subsampled.tif"))
        return [("12-bit.jpg", Data(jpeg)), ("bad-deflate.png", Data(png)), ("subsampled.tif", tiff)]
    }

    /// Renders under `--fail-on error`: the damaged (not truncated) PNG is then a decoder error, as before the
    /// default level became `truncated`.
    static func render(_ data: Data) -> Result<Int, ImgError> {
        var decoding = DecodeOptions()
        decoding.failOn = .error
        return Result { () throws(ImgError) -> Int in
            try Rendering.render(.memory(data), isRemote: false, chain: try ProcessingChain.parse("resize(64x64,fill)"),
                                     encoding: OutputEncoding(), decoding: decoding).data.count
        }
    }

    @Test func eachConcurrentRenderingReportsItsOwnFailure() throws {
        let bad = try Self.badInputs()
        let good = try ["sample.jpg", "rgba.png", "sample.png", "cogs.gif"].map {
            try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/" + $0))
        }
        // Each bad input alone: the message it must always get.
        var alone: [String] = []
        for input in bad {
            guard case .failure(let error) = Self.render(input.data) else {
                Issue.record("\(input.name) rendered")
                return
            }
            alone.append(error.message)
        }
        #expect(alone[0].contains("precision 12") && alone[1].contains("png") && alone[2].contains("subsampled"), "\(alone)")

        let expected = alone
        let mismatches = Locked([String]())
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<12 {
                let index = (worker * 5 + round) % (bad.count + good.count)
                if index < bad.count {
                    switch Self.render(bad[index].data) {
                    case .success: mismatches.withLock { $0.append("\(bad[index].name) was accepted") }
                    case .failure(let error) where error.message != expected[index]:
                        mismatches.withLock { $0.append("\(bad[index].name): '\(error.message)'") }
                    case .failure: break
                    }
                } else if case .failure(let error) = Self.render(good[index - bad.count]) {
                    mismatches.withLock { $0.append("good input \(index - bad.count) failed: \(error.message)") }
                }
            }
        }
        #expect(mismatches.withLock { $0 }.isEmpty, "\(mismatches.withLock { $0.prefix(5) })")
    }
}

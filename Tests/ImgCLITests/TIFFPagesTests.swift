import Foundation
import Testing
@testable import ImgCore

/// A TIFF's pages are counted against `--max-frames` before any page after the first is read, and their sizes
/// are read in one pass over the IFD chain (issue #38 item 7: 2,000 pages of 1 × 1 with the last one 2 × 1, 232 KB,
/// took 27–48 s, 4,000 took 207 s, libvips walking the chain from the start for every page).
@Suite("TIFF pages")
struct TIFFPagesTests {
    let work: TemporaryDirectory

    init() throws {
        work = try TemporaryDirectory()
    }

    /// A classic little-endian TIFF of `pages` grey 8-bit uncompressed pages, each 1 × 1 but the last, `lastWidth`
    /// × 1: per page its pixel bytes (padded to even) and an IFD of 8 entries (width, height, bits, compression,
    /// photometric, strip offset, rows per strip, strip bytes), linked in order. `loop` points the last IFD back at
    /// the first.
    static func tiff(pages: Int, lastWidth: Int = 2, loop: Bool = false) -> Data {
        var bytes: [UInt8] = [0x49, 0x49, 42, 0, 0, 0, 0, 0]
        func put32(_ value: Int, at index: Int) {
            for shift in 0..<4 { bytes[index + shift] = UInt8((value >> (8 * shift)) & 0xFF) }
        }
        var ifds: [Int] = []
        for page in 0..<pages {
            let width = page == pages - 1 ? lastWidth : 1
            let pixels = bytes.count
            bytes += [UInt8](repeating: 0, count: width + width % 2)
            ifds.append(bytes.count)
            let entries: [(tag: Int, type: Int, value: Int)] = [(256, 3, width), (257, 3, 1), (258, 3, 8), (259, 3, 1),
                                                                  (262, 3, 1), (273, 4, pixels), (278, 3, 1), (279, 4, width)]
            bytes += [UInt8(entries.count), 0]
            for entry in entries {
                bytes += [UInt8(entry.tag & 0xFF), UInt8(entry.tag >> 8), UInt8(entry.type), 0, 1, 0, 0, 0, 0, 0, 0, 0]
                put32(entry.value, at: bytes.count - 4)
            }
            bytes += [0, 0, 0, 0]
        }
        put32(ifds[0], at: 4)
        for (ifd, next) in zip(ifds, ifds.dropFirst()) { put32(next, at: ifd + 2 + 12 * 8) }
        if loop { put32(ifds[0], at: ifds[pages - 1] + 2 + 12 * 8) }
        return Data(bytes)
    }

    static func sizes(_ data: Data, limit: Int = .max) -> [[Int]]? {
        data.withUnsafeBytes { TIFFPages.sizes(ByteReader(memory: $0), limit: limit) }?.map { [$0.width, $0.height] }
    }

    @Test func theIFDChainIsReadInOnePass() {
        let sizes = Self.sizes(Self.tiff(pages: 4000))
        #expect(sizes?.count == 4000)
        #expect(sizes?.first == [1, 1] && sizes?.last == [2, 1])
        #expect(Self.sizes(Self.tiff(pages: 10), limit: 3)?.count == 3)
        #expect(Self.sizes(Self.tiff(pages: 5, loop: true)) == nil, "a loop in the chain is no answer")
        #expect(Self.sizes(Data("II*\0\u{7F}\u{7F}\u{7F}\u{7F}".utf8)) == nil, "a first IFD past the end")
    }

    /// More pages than --max-frames (default 1000): refused at once, before the pages are probed.
    @Test func morePagesThanMaxFramesAreRefusedFirst() throws {
        let path = work.file("pages.tif")
        try Self.tiff(pages: 2000).write(to: URL(fileURLWithPath: path))
        let started = Date()
        let result = try Imgfetch.runInProcess([path, "--no-cache", "-o", work.file("out.png")])
        #expect(result.status == 5 && result.stderr.contains("--max-frames"), "\(result.status) \(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(!FileManager.default.fileExists(atPath: work.file("out.png")))
    }

    /// Within --max-frames, 4,000 pages that differ in size: the still output is the first page, read alone (the
    /// pages are counted from its header, not probed; probing them one by one took 207 s).
    @Test func manyPagesThatDifferAreProbedInOnePass() throws {
        let path = work.file("pages.tif")
        try Self.tiff(pages: 4000).write(to: URL(fileURLWithPath: path))
        let started = Date()
        let result = try Imgfetch.runInProcess([path, "--no-cache", "--max-frames", "5000", "-v", "-o", work.file("out.png")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("read the first of 4000 pages"), "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 10)
        let written = try Data(contentsOf: URL(fileURLWithPath: work.file("out.png")))
        #expect(try Rendering.probe(written).width == 1)
    }
}

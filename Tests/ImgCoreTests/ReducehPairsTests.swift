import CVips
import Foundation
import Testing
@testable import ImgCore

/// libvips' horizontal reduce of 8-bit pixels computed two taps at a time (`Sources/CVips/reduceh_pairs.c`): the
/// same bytes as libvips' own loop for every band count, kernel and shrink, in a reduce alone and in a thumbnail.
/// Serialized: tests switch the pairs off for a moment.
@Suite("Horizontal reduce in pairs", .serialized)
struct ReducehPairsTests {
    static let kernels: [VipsKernel] = [VIPS_KERNEL_NEAREST, VIPS_KERNEL_LINEAR, VIPS_KERNEL_CUBIC,
                                        VIPS_KERNEL_MITCHELL, VIPS_KERNEL_LANCZOS2, VIPS_KERNEL_LANCZOS3]

    /// An RGB image of seeded noise (values from 0 to 255, so the kernels' lobes overshoot and are clipped).
    static func noise(width: Int, height: Int, random: inout SplitMix,
                      in folder: TemporaryDirectory) throws -> DecodedImage {
        let path = folder.path + "/noise-\(width)x\(height).png"
        let rows: [[UInt8]] = (0..<height).map { _ in
            (0..<(3 * width)).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
        try StoredPNG.write(width: width, height: height, to: path) { rows[$0] }
        return try ImageInspection.open(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The image with `bands` bands (1 to 4) of 8-bit values taken from the RGB one.
    static func withBands(_ bands: Int, from rgb: DecodedImage) throws -> DecodedImage {
        switch bands {
        case 3: return rgb
        case 4:
            let first = try rgb.derive("first band") { imgf_extract_bands($0, $1, 0, 1) }
            return try rgb.derive("four bands") { imgf_bandjoin2($0, first.pointer, $1) }
        default: return try rgb.derive("bands") { imgf_extract_bands($0, $1, 0, Int32(bands)) }
        }
    }

    static func reducedPixels(_ image: DecodedImage, hshrink: Double, kernel: VipsKernel) throws -> [UInt8] {
        let reduced = try image.derive("reduceh") { imgf_reduceh($0, $1, hshrink, kernel) }
        var length = 0
        guard let block = imgf_write_to_memory(reduced.pointer, &length) else {
            throw TestFailure("cannot compute the reduce: \(VipsRuntime.takeError())")
        }
        defer { g_free(block) }
        return [UInt8](UnsafeRawBufferPointer(start: block, count: length))
    }

    /// `body`'s result with every reduce in libvips' own loop.
    static func withoutPairs<T>(_ body: () throws -> T) rethrows -> T {
        imgf_reduceh_in_pairs_set(0)
        defer { imgf_reduceh_in_pairs_set(1) }
        return try body()
    }

    /// The reduce is recognised where the pairs can run: libvips 8.14 on x86-64.
    @Test func libvipsReducehIsRecognisedWhereThePairsRun() throws {
        try VipsRuntime.start()
        #if arch(x86_64)
        #expect(imgf_reduceh_learned() == 1)
        #endif
    }

    /// Seeded random images of 1 to 4 bands, widths from 2 to 300, shrinks from 1 to 8 and every kernel: the
    /// pixels computed in pairs are libvips' own.
    @Test func aReduceInPairsComputesLibvipsPixels() throws {
        try VipsRuntime.start()
        try #require(imgf_reduceh_learned() == 1)
        let folder = try TemporaryDirectory()
        var random = SplitMix(state: 0x5EED_0001)
        for round in 0..<48 {
            let width = Int.random(in: 2...300, using: &random), height = Int.random(in: 1...7, using: &random)
            let bands = round % 4 + 1
            let rgb = try Self.noise(width: width, height: height, random: &random, in: folder)
            let image = try Self.withBands(bands, from: rgb)
            let fixed = [1.6, 2.0, 2.5, 1.0 + 1e-9]
            let hshrink = round < fixed.count ? fixed[round]
                : Double.random(in: 1.0..<min(8.0, Double(width)), using: &random)
            let kernel = Self.kernels[round % Self.kernels.count]
            let before = imgf_reduces_in_pairs()
            let inPairs = try Self.reducedPixels(image, hshrink: hshrink, kernel: kernel)
            #expect(imgf_reduces_in_pairs() == before + 1, "not in pairs: \(bands) bands, \(hshrink)")
            let libvips = try Self.withoutPairs { () throws -> [UInt8] in
                try Self.reducedPixels(image, hshrink: hshrink, kernel: kernel)
            }
            #expect(imgf_reduces_in_pairs() == before + 1)
            #expect(inPairs == libvips,
                    "\(width)x\(height), \(bands) bands, shrink \(hshrink), kernel \(kernel.rawValue)")
        }
    }

    /// Thumbnails of a photo at several sizes, in JPEG and PNG: the same bytes with the pairs as without.
    @Test(arguments: [(ImageFormat.jpeg, 200), (.png, 123), (.png, 37), (.webp, 301)])
    func aThumbnailInPairsWritesLibvipsBytes(format: ImageFormat, size: Int) throws {
        try VipsRuntime.start()
        try #require(imgf_reduceh_learned() == 1)
        let data = try RenderingOverheadTests.sample()
        let before = imgf_reduces_in_pairs()
        let inPairs = try RenderingOverheadTests.render(data, size: size, format: format, threads: 1)
        #expect(imgf_reduces_in_pairs() > before)
        let libvips = try Self.withoutPairs { () throws -> EncodedImage in
            try RenderingOverheadTests.render(data, size: size, format: format, threads: 1)
        }
        #expect(!inPairs.data.isEmpty && inPairs.data == libvips.data)
    }
}

import CVips
import Foundation
import Testing
@testable import ImgCore

/// What a rendering costs beside its pixels: libvips' operation cache, which keeps nothing, is skipped
/// (`Sources/CVips/operation_build.c`), and libvips' vector programs reuse the code compiled for a program of the
/// same content (`Sources/CVips/orc_code_cache.c`), with the same bytes out. The test runner exports the stand-ins
/// as imgfetch does.
@Suite("Rendering overhead")
struct RenderingOverheadTests {
    static func render(_ data: Data, size: Int, format: ImageFormat = .png) throws(ImgError) -> EncodedImage {
        try Rendering.render(.memory(data), isRemote: true, chain: ProcessingChain.parse("resize(\(size)x\(size))"),
                             encoding: OutputEncoding(format: format), decoding: DecodeOptions())
    }

    static func sample() throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg"))
    }

    /// A thumbnail builds a dozen or more libvips operations (the thumbnail, its loaders, the resize and its
    /// reducers, the saver), each without the cache's look-up, insertion and trim.
    @Test func libvipsBuildsARenderingsOperationsWithoutItsCache() throws {
        try VipsRuntime.start()
        let data = try Self.sample()
        let before = imgf_operations_built_directly()
        let image = try Self.render(data, size: 41, format: .jpeg)
        #expect(image.height == 41)
        #expect(imgf_operations_built_directly() - before >= 10)
    }

    /// A second rendering at one size is given the vector code compiled for the first, and writes the same bytes,
    /// with a rendering at another size (other programs) between them.
    @Test func aRenderingAgainReusesItsVectorCodeAndWritesTheSameBytes() throws {
        try VipsRuntime.start()
        #expect(VipsRuntime.vectorPath == .serialised)
        let data = try Self.sample()
        let first = try Self.render(data, size: 37)
        let other = try Self.render(data, size: 53)
        let before = imgf_orc_reused_compiles()
        let again = try Self.render(data, size: 37)
        #expect(imgf_orc_reused_compiles() > before)
        #expect(again.data == first.data)
        #expect(other.height == 53 && other.data != first.data)
    }
}

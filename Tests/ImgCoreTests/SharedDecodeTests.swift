import Foundation
import Testing
@testable import ImgCore

/// Several variants of one input decoded once (batch `--variant`), with the bytes each gets alone.
@Suite("Shared decode of variants")
struct SharedDecodeTests {
    /// The factors libvips' `vips_thumbnail_find_jpegshrink` gives: 4608/800 = 5.8 → 2, 4608/400 = 11.5 → 4,
    /// 4608/200 = 23 → 8; a crop follows the axis that needs less shrinking; a swapped orientation swaps the box.
    @Test func theJPEGShrinkIsTheOneLibvipsPicks() throws {
        let wide = ImageDecoder.Header(loader: "jpeg", format: .jpeg, width: 4608, frameHeight: 2592, frames: 1)
        func shrink(_ chain: String, _ header: ImageDecoder.Header = wide, autorotate: Bool = true) throws -> Int {
            let resize = try #require(try ProcessingChain.parse(chain).steps.first as? ImageProcessors.Resize)
            return SharedDecode.jpegShrink(resize, header: header, autorotate: autorotate)
        }
        #expect(try shrink("resize(800x)") == 2)
        #expect(try shrink("resize(400x)") == 4)
        #expect(try shrink("resize(200x)") == 8)
        #expect(try shrink("resize(2000x)") == 1)
        #expect(try shrink("resize(x100)") == 8)
        #expect(try shrink("resize(400x400)") == 4)              // fits by width: 11.5
        #expect(try shrink("resize(400x400,fill)") == 2)         // covers by height: 6.5
        #expect(try shrink("resize(200x300,exact)") == 4)        // the smaller of 23 and 8.6
        #expect(try shrink("resize(9000x9000)") == 1)            // never enlarges
        var turned = wide
        turned.orientation = 6
        #expect(try shrink("resize(400x)", turned) == 2)         // upright it is 2592 wide: 6.5
        #expect(try shrink("resize(x400)", turned) == 4)         // and 4608 high: 11.5
        #expect(try shrink("resize(x400)", turned, autorotate: false) == 2)
    }

    @Test func variantsShareALoadOnlyWhenTheyWouldLoadAlike() throws {
        let header = ImageDecoder.Header(loader: "jpeg", format: .jpeg, width: 290, frameHeight: 442, frames: 1)
        func plan(_ chain: String, loader: String = "jpeg") throws -> SharedDecode.LoadPlan? {
            var header = header
            header.loader = loader
            return SharedDecode.plan(for: try ProcessingChain.parse(chain), header: header, autorotate: true)
        }
        #expect(try plan("resize(100x)") == .shrunk(factor: 1))
        #expect(try plan("resize(60x)") == .shrunk(factor: 2))
        #expect(try plan("resize(30x30,fill)") == .shrunk(factor: 4))
        #expect(try plan("grayscale|>resize(30x)") == .whole)
        #expect(try plan("resize(30x)", loader: "png") == .shrunk(factor: 1))
        #expect(try plan("resize(30x)", loader: "webp") == nil)
        #expect(try plan("blur(2)", loader: "webp") == .whole)
    }

    /// Each variant made beside its siblings is byte for byte the variant made alone, and the siblings that load
    /// alike did load once.
    @Test(arguments: [
        (input: "sample.jpg", reuses: 3), (input: "rotation/6.jpg", reuses: 4), (input: "sample.png", reuses: 5),
        (input: "1.webp", reuses: 1),
    ])
    func variantsDecodedTogetherAreTheBytesOfVariantsDecodedAlone(input: String, reuses: Int) throws {
        let chains = try ["resize(100x)", "resize(90x90,fill)", "resize(60x)", "resize(50x)|>grayscale", "resize(30x30,fill)",
                          "rotate(90)|>resize(50x)", "grayscale"].map { try ProcessingChain.parse($0) }
        var configuration = PipelineConfiguration()
        configuration.policy.memoryOnly = true
        let together = try ImagePipeline(configuration: configuration)
        let alone = try ImagePipeline(configuration: configuration)
        for chain in chains {
            var request = ImageRequest(source: .file(path: Paths.images + "/\(input)"))
            request.chain = chain
            request.encoding = OutputEncoding(format: .png)
            let single = try alone.image(for: request).image.data
            request.decodedTogetherWith = chains
            let shared = try together.image(for: request).image.data
            #expect(shared == single, "\(input) \(chain.identifier): the variant's bytes depend on its siblings")
        }
        #expect(together.decodedImages.reuseCount == reuses)
        #expect(alone.decodedImages.reuseCount == 0)
    }
}

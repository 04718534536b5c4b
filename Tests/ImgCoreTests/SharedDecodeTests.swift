import Foundation
import Testing
@testable import ImgCore

/// Several variants of one input decoded once (batch `--variant`).
@Suite("Shared decode of variants")
struct SharedDecodeTests {
    @Test func theScaleIsTheLargestAnyChainNeeds() throws {
        let small = try ProcessingChain.parse("resize(200x200,fill)")
        let large = try ProcessingChain.parse("resize(1000x)")
        let crop = try ProcessingChain.parse("crop(10x10)")
        #expect(SharedDecode.scale(of: small, width: 4000, height: 3000) == 200.0 / 3000)
        #expect(SharedDecode.scale(of: large, width: 4000, height: 3000) == 0.25)
        #expect(SharedDecode.scale(of: crop, width: 4000, height: 3000) == 1)
        #expect(SharedDecode.scale(of: try ProcessingChain.parse("resize(8000x)"), width: 4000, height: 3000) == 1)
        #expect(SharedDecode.scale(of: try ProcessingChain.parse("resize(100x300,exact)"), width: 400, height: 600) == 0.5)
    }

    @Test func variantsDecodedTogetherMatchVariantsDecodedAlone() throws {
        let chains = [try ProcessingChain.parse("resize(100x100,fill)|>grayscale"), try ProcessingChain.parse("resize(200x)"),
                      try ProcessingChain.parse("rotate(90)|>resize(50x)")]
        var configuration = PipelineConfiguration()
        configuration.policy.memoryOnly = true
        let together = try ImagePipeline(configuration: configuration)
        let alone = try ImagePipeline(configuration: configuration)
        let expected = [(100, 100), (200, 305), (50, 33)]
        for (chain, size) in zip(chains, expected) {
            var request = ImageRequest(source: .file(path: Paths.images + "/sample.jpg"))
            request.chain = chain
            request.encoding = OutputEncoding(format: .png)
            let single = try alone.image(for: request).data.data
            request.decodedTogetherWith = chains
            let shared = try together.image(for: request).data.data
            let probe = try ImageRenderer.probe(shared)
            #expect(probe.width == size.0 && probe.height == size.1, "\(chain.identifier)")
            let a = try ImageInspection.statistics(single, band: 0), b = try ImageInspection.statistics(shared, band: 0)
            #expect(abs(a.mean - b.mean) < 3, "\(chain.identifier): \(a.mean) vs \(b.mean)")
        }
        #expect(together.decodedImages.reuseCount == 2, "one decode served all three variants")
        #expect(alone.decodedImages.reuseCount == 0)
    }
}

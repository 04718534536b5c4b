import Foundation
import Testing
@testable import ImgCore

/// The sizes a chain makes, worked out before decoding (what `--max-pixels` checks each step against), are the sizes
/// libvips makes, `cover` and sizes in percent included.
@Suite("Output geometry: the size each resize makes, known from the header")
struct OutputGeometryTests {
    /// A PNG of `width`×`height` made by libvips.
    static func png(width: Int, height: Int) throws -> Data {
        let work = try TemporaryDirectory()
        let path = work.file("in.png")
        let made = try Imgfetch.run(["black", path, "\(width)", "\(height)"], program: "/usr/bin/vips")
        #expect(made.status == 0, "\(made.stderr)")
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    @Test(arguments: [(100, 1, "resize(5000x50,cover)"), (100, 1, "resize(50x50,cover)"), (40, 300, "resize(90x90,cover)"),
                      (300, 200, "resize(150%)"), (300, 200, "resize(50%x20%)"), (300, 200, "resize(1000x1000,fit,upscale)"),
                      (300, 200, "resize(100x100,fill)"), (300, 200, "resize(100x,fit)"), (7, 3, "resize(1000%)"),
                      (300, 200, "resize(50x90,pad)")])
    func thePredictedSizeIsTheSizeMade(width: Int, height: Int, chain: String) throws {
        let parsed = try ProcessingChain.parse(chain)
        let predicted = try #require(parsed.steps.first).outputSize(width: width, height: height)
        let made = try Rendering.render(.memory(try Self.png(width: width, height: height)), isRemote: false, chain: parsed,
                                        encoding: OutputEncoding(format: .png), decoding: DecodeOptions())
        #expect(made.width == predicted.width && made.height == predicted.height,
                "\(chain) on \(width)x\(height): predicted \(predicted), made \(made.width)x\(made.height)")
    }

    /// A 100×1 image covering 5000×5000 would be 500000×5000, and 2000% of a 1000×1000 one 20000×20000: both are
    /// refused against the pixel limit before anything is decoded, as a box over it is.
    @Test func coverAndPercentCountAgainstThePixelLimit() throws {
        for (width, height, chain, made) in [(100, 1, "resize(5000x5000,cover)", (500_000, 5000)),
                                             (1000, 1000, "resize(2000%)", (20_000, 20_000))] {
            let input = try Self.png(width: width, height: height)
            do throws(ImgError) {
                _ = try Rendering.render(.memory(input), isRemote: false, chain: try ProcessingChain.parse(chain),
                                         encoding: OutputEncoding(format: .png), decoding: DecodeOptions())
                Issue.record("\(chain) was made")
            } catch {
                guard case .overLimit(.outputPixels(chain, made.0, made.1, 1, _, 100_000_000), nil) = error else {
                    Issue.record("\(chain): \(error)")
                    continue
                }
            }
        }
    }
}

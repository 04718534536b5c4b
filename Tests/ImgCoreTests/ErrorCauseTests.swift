import Foundation
import Testing
@testable import ImgCore
@testable import ImgRenderer

/// ImgCore's limit errors carry which limit and which values, in library terms; the CLI front names the options.
@Suite("Structured error causes")
struct ErrorCauseTests {
    @Test func aPixelLimitSaysWhichLimitAndWhichValues() throws {
        var configuration = PipelineConfiguration()
        configuration.policy.noCache = true
        var request = ImageRequest(source: .file(path: Paths.images + "/sample.jpg"))
        request.decoding.maxPixels = 1000
        request.chain = try ProcessingChain.parse("resize(10x10)")
        do {
            _ = try ImagePipeline(configuration: configuration).image(for: request)
            Issue.record("a 1000-pixel limit let the image through")
        } catch {
            guard case .overLimit(.pixels(let width, let height, 1, let pixels, 1000), nil) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(pixels == Int64(width * height) && pixels > 1000)
            #expect(error.exitCode == 5 && error.kind == "image")
            #expect(error.message == "over the pixel limit: \(width)x\(height) = \(pixels) pixels > 1000 pixels")
        }
    }

    @Test func transferLimitsAreNetworkFailuresThatARetryCannotChange() {
        for limit in [ExceededLimit.bodyBytes(limit: 1 << 20), .redirects(limit: 2)] {
            let error = ImgError.overLimit(limit)
            #expect(error.exitCode == 3 && error.kind == "network" && !error.isTransient)
            #expect(!error.message.contains("--"), "\(error.message)")
        }
        #expect(ImgError.overLimit(.frames(count: 12, limit: 3), contentType: "text/plain").message
                == "12 frames is over the limit of 3 frames (Content-Type text/plain)")
    }

    /// The warm renderer sends a limit back as its structured cause, so the client words it as it would alone.
    @Test func aLimitCrossesTheRendererIntact() {
        let error = ImgError.overLimit(.pixels(width: 10, height: 20, frames: 3, pixels: 600, limit: 100), contentType: "a/b")
        #expect(ImgError(rendererFailure: error.rendererFailure) == error)
    }
}

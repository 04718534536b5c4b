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

    /// The decode-memory, output-size and render-time limits carry their causes too, in library terms; a message
    /// that merely reads like one of them is not one.
    @Test func everyLimitOfARenderingIsStructured() throws {
        let image = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/generated/progressive.jpg"))
        var decoding = DecodeOptions()
        decoding.maxDecodeMemory = 1024
        func render(_ chain: String, _ decoding: DecodeOptions) throws -> ImgError? {
            do throws(ImgError) {
                _ = try Rendering.render(.memory(image), isRemote: true, chain: try ProcessingChain.parse(chain),
                                             encoding: OutputEncoding(format: .png), decoding: decoding)
                return nil
            } catch { return error }
        }
        let memory = try #require(try render("resize(10x10)", decoding))
        guard case .overLimit(.decodeMemory(_, _, "progressive JPEG", let bytes, 1024), nil) = memory else {
            Issue.record("\(memory)")
            return
        }
        #expect(bytes > 1024 && memory.exitCode == 5 && memory.message.hasSuffix("KiB to decode, over the limit of 1 KiB"))
        let huge = try #require(try render("resize(30000x30000,fill)", DecodeOptions()))
        guard case .overLimit(.outputPixels("resize(30000x30000,fill)", 30000, 30000, 1, 900_000_000, 100_000_000), nil) = huge else {
            Issue.record("\(huge)")
            return
        }
        #expect(huge.message == "resize(30000x30000,fill) would make 30000x30000 = 900000000 pixels, over the limit of 100000000 pixels")
        let expired = RenderClock(seconds: 1)
        expired.end()
        #expect(expired.expiredError == .overLimit(.renderTime(seconds: 1)) && RenderClock.isExpiry(expired.expiredError))
        #expect(!RenderClock.isExpiry(.image("rendering stopped after --max-render-time 1s")))
        for error in [memory, huge, expired.expiredError] {
            #expect(!error.message.contains("--"), "\(error.message)")
            #expect(ImgError(rendererFailure: error.rendererFailure) == error)
        }
    }

    /// The warm renderer sends a limit back as its structured cause, so the client words it as it would alone.
    @Test func aLimitCrossesTheRendererIntact() {
        let error = ImgError.overLimit(.pixels(width: 10, height: 20, frames: 3, pixels: 600, limit: 100), contentType: "a/b")
        #expect(ImgError(rendererFailure: error.rendererFailure) == error)
        // An untrusted format too, so that the command line can name the option that allows it.
        let untrusted = ImgError.untrustedFormat(loader: "svgload")
        #expect(ImgError(rendererFailure: untrusted.rendererFailure) == untrusted)
    }
}

import CVips
import Foundation
import Testing
@testable import ImgCore

/// Renderings at once share the cores (`PipelineConfiguration.threadsPerRendering`): the rule, the limit as libvips'
/// thread pool reads it, its way from a batch's configuration to each rendering, the bytes it leaves as they were,
/// and what `batch -v` says of it.
@Suite("Threads per rendering")
struct RenderingThreadsTests {
    @Test func renderingsAtOnceShareTheCoresAtLeastOneThreadEach() {
        #expect(PipelineConfiguration.threadsPerRendering(renderingsAtOnce: 1, cores: 2) == nil)
        #expect(PipelineConfiguration.threadsPerRendering(renderingsAtOnce: 2, cores: 2) == 1)
        #expect(PipelineConfiguration.threadsPerRendering(renderingsAtOnce: 3, cores: 2) == 1)
        #expect(PipelineConfiguration.threadsPerRendering(renderingsAtOnce: 2, cores: 8) == 4)
        #expect(PipelineConfiguration.threadsPerRendering(renderingsAtOnce: 3, cores: 8) == 2)
        #expect(PipelineConfiguration.threadsPerRendering(renderingsAtOnce: 17, cores: 16) == 1)
        #expect(PipelineConfiguration.threadsPerRendering(renderingsAtOnce: 1, cores: 1) == nil)
        #expect(PipelineConfiguration.threadsPerRendering(renderingsAtOnce: 2, cores: 1) == nil)
        #expect(PipelineConfiguration.threadsPerRendering(renderingsAtOnce: 0, cores: 4) == nil)
    }

    /// The limit is the field libvips' thread pool reads (`vips_image_get_concurrency`), set on a copy (an image
    /// shared with another rendering keeps its own), and an image made from the limited one inherits it.
    @Test func theLimitIsOnACopyAndImagesMadeFromItInheritIt() throws {
        let image = try DecodedFixture.decoded(Paths.images + "/sample.jpg")
        let limited = try image.limitingThreads(1)
        #expect(limited.threadLimit(or: 99) == 1)
        #expect(image.threadLimit(or: 99) == 99)
        let made = try limited.derive("to grey") { imgf_colourspace($0, $1, VIPS_INTERPRETATION_B_W) }
        #expect(made.threadLimit(or: 99) == 1)
        #expect(try image.limitingThreads(0).threadLimit(or: 99) == 1)
        #expect(try DecodedFixture.pixels(limited) == DecodedFixture.pixels(image))
    }

    /// A rendering's own decode takes the limit itself (no copy is built for it), and an image made from it inherits it.
    @Test func anImageNoOneElseHoldsTakesTheLimitItself() throws {
        let image = try DecodedFixture.decoded(Paths.images + "/sample.jpg")
        let pixels = try DecodedFixture.pixels(image)
        image.limitThreads(1)
        #expect(image.threadLimit(or: 99) == 1)
        let made = try image.derive("to grey") { imgf_colourspace($0, $1, VIPS_INTERPRETATION_B_W) }
        #expect(made.threadLimit(or: 99) == 1)
        image.limitThreads(0)
        #expect(image.threadLimit(or: 99) == 1)
        #expect(try DecodedFixture.pixels(image) == pixels)
    }

    /// A rendering limited to one thread encodes on one thread (the limit went down its processors to the image the
    /// encoder wrote), and writes the bytes a rendering on libvips' default threads writes.
    @Test(arguments: ["sample.jpg", "sample.png", "1.webp", "cogs.gif"])
    func aRenderingOnOneThreadWritesTheSameBytes(input: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/" + input))
        func render(_ threads: Int?) throws -> EncodedImage {
            try Rendering.render(.memory(data), isRemote: true, chain: ProcessingChain.parse("resize(120x120,fill)|>blur(1)"),
                                     encoding: OutputEncoding(format: .png), decoding: DecodeOptions(), threads: threads)
        }
        let alone = try render(nil), single = try render(1), three = try render(3)
        #expect(!alone.data.isEmpty)
        #expect(alone.pixelThreads == nil && single.pixelThreads == 1 && three.pixelThreads == 3)
        #expect(single.data == alone.data)
        #expect(three.data == alone.data)
    }

    /// The in-process renderer hands the context's number to libvips.
    @Test func theInProcessRendererPassesTheContextsThreadsOn() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/sample.jpg"))
        var request = ImageRequest(source: .remote(URL(string: "http://127.0.0.1:9/sample.jpg")!))
        request.chain = try ProcessingChain.parse("resize(64x64)")
        request.encoding = OutputEncoding(format: .jpeg)
        var context = RenderingContext()
        #expect(try InProcessRendering().render(request, from: .memory(data), context: context).pixelThreads == nil)
        context.threadsPerRendering = 1
        #expect(try InProcessRendering().render(request, from: .memory(data), context: context).pixelThreads == 1)
    }

    /// The configuration's number reaches every rendering, and a pipeline without one leaves libvips' default.
    @Test func theConfiguredThreadsReachEveryRendering() throws {
        let shared = try DoubledPipeline(adjust: { $0.threadsPerRendering = 1 })
        _ = try shared.pipeline.image(for: DoubledPipeline.request("resize(10x10)"))
        _ = try shared.pipeline.image(for: DoubledPipeline.request("resize(20x20)"))
        #expect(shared.log.threadsByRendering == [1, 1])
        let alone = try DoubledPipeline()
        _ = try alone.pipeline.image(for: DoubledPipeline.request())
        #expect(alone.log.threadsByRendering == [nil])
    }

    /// `batch -v` says how the cores are shared: its rule with the default `-j` (on this machine's cores), libvips'
    /// default with one worker, and `VIPS_CONCURRENCY` when the user set it (then no limit is set).
    @Test func batchSaysHowItSharesTheCores() throws {
        let fixture = try BatchFixture(count: 2, inProcess: true)
        let lines = [fixture.server.url("/img/img1.jpg"), fixture.server.url("/img/img2.jpg")]
        func line(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
            let result = try Imgfetch.runInProcess(["batch", try fixture.list(lines), "-O", fixture.output + "-\(UUID().uuidString)",
                                           "--cache-dir", fixture.cache, "--no-progress", "-v", "--resize", "32x32"] + arguments,
                                          environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            return try #require(result.stderr.split(separator: "\n").first { $0.hasPrefix("batch: ") }.map(String.init))
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let jobs = BatchOptions.defaultJobs, atOnce = min(jobs, cores + 1)
        let expected = PipelineConfiguration.threadsPerRendering(renderingsAtOnce: atOnce).map(String.init)
            ?? "libvips' default (one per core)"
        #expect(try line([]) == "batch: \(jobs) workers, \(atOnce) renderings at once, libvips threads per rendering: \(expected)")
        #expect(try line(["-j", "1"]) == "batch: 1 worker, 1 rendering at once, libvips threads per rendering: libvips' default (one per core)")
        #expect(try line([], environment: ["VIPS_CONCURRENCY": "3"])
                == "batch: \(jobs) workers, \(atOnce) renderings at once, libvips threads per rendering: VIPS_CONCURRENCY=3")
    }
}

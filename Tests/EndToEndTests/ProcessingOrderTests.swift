import Foundation
import Testing
@testable import ImgCore

/// A resize first in the chain is folded into libvips' thumbnail, which reads the input once, top to bottom; the
/// steps after it must work whatever they read (they failed with "out of order read" and a false "corrupt image").
@Suite("Processing orders after a streamed resize")
struct ProcessingOrderTests {
    let work: TemporaryDirectory

    init() throws {
        work = try TemporaryDirectory()
    }

    /// Chains where a step that reads out of order (rotate, smart crop) follows the first resize, with steps
    /// that read in order around it; and the expected output size of each.
    static let chains: [(chain: String, width: Int, height: Int)] = [
        ("resize(250x)|>rotate(90)", -1, 250),
        ("resize(100x100)|>crop(50x50,attention)", 50, 50),
        ("resize(100x100)|>crop(50x50,entropy)", 50, 50),
        ("resize(240x)|>rotate(180)|>blur(2)", 240, -1),
        ("resize(240x)|>blur(2)|>grayscale|>rotate(270)", -1, 240),
        ("resize(200x200,fill)|>round(10)|>crop(100x80,attention)", 100, 80),
        ("resize(260x)|>overlay(#ff0000,0.2)|>rotate(90)|>resize(100x)", 100, -1),
        ("resize(200x200,exact)|>circle|>crop(120x120,entropy)|>rotate(90)", 120, 120),
        ("resize(250x)|>resize(200x200,fill)|>crop(100x100,attention)", 100, 100),
    ]

    /// Runs `imgfetch INPUT -p CHAIN -o OUT.png` (extra arguments added) and checks the output's size; a side of
    /// -1 is not checked.
    func expectRenders(_ input: String, _ chain: String, width: Int, height: Int, extra: [String] = [],
                       stdin: Data? = nil) throws {
        let output = work.file(UUID().uuidString + ".png")
        let result = try Imgfetch.run([input, "-p", chain, "-o", output] + extra, stdin: stdin)
        #expect(result.status == 0, "\(input) \(chain): \(result.stderr)")
        guard result.status == 0 else { return }
        let probe = try Rendering.probe(try Data(contentsOf: URL(fileURLWithPath: output)))
        if width > 0 { #expect(probe.width == width, "\(input) \(chain)") }
        if height > 0 { #expect(probe.height == height, "\(input) \(chain)") }
    }

    @Test func everyOrderWorksOnALargeJPEG() throws {
        // 3480x5304, made from the bundled sample (as `vips resize sample.jpg big.jpg 12` would).
        let big = work.file("big.jpg")
        let made = try Imgfetch.run([Paths.images + "/sample.jpg", "--no-cache", "--resize", "3480x", "--upscale", "-o", big])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(try Rendering.probe(try Data(contentsOf: URL(fileURLWithPath: big))).height == 5304)
        for (chain, width, height) in Self.chains + [("resize(1000x)|>rotate(90)", -1, 1000)] {
            try expectRenders(big, chain, width: width, height: height, extra: ["--no-cache"])
        }
    }

    @Test(arguments: ["sample.jpg", "sample.png", "sample.tif"])
    func everyOrderWorksOnOtherInputs(name: String) throws {
        for (chain, width, height) in Self.chains {
            try expectRenders(Paths.images + "/" + name, chain, width: width, height: height, extra: ["--no-cache"])
        }
    }

    @Test func stdinAndTheDiskCacheToo() throws {
        let png = try #require(FileManager.default.contents(atPath: Paths.images + "/sample.png"))
        try expectRenders("-", "resize(100x100)|>crop(50x50,attention)", width: 50, height: 50, extra: ["--no-cache"],
                          stdin: png)
        // From a URL: the first run caches the original, the second decodes it from the disk cache.
        let server = try FixtureServer()
        let cache = ["--cache-dir", work.file("cache")]
        let url = server.url("/img/sample.png")
        try expectRenders(url, "resize(150x)", width: 150, height: -1, extra: cache)
        for chain in ["resize(120x)|>rotate(90)", "resize(100x100)|>crop(50x50,entropy)"] {
            let output = work.file(UUID().uuidString + ".png")
            let result = try Imgfetch.run([url, "-p", chain, "-o", output, "-v"] + cache)
            #expect(result.status == 0 && result.stderr.contains("disk-original"), "\(chain): \(result.stderr)")
        }
    }
}

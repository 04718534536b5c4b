import Foundation
import Testing
@testable import ImgCore

/// The python of the venv `make test` makes with the reference decoders (`blurhash`, `thumbhash` from PyPI).
private let referencePython = ProcessInfo.processInfo.environment["IMGFETCH_PYREF_PYTHON"]

/// What imgfetch printed for `--facts`, decoded with the reference BlurHash and ThumbHash decoders: the
/// placeholders' average colour is the image's, and ThumbHash's aspect ratio the image's.
@Suite("Facts against the reference decoders", .serialized,
       .enabled(if: referencePython != nil,
                "IMGFETCH_PYREF_PYTHON is not set: run through `make test`, which makes the venv .build/pyref with pip install blurhash thumbhash"))
struct FactsReferenceTests: EndToEndSuite {
    let server: FixtureServer
    let work: TemporaryDirectory

    struct Decoded: Decodable {
        var blurhashMean: [Double]
        var thumbhashMean: [Double]
        var thumbhashAspect: Double
    }

    /// Runs the reference decoders on imgfetch's placeholders.
    func decode(blurhash: String, thumbhash: String, width: Int, height: Int) throws -> Decoded {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(referencePython))
        process.arguments = [Paths.fixtures + "/pyref/decode_placeholders.py", blurhash, thumbhash, "\(width)", "\(height)"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "the reference decoders failed on \(blurhash) \(thumbhash)")
        let lastLine = try #require(data.split(separator: UInt8(ascii: "\n")).last, "no output from the reference decoders")
        return try JSONDecoder().decode(Decoded.self, from: Data(lastLine))
    }

    @Test(arguments: [("/img/sample.jpg", "200x120:fill"), ("/img/sample.jpg", "120x180:fill"),
                      ("/img/sample.png", "150x150:fill")])
    func placeholdersDecodeToTheImagesColourAndShape(path: String, resize: String) throws {
        let output = work.file("out-\(resize.prefix(7)).png")
        let run = try fetch([server.url(path), "--resize", resize, "--facts", "--json", "-o", output])
        #expect(run.status == 0, "\(run.stderr)")
        let record = try #require(try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any])
        let image = try Data(contentsOf: URL(fileURLWithPath: output))
        let probe = try Rendering.probe(image)
        let decoded = try decode(blurhash: try #require(record["blurhash"] as? String),
                                 thumbhash: try #require(record["thumbhash"] as? String),
                                 width: probe.width / 4, height: probe.height / 4)
        let pixels = try ImageInspection.factPixels(image)
        for band in 0..<3 {
            // The mean of the (opaque) image's sample.
            let sum = stride(from: band, to: pixels.rgba.count, by: 4).reduce(0.0) { $0 + Double(pixels.rgba[$1]) }
            let mean = sum / Double(pixels.width * pixels.height)
            #expect(abs(decoded.blurhashMean[band] - mean) < 20, "\(path) \(resize) band \(band): BlurHash \(decoded.blurhashMean[band]), image \(mean)")
            #expect(abs(decoded.thumbhashMean[band] - mean) < 12, "\(path) \(resize) band \(band): ThumbHash \(decoded.thumbhashMean[band]), image \(mean)")
        }
        let aspect = Double(probe.width) / Double(probe.height)
        #expect(abs(decoded.thumbhashAspect / aspect - 1) < 0.12, "\(path) \(resize): ThumbHash \(decoded.thumbhashAspect), image \(probe.width)x\(probe.height)")
    }
}

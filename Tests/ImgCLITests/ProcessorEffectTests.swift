import Foundation
import Testing
@testable import ImgCore

/// The visible effect of processors on transparency, grey images and animations, checked on the binary's output.
@Suite("Processor effects on alpha, grey and animation")
struct ProcessorEffectTests {
    let work: TemporaryDirectory

    init() throws {
        work = try TemporaryDirectory()
    }

    /// Runs imgfetch on `input` (a path) without any cache and returns the output bytes.
    func render(_ input: String, _ arguments: [String]) throws -> Data {
        let output = work.file(UUID().uuidString)
        let result = try Imgfetch.runInProcess([input, "--no-cache", "-o", output] + arguments)
        #expect(result.status == 0, "\(input) \(arguments): \(result.stderr)")
        return FileManager.default.contents(atPath: output) ?? Data()
    }

    /// Writes an SVG of `width`×`height` holding `shapes`, and returns its path.
    func svg(_ shapes: String, width: Int, height: Int) throws -> String {
        let path = work.file(UUID().uuidString + ".svg")
        let text = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\">\(shapes)</svg>"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// A radius of 0 (or 0%) leaves the corners square and the image as it is: no alpha band is added (it was, all
    /// opaque, and a PNG grew by a band).
    @Test func roundingByZeroLeavesTheImageAsItIs() throws {
        let sample = Paths.images + "/sample.jpg"
        let plain = try render(sample, ["--resize", "40", "--format", "png"])
        for radius in ["0", "0%"] {
            #expect(try render(sample, ["--resize", "40", "--round", radius, "--format", "png"]) == plain, "\(radius)")
        }
        #expect(try render(sample, ["--resize", "40", "--round", "4", "--format", "png"]) != plain)
    }

    /// Left half opaque white, right half transparent (black with alpha 0): the blurred edge stays white and only
    /// fades (it turned grey: the transparent black bled in).
    @Test func blurKeepsTheColourOfHalfTransparentEdges() throws {
        let half = try svg("<rect x=\"0\" y=\"0\" width=\"50\" height=\"60\" fill=\"#fff\"/>", width: 100, height: 60)
        for format in ["png", "webp"] {
            let blurred = try render(half, ["--blur", "3", "--format", format, "--lossless"])
            for x in [48, 50, 52] {
                let pixel = try ImageInspection.pixel(blurred, x: x, y: 30)
                #expect(pixel.count == 4 && pixel[3] > 10 && pixel[3] < 245, "\(format) x=\(x): \(pixel)")
                #expect(pixel.prefix(3).allSatisfy { $0 >= 250 }, "\(format) x=\(x): \(pixel)")
            }
        }
        let grey = try render(half, ["--grayscale", "--blur", "3", "--format", "png"])
        let pixel = try ImageInspection.pixel(grey, x: 52, y: 30)
        #expect(pixel.count == 2 && pixel[0] >= 250 && pixel[1] > 10, "grey: \(pixel)")
    }

    /// A grey image with alpha flattened for JPEG gets the background colour itself (corners came out white for
    /// red and black for #00ff00: three values were given to a one-band flatten); on a grey colour it stays grey.
    @Test func backgroundColourIsKeptForGreyImages() throws {
        let sample = Paths.images + "/sample.jpg"
        for (colour, expected) in [("red", [255.0, 0, 0]), ("#00ff00", [0, 255, 0]), ("#2040e0", [32, 64, 224]),
                                   ("#808080", [128]), ("black", [0])] {
            for chain in [["--grayscale", "--circle"], ["--circle", "--grayscale"], ["--grayscale", "--round", "40"]] {
                let jpeg = try render(sample, chain + ["--background", colour, "--format", "jpeg"])
                let corner = try ImageInspection.pixel(jpeg, x: 1, y: 1)
                #expect(corner.count == expected.count, "\(colour) \(chain): \(corner)")
                #expect(zip(corner, expected).allSatisfy { abs($0 - $1) <= 6 }, "\(colour) \(chain): \(corner)")
            }
        }
    }

    /// generated/moving-square.gif: a red square that moves left to right over three frames. A smart crop cuts
    /// every frame at the window chosen on the first (it followed the square, so the animation jumped).
    @Test(arguments: ["attention", "entropy"])
    func smartCropKeepsOneWindowForAnAnimation(anchor: String) throws {
        let source = Paths.images + "/generated/moving-square.gif"
        for format in ["gif", "webp"] {
            let cropped = try render(source, ["--crop", "20x20:\(anchor)", "--format", format] + (format == "webp" ? ["--lossless"] : []))
            // Frames 1 and 2 come out the same (all grey): a saver may merge them into one longer frame.
            let frames = try ImageInspection.animation(cropped).frames
            #expect(frames >= 2, "\(format)")
            let first = try ImageInspection.pixel(cropped, x: 10, y: 10)
            #expect(first[0] > 200 && first[1] < 50, "\(format) frame 0: \(first)")
            for frame in 1..<max(frames, 2) {
                let later = try ImageInspection.pixel(cropped, x: 10, y: 10, frame: frame)
                #expect(abs(later[0] - 128) < 10 && abs(later[1] - 128) < 10, "\(format) frame \(frame): \(later)")
            }
        }
        let still = try render(source, ["--first-frame", "--crop", "20x20:\(anchor)", "--format", "png"])
        #expect(try ImageInspection.pixel(still, x: 10, y: 10)[0] > 200)
    }
}

import CJxl
import Foundation
import Testing
@testable import ImgCore

/// libjxl's Butteraugli distance as ImgCore measures it: zero for identical pixels, growing with the damage a lossy
/// encoding does, refusing images of different sizes; measured on real photos thumbnailed by imgfetch itself.
@Suite("Butteraugli distance")
struct ButteraugliTests {
    /// A 200 px PNG thumbnail of a fixture photo and JPEG encodings of it at `qualities`, each as metric pixels.
    static func photoAndJPEGs(_ photo: String, qualities: [Int]) throws -> (MetricPixels, [MetricPixels]) {
        let work = try TemporaryDirectory()
        func render(_ arguments: [String], _ name: String) throws -> MetricPixels {
            let output = work.file(name)
            let result = try Imgfetch.runInProcess([Paths.images + "/photos/" + photo, "--no-cache", "--resize", "200x"]
                                          + arguments + ["-o", output])
            #expect(result.status == 0, "\(result.stderr)")
            return try ImageInspection.metricPixels(try Data(contentsOf: URL(fileURLWithPath: output)))
        }
        let reference = try render([], "reference.png")
        return (reference, try qualities.map { try render(["--quality", "\($0)"], "q\($0).jpg") })
    }

    @Test(arguments: ["plane.jpg", "grass.jpg"])
    func distanceGrowsAsJPEGQualityFalls(photo: String) throws {
        let (reference, encoded) = try Self.photoAndJPEGs(photo, qualities: [95, 70, 20])
        #expect(try ButteraugliDistance.between(reference, reference) == 0)
        let distances = try encoded.map { try ButteraugliDistance.between(reference, $0) }
        #expect(distances[0] > 0, "\(distances)")
        #expect(distances[0] < distances[1] && distances[1] < distances[2], "\(distances)")
        #expect(distances[0] < 1.5 && distances[2] > 2, "\(distances)")
    }

    /// A reference prepared once (linear-light floats, converted by a table) measures what libjxl measures when given
    /// the 8-bit sRGB itself (converted by its colour management on every call), to 0.001.
    @Test(arguments: ["plane.jpg", "grass.jpg"])
    func aPreparedReferenceMeasuresWhatLibjxlMeasuresOnSRGB(photo: String) throws {
        let (reference, encoded) = try Self.photoAndJPEGs(photo, qualities: [90, 60, 20])
        let prepared = ButteraugliReference(reference)
        for pixels in encoded {
            let measured = try prepared.distance(to: pixels), direct = try Self.libjxlOnSRGB(reference, pixels)
            #expect(abs(measured - direct) < 0.001, "\(photo): \(measured) against libjxl's \(direct)")
        }
    }

    /// libjxl's distance of two 8-bit sRGB images, given to it as they are.
    static func libjxlOnSRGB(_ reference: MetricPixels, _ distorted: MetricPixels) throws -> Double {
        let jxl = try #require(imgf_jxl())
        let api = try #require(jxl.pointee.JxlButteraugliApiCreate(nil))
        defer { jxl.pointee.JxlButteraugliApiDestroy(api) }
        var format = JxlPixelFormat(num_channels: 3, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        let result = try #require(reference.rgb.withUnsafeBytes { first in
            distorted.rgb.withUnsafeBytes { second in
                jxl.pointee.JxlButteraugliCompute(api, UInt32(reference.width), UInt32(reference.height), &format,
                                                  first.baseAddress, first.count, &format, second.baseAddress, second.count)
            }
        })
        defer { jxl.pointee.JxlButteraugliResultDestroy(result) }
        return Double(jxl.pointee.JxlButteraugliResultGetDistance(result, ButteraugliDistance.norm))
    }

    @Test func imagesOfDifferentSizesAreRefused() {
        let small = MetricPixels(width: 2, height: 2, rgb: [UInt8](repeating: 128, count: 12))
        let wide = MetricPixels(width: 4, height: 2, rgb: [UInt8](repeating: 128, count: 24))
        #expect(throws: ImgError.self) { try ButteraugliDistance.between(small, wide) }
        let empty = MetricPixels(width: 0, height: 0, rgb: [])
        #expect(throws: ImgError.self) { try ButteraugliDistance.between(empty, empty) }
    }

    @Test func transparentPixelsAreMeasuredOnWhite() throws {
        let pixels = try ImageInspection.metricPixels(try Data(contentsOf: URL(fileURLWithPath: Paths.images + "/rgba.png")))
        #expect(pixels.rgb.count == pixels.width * pixels.height * 3)
    }
}

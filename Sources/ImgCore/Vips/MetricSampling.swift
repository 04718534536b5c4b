import CVips
import Foundation

extension DecodedImage {
    /// The first frame at full size in 8-bit sRGB, alpha flattened onto `background` (default white): what a
    /// perceptual distance is measured on.
    func metricPixels(background: Color = .white) throws(ImgError) -> MetricPixels {
        let frame = frameCount > 1
            ? try derive("first frame") { imgf_extract_area($0, $1, 0, 0, Int32(width), Int32(pageHeight)) }
            : self
        let colour = frame.interpretation == VIPS_INTERPRETATION_sRGB && frame.bands >= 3
            ? frame : try frame.derive("metric to sRGB") { imgf_colourspace($0, $1, VIPS_INTERPRETATION_sRGB) }
        let flat = colour.hasAlpha ? try ImageEncoder.flatten(colour, onto: background) : colour
        let bytes = try flat.derive("metric to 8 bits") { imgf_cast_uchar($0, $1) }
        let rgb = bytes.bands == 3 ? bytes : try bytes.derive("metric bands") { imgf_extract_bands($0, $1, 0, 3) }
        guard rgb.bands == 3 else { throw .image("metric sample has \(rgb.bands) bands, not 3") }
        var length = 0
        guard let block = imgf_write_to_memory(rgb.pointer, &length) else {
            throw .image("metric sample failed: \(VipsRuntime.takeError())")
        }
        defer { g_free(block) }
        let expected = rgb.width * rgb.height * 3
        guard length == expected else { throw .image("metric sample is \(length) bytes, not \(expected)") }
        return MetricPixels(width: rgb.width, height: rgb.height, rgb: [UInt8](UnsafeRawBufferPointer(start: block, count: length)))
    }
}

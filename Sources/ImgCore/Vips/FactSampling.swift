import CVips
import Foundation

extension DecodedImage {
    /// The first frame shrunk to fit `side` x `side` (never enlarged), in 8-bit sRGB with alpha: what `ImageFacts` are
    /// computed from. One small thumbnail of an image already decoded: no second decode of the input.
    public func factPixels(side: Int = ImageFacts.sampleSide) throws(ImgError) -> FactPixels {
        let frame = frameCount > 1
            ? try derive("first frame") { imgf_extract_area($0, $1, 0, 0, Int32(width), Int32(pageHeight)) }
            : self
        let small = try frame.derive("facts sample") {
            imgf_thumbnail_image($0, $1, Int32(side), Int32(side), Int32(VIPS_SIZE_DOWN.rawValue), 0, 1)
        }
        let colour = small.interpretation == VIPS_INTERPRETATION_sRGB && small.bands >= 3
            ? small : try small.derive("facts sample to sRGB") { imgf_colourspace($0, $1, VIPS_INTERPRETATION_sRGB) }
        let bytes = try colour.derive("facts sample to 8 bits") { imgf_cast_uchar($0, $1) }
        let rgba = bytes.hasAlpha ? bytes : try bytes.derive("facts sample alpha") { imgf_addalpha($0, $1) }
        guard rgba.bands == 4 else { throw .image("facts sample has \(rgba.bands) bands, not 4") }
        var length = 0
        guard let block = imgf_write_to_memory(rgba.pointer, &length) else {
            throw .image("facts sample failed: \(VipsRuntime.takeError())")
        }
        defer { g_free(block) }
        let expected = rgba.width * rgba.height * 4
        guard length == expected else { throw .image("facts sample is \(length) bytes, not \(expected)") }
        let pixels = [UInt8](UnsafeRawBufferPointer(start: block, count: length))
        return FactPixels(width: rgba.width, height: rgba.height, rgba: pixels)
    }
}

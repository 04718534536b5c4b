import CVips
import Foundation

/// Multiplies an image's alpha by an antialiased shape drawn with SVG (our own bytes, never the input's).
enum AlphaMask {
    /// Draws `shape` (SVG elements in a `width`×`height` canvas, filled white) and uses it as the frame's alpha.
    static func apply(shape: String, to frame: DecodedImage) throws(ImgError) -> DecodedImage {
        let svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(frame.width)" height="\(frame.height)">\(shape)</svg>
            """
        var bytes = Array(svg.utf8)
        var rendered: UnsafeMutablePointer<VipsImage>?
        guard imgf_svg_buffer(&bytes, bytes.count, &rendered) == 0, let rendered else {
            throw .image("drawing mask failed: \(VipsRuntime.takeError())")
        }
        let drawing = DecodedImage(taking: rendered)
        let mask = try drawing.derive("mask") { imgf_extract_bands($0, $1, 3, 1) }
        let withAlpha = frame.hasAlpha ? frame : try frame.derive("add alpha") { imgf_addalpha($0, $1) }
        let colourBands = withAlpha.bands - 1
        let colour = try withAlpha.derive("split colour") { imgf_extract_bands($0, $1, 0, Int32(colourBands)) }
        let alpha = try withAlpha.derive("split alpha") { imgf_extract_bands($0, $1, Int32(colourBands), 1) }
        let product = try alpha.derive("mask alpha") { imgf_multiply($0, mask.pointer, $1) }
        let scale: [Double] = [1.0 / 255.0], offset: [Double] = [0]
        let scaled = try product.derive("scale alpha") { imgf_linear($0, $1, scale, offset, 1) }
        let newAlpha = try scaled.derive("alpha to 8 bits") { imgf_cast_uchar($0, $1) }
        return try colour.derive("join alpha") { imgf_bandjoin2($0, newAlpha.pointer, $1) }
    }
}

import CVips

extension ImageProcessors {
    /// Centres an image on a canvas of `width`×`height` in `color`: the second half of `Resize`'s `pad`, applied to
    /// the fitted image (by `Resize` itself, or after a decoder's shrink-on-load made it). A grey image gets the
    /// colour's grey (Rec. 709 luma); an opaque image gets an alpha band when the colour is not opaque.
    struct Pad: ImageProcessing {
        var width: Int, height: Int
        var color: Color

        /// Internal: it stands for the rest of a `resize(...,pad=...)`, whose identifier is the chain's.
        var identifier: String { "pad(\(width)x\(height),\(color))" }

        /// Never: the canvas is added around rows read in order.
        var needsRandomAccess: Bool { false }

        func outputSize(width: Int, height: Int) -> (width: Int, height: Int) { (self.width, self.height) }

        func process(_ image: DecodedImage) throws(ImgError) -> DecodedImage {
            try image.mapFrames { frame throws(ImgError) in try padded(frame) }
        }

        /// One frame centred on the canvas.
        func padded(_ image: DecodedImage) throws(ImgError) -> DecodedImage {
            var source = image
            if color.alpha < 255, !source.hasAlpha { source = try source.derive("add alpha") { imgf_addalpha($0, $1) } }
            let background = canvas(for: source)
            return try source.derive("pad") {
                imgf_gravity_centre($0, $1, Int32(width), Int32(height), background, Int32(background.count))
            }
        }

        /// The canvas colour in `image`'s bands, which decoding made 8-bit sRGB or grey: red, green and blue, or
        /// their grey for one colour band; then the alpha.
        func canvas(for image: DecodedImage) -> [Double] {
            let (red, green, blue) = (Double(color.red), Double(color.green), Double(color.blue))
            let grey = image.bands - (image.hasAlpha ? 1 : 0) == 1
            var values = grey ? [(0.2126 * red + 0.7152 * green + 0.0722 * blue).rounded()] : [red, green, blue]
            if image.hasAlpha { values.append(Double(color.alpha)) }
            return values
        }
    }
}

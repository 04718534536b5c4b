import CVips

extension ImageProcessors {
    /// Lays a colour over the image: `opacity` 0 changes nothing, 1 gives the solid colour; default 0.5.
    /// The colour's own alpha multiplies the opacity, so `#ff000080` at 1 equals `#ff0000` at 0.5.
    public struct ColorOverlay: ImageProcessing, Hashable {
        public var color: Color
        public var opacity: Double

        public init(color: Color, opacity: Double = 0.5) throws(ImgError) {
            guard opacity.isFinite, (0...1).contains(opacity) else {
                throw .usage("overlay opacity \(opacity) is out of range (0 to 1)")
            }
            let effective = opacity * Double(color.alpha) / 255
            self.color = Color(red: color.red, green: color.green, blue: color.blue)
            self.opacity = (effective * 1000).rounded() / 1000
        }

        public var identifier: String { "overlay(\(color),\(opacity.canonicalText))" }

        /// Never: a pixel-wise blend.
        public var needsRandomAccess: Bool { false }

        public func process(_ image: DecodedImage) throws(ImgError) -> DecodedImage {
            let colour = image.bands < 3 ? try image.derive("to sRGB") { imgf_colourspace($0, $1, VIPS_INTERPRETATION_sRGB) } : image
            let keep = 1 - opacity
            var multipliers = [keep, keep, keep]
            var offsets = [Double(color.red) * opacity, Double(color.green) * opacity, Double(color.blue) * opacity]
            if colour.bands > 3 {
                multipliers.append(1)
                offsets.append(0)
            }
            let count = Int32(multipliers.count)
            let mixed = try colour.derive("overlay") { imgf_linear($0, $1, multipliers, offsets, count) }
            return try mixed.derive("overlay to 8 bits") { imgf_cast_uchar($0, $1) }
        }
    }
}

import CVips

extension ImageProcessors {
    /// Converts to shades of grey, keeping alpha.
    public struct Grayscale: ImageProcessing, Hashable {
        public init() {}
        public var identifier: String { "grayscale" }

        /// Never: a pixel-wise conversion.
        public var needsRandomAccess: Bool { false }

        public func process(_ image: DecodedImage) throws(ImgError) -> DecodedImage {
            try image.derive("grayscale") { imgf_colourspace($0, $1, VIPS_INTERPRETATION_B_W) }
        }
    }
}

import CVips

extension ImageProcessors {
    /// A Gaussian blur with standard deviation `sigma` pixels (greater than 0, at most 1000).
    public struct GaussianBlur: ImageProcessing, Hashable {
        public var sigma: Double

        public init(sigma: Double) throws(ImgError) {
            guard sigma.isFinite, sigma > 0, sigma <= 1000 else {
                throw .usage("blur sigma \(sigma) is out of range (greater than 0, at most 1000)")
            }
            self.sigma = sigma
        }

        public var identifier: String { "blur(\(sigma.canonicalText))" }

        /// Never: the convolution reads a window of rows that moves down the image.
        public var needsRandomAccess: Bool { false }

        public func process(_ image: DecodedImage) throws(ImgError) -> DecodedImage {
            try image.mapFrames { frame throws(ImgError) in
                let blurred = try frame.derive("blur") { imgf_gaussblur($0, $1, sigma) }
                return try blurred.derive("blur to 8 bits") { imgf_cast_uchar($0, $1) }
            }
        }
    }
}

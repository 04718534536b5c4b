import CVips

extension ImageProcessors {
    /// Crops the centred square, then keeps only the inscribed circle (as Nuke's `Circle`).
    public struct Circle: ImageProcessing, Hashable {
        public init() {}
        public var identifier: String { "circle" }

        /// Never: a centred cut and a mask read rows in order.
        public var needsRandomAccess: Bool { false }

        public func process(_ image: DecodedImage) throws(ImgError) -> DecodedImage {
            try image.mapFrames { frame throws(ImgError) in
                let side = min(frame.width, frame.height)
                let square = try frame.derive("circle crop") { imgf_smartcrop($0, $1, Int32(side), Int32(side), VIPS_INTERESTING_CENTRE) }
                let half = Double(side) / 2
                return try AlphaMask.apply(shape: "<circle cx=\"\(half)\" cy=\"\(half)\" r=\"\(half)\" fill=\"#fff\"/>", to: square)
            }
        }
    }
}

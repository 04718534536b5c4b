import CVips

extension ImageProcessors {
    /// Mirrors the image: `flip` top to bottom (`--flip`, `flip()`), `flop` left to right (`--flop`, `flop()`),
    /// as ImageMagick names them. Every frame of an animation is mirrored alike.
    public struct Flip: ImageProcessing, Hashable {
        public enum Direction: Sendable, Hashable {
            /// Top to bottom (`flip`).
            case vertical
            /// Left to right (`flop`).
            case horizontal
        }

        public var direction: Direction

        public init(direction: Direction) { self.direction = direction }

        /// `flip` or `flop`: however it was spelled (`--flip`, `flip()`), one variant key.
        public var identifier: String { direction == .vertical ? "flip" : "flop" }

        /// Top to bottom reads the input from the bottom up; left to right reads rows in order.
        public var needsRandomAccess: Bool { direction == .vertical }

        public func process(_ image: DecodedImage) throws(ImgError) -> DecodedImage {
            let vipsDirection = direction == .vertical ? VIPS_DIRECTION_VERTICAL : VIPS_DIRECTION_HORIZONTAL
            return try image.mapFrames { frame throws(ImgError) in
                try frame.derive(identifier) { imgf_flip($0, $1, vipsDirection) }
            }
        }
    }
}

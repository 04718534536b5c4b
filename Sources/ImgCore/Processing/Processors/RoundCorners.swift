extension ImageProcessors {
    /// Rounds the corners: they become transparent (or the background colour in formats without alpha).
    public struct RoundCorners: ImageProcessing, Hashable {
        public enum Radius: Hashable, Sendable {
            case pixels(Int)
            /// A percentage of the shorter side.
            case percent(Double)
        }
        public var radius: Radius

        public init(radius: Radius) throws(ImgError) {
            switch radius {
            case .pixels(let value) where value < 0 || value > 100_000:
                throw .usage("round radius \(value) is out of range (0 to 100000)")
            case .percent(let value) where !(0...50).contains(value):
                throw .usage("round radius \(value)% is out of range (0% to 50%)")
            default: self.radius = radius
            }
        }

        /// Parses `12` (pixels) or `10%`.
        public init(parsing text: String) throws(ImgError) {
            if text.hasSuffix("%"), let value = DecimalNumber.parse(text.dropLast()), value.isFinite {
                try self.init(radius: .percent(value))
            } else if !text.isEmpty, text.allSatisfy(\.isASCIIDigit), let value = Int(text) {
                try self.init(radius: .pixels(value))
            } else {
                throw .usage("bad round radius '\(text)': expected pixels (12) or a percentage (10%)")
            }
        }

        public var identifier: String {
            switch radius {
            case .pixels(let value): "round(\(value))"
            case .percent(let value): "round(\(value.canonicalText)%)"
            }
        }

        /// Never: a mask reads rows in order.
        public var needsRandomAccess: Bool { false }

        public func process(_ image: DecodedImage) throws(ImgError) -> DecodedImage {
            try image.mapFrames { frame throws(ImgError) in
                let shorter = Double(min(frame.width, frame.height))
                let pixels = switch radius {
                case .pixels(let value): min(Double(value), shorter / 2)
                case .percent(let value): shorter * value / 100
                }
                // Square corners: the image as it is (a mask would only add an opaque alpha band).
                guard pixels > 0 else { return frame }
                let shape = "<rect x=\"0\" y=\"0\" width=\"\(frame.width)\" height=\"\(frame.height)\" rx=\"\(pixels)\" ry=\"\(pixels)\" fill=\"#fff\"/>"
                return try AlphaMask.apply(shape: shape, to: frame)
            }
        }
    }
}

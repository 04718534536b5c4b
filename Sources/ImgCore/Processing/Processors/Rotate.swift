import CVips

extension ImageProcessors {
    /// Rotates clockwise by 90, 180 or 270 degrees.
    public struct Rotate: ImageProcessing, Hashable {
        public var degrees: Int

        public init(degrees: Int) throws(ImgError) {
            guard [90, 180, 270].contains(degrees) else { throw .usage("rotate takes 90, 180 or 270, not \(degrees)") }
            self.degrees = degrees
        }

        public var identifier: String { "rotate(\(degrees))" }

        /// Always: a turned image reads its input by columns, or from the bottom up.
        public var needsRandomAccess: Bool { true }

        public func process(_ image: DecodedImage) throws(ImgError) -> DecodedImage {
            let angle: VipsAngle = switch degrees {
            case 90: VIPS_ANGLE_D90
            case 180: VIPS_ANGLE_D180
            default: VIPS_ANGLE_D270
            }
            return try image.mapFrames { frame throws(ImgError) in try frame.derive("rotate") { imgf_rot($0, $1, angle) } }
        }
    }
}

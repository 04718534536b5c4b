import CVips

extension ImageProcessors {
    /// Rotates clockwise by any multiple of 90 degrees (negative is anticlockwise: -90 is 270), kept as 0, 90,
    /// 180 or 270; 0 (and 360, -360, …) leaves the image as it is.
    public struct Rotate: ImageProcessing, Hashable {
        /// 0, 90, 180 or 270.
        public var degrees: Int

        public init(degrees: Int) throws(ImgError) {
            guard degrees % 90 == 0 else { throw .usage("rotate takes a multiple of 90 (90, 180, 270, -90, …), not \(degrees)") }
            self.degrees = (degrees % 360 + 360) % 360
        }

        /// `rotate(270)` for -90 and 270 alike; empty for no turn, which leaves the chain's identifier as without it.
        public var identifier: String { degrees == 0 ? "" : "rotate(\(degrees))" }

        /// A turned image reads its input by columns, or from the bottom up.
        public var needsRandomAccess: Bool { degrees != 0 }

        public func process(_ image: DecodedImage) throws(ImgError) -> DecodedImage {
            if degrees == 0 { return image }
            let angle: VipsAngle = switch degrees {
            case 90: VIPS_ANGLE_D90
            case 180: VIPS_ANGLE_D180
            default: VIPS_ANGLE_D270
            }
            return try image.mapFrames { frame throws(ImgError) in try frame.derive("rotate") { imgf_rot($0, $1, angle) } }
        }
    }
}

import CVips

extension ImageProcessors {
    /// Crops to WxH (clamped to the image), choosing the area by `anchor`; default `centre`.
    public struct Crop: ImageProcessing, Hashable {
        public enum Anchor: String, Sendable, CaseIterable { case centre, attention, entropy }
        public var width: Int, height: Int, anchor: Anchor

        public init(width: Int, height: Int, anchor: Anchor = .centre) throws(ImgError) {
            guard (1...100_000).contains(width), (1...100_000).contains(height) else {
                throw .usage("crop size \(width)x\(height) is out of range (1 to 100000)")
            }
            (self.width, self.height, self.anchor) = (width, height, anchor)
        }

        /// Parses `centre`, `center`, `attention` or `entropy`.
        public static func anchor(named name: String) -> Anchor? {
            name.lowercased() == "center" ? .centre : Anchor(rawValue: name.lowercased())
        }

        public var identifier: String { "crop(\(width)x\(height),\(anchor.rawValue))" }

        /// `attention` and `entropy` scan the whole image before cutting; `centre` only cuts.
        public var needsRandomAccess: Bool { anchor != .centre }

        /// An animation is cut at one window for every frame, so that it doesn't jump: `attention` and `entropy`
        /// choose it on the first frame.
        public func process(_ image: DecodedImage) throws(ImgError) -> DecodedImage {
            let interesting: VipsInteresting = switch anchor {
            case .centre: VIPS_INTERESTING_CENTRE
            case .attention: VIPS_INTERESTING_ATTENTION
            case .entropy: VIPS_INTERESTING_ENTROPY
            }
            let w = Int32(min(width, image.width)), h = Int32(min(height, image.pageHeight))
            guard anchor != .centre, image.frameCount > 1 else {
                return try image.mapFrames { frame throws(ImgError) in
                    try frame.derive("crop") { imgf_smartcrop($0, $1, w, h, interesting) }
                }
            }
            let page = Int32(image.pageHeight), fullWidth = Int32(image.width)
            let firstFrame = try image.derive("first frame") { imgf_extract_area($0, $1, 0, 0, fullWidth, page) }
            let chosen = try firstFrame.derive("crop") { imgf_smartcrop($0, $1, w, h, interesting) }
            let left = -imgf_xoffset(chosen.pointer), top = -imgf_yoffset(chosen.pointer)
            return try image.mapFrames { frame throws(ImgError) in
                try frame.derive("crop") { imgf_extract_area($0, $1, left, top, w, h) }
            }
        }
    }
}

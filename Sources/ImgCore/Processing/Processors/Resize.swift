import CVips

extension ImageProcessors {
    /// Resizes to a box: `fit` keeps the whole image inside (never enlarging unless `upscale`),
    /// `fill` covers the box and crops the centre, `exact` ignores the aspect ratio.
    public struct Resize: ImageProcessing, Hashable {
        public enum Mode: String, Sendable, CaseIterable { case fit, fill, exact }

        /// The box; nil for a side that is free (only with `fit`).
        public var width: Int?, height: Int?
        /// Defaults to `fit`.
        public var mode: Mode
        /// Whether `fit` may enlarge; default false. `fill` and `exact` always give exactly the box.
        public var upscale: Bool

        public init(width: Int?, height: Int?, mode: Mode = .fit, upscale: Bool = false) throws(ImgError) {
            guard width != nil || height != nil else { throw .usage("resize needs a width or a height") }
            for side in [width, height].compactMap({ $0 }) where side < 1 || side > 100_000 {
                throw .usage("resize side \(side) is out of range (1 to 100000)")
            }
            if mode != .fit, width == nil || height == nil {
                throw .usage("resize \(mode.rawValue) needs both width and height (WxH)")
            }
            (self.width, self.height, self.mode, self.upscale) = (width, height, mode, mode == .fit && upscale)
        }

        /// Parses `WxH`, `Wx`, `xH` or `N` (an N×N box).
        public static func parseBox(_ text: String) throws(ImgError) -> (Int?, Int?) {
            let parts = text.lowercased().split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
            func side(_ part: Substring) throws(ImgError) -> Int? {
                if part.isEmpty { return nil }
                guard part.allSatisfy(\.isASCIIDigit), let value = Int(part) else {
                    throw .usage("bad size '\(text)': expected WxH, Wx or xH with whole numbers")
                }
                return value
            }
            if parts.count == 1 {
                let value = try side(parts[0])
                guard value != nil else { throw .usage("bad size '\(text)'") }
                return (value, value)
            }
            return (try side(parts[0]), try side(parts[1]))
        }

        public var identifier: String {
            let box = "\(width.map(String.init) ?? "")x\(height.map(String.init) ?? "")"
            return "resize(\(box),\(mode.rawValue)\(upscale ? ",upscale" : ""))"
        }

        /// The arguments of `vips_thumbnail`: target width, height, VipsSize and VipsInteresting.
        var thumbnailArguments: (width: Int32, height: Int32, size: Int32, crop: Int32) {
            let free: Int32 = 10_000_000
            let size: VipsSize = switch mode {
            case .fit: upscale ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN
            case .fill: VIPS_SIZE_BOTH
            case .exact: VIPS_SIZE_FORCE
            }
            let crop: VipsInteresting = mode == .fill ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE
            return (width.map { Int32($0) } ?? free, height.map { Int32($0) } ?? free,
                    Int32(size.rawValue), Int32(crop.rawValue))
        }

        /// `fill` crops, which `vips_thumbnail` can't do on an all-frames image: such images go frame by frame.
        var needsFrameByFrame: Bool { mode == .fill }

        /// Never: libvips reduces rows in order.
        public var needsRandomAccess: Bool { false }

        /// Orientation was settled when the image was decoded (turned upright, or left alone with
        /// `--no-autorotate`): a later resize never turns the image by a tag that is still there.
        public func process(_ image: DecodedImage) throws(ImgError) -> DecodedImage {
            let arguments = thumbnailArguments
            let resizeFrame = { (frame: DecodedImage) throws(ImgError) -> DecodedImage in
                try frame.derive("resize") {
                    imgf_thumbnail_image($0, $1, arguments.width, arguments.height, arguments.size, arguments.crop, 1)
                }
            }
            return try image.mapFrames(resizeFrame)
        }
    }
}

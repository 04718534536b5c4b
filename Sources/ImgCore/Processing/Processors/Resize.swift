import CVips

extension ImageProcessors {
    /// Resizes to a box: `fit` keeps the whole image inside (never enlarging unless `upscale`; only enlarging with
    /// `enlargeOnly`), `fill` covers the box and crops the centre, `exact` ignores the aspect ratio, `cover` covers
    /// the box without cropping (the smaller side reaches it), `pad` fits the image in the box (enlarging if need be)
    /// and centres it on a canvas of the box in `padColor` (img2dataset's `border`); or scales by `percent`.
    /// Spelled as vipsthumbnail and ImageMagick spell sizes: `WxH>` (shrink only, the same as `WxH`), `WxH<`
    /// (enlarge only), `WxH!` (exact), `WxH^` (cover), `N%` and `N%xM%`.
    public struct Resize: ImageProcessing, Hashable {
        public enum Mode: String, Sendable, CaseIterable { case fit, fill, exact, cover, pad }

        /// The box; nil for a side that is free (only with `fit`), both nil with `percent`.
        public var width: Int?, height: Int?
        /// Defaults to `fit`.
        public var mode: Mode
        /// Whether `fit` may enlarge; default false. `fill`, `exact`, `cover` and `pad` always give the box.
        public var upscale: Bool
        /// Whether `fit` only enlarges (`WxH<`): an image already as big as the box stays as it is; default false.
        public var enlargeOnly: Bool
        /// Horizontal and vertical scale in percent (`N%`, `N%xM%`); nil for a box.
        public var percent: Percent?
        /// The canvas colour of `pad`; default white (img2dataset's border). One with alpha below 255 gives an
        /// opaque image an alpha band.
        public var padColor = Color.white

        public struct Percent: Hashable, Sendable {
            public var horizontal: Double, vertical: Double
        }

        public init(width: Int?, height: Int?, mode: Mode = .fit, upscale: Bool = false, enlargeOnly: Bool = false,
                    padColor: Color = .white) throws(ImgError) {
            guard width != nil || height != nil else { throw .usage("resize needs a width or a height") }
            for side in [width, height].compactMap({ $0 }) where side < 1 || side > 100_000 {
                throw .usage("resize side \(side) is out of range (1 to 100000)")
            }
            if mode != .fit, width == nil || height == nil {
                throw .usage("resize \(mode.rawValue) needs both width and height (WxH)")
            }
            (self.width, self.height, self.mode, self.padColor) = (width, height, mode, padColor)
            self.enlargeOnly = mode == .fit && enlargeOnly
            self.upscale = mode == .fit && (upscale || enlargeOnly)
        }

        /// Scales by `horizontal` and `vertical` percent (over 0, at most 10000).
        public init(percent horizontal: Double, _ vertical: Double) throws(ImgError) {
            for value in [horizontal, vertical] where !(value > 0 && value <= 10_000) {
                throw .usage("resize \(value.canonicalText)% is out of range (over 0 to 10000%)")
            }
            (width, height, mode, upscale, enlargeOnly) = (nil, nil, .exact, false, false)
            percent = Percent(horizontal: horizontal, vertical: vertical)
        }

        /// Parses `WxH`, `Wx` or `xH` (whole numbers), or `N` (an N×N box).
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

        /// Parses a resize size with its ImageMagick suffix and the modes after it (`fit`, `fill`, `exact`, `cover`,
        /// `pad` or `pad=COLOR`, `upscale`): `200x200>`, `1000x1000<`, `100x100!`, `100x100^`, `50%`, `50%x25%`,
        /// `300x`.
        /// A suffix and a mode that says otherwise contradict each other (`200x200!` with `fill`), as do two modes
        /// (`fill,fit`; `pad=red,pad=blue`).
        public static func parse(_ size: String, options: [String]) throws(ImgError) -> Resize {
            var mode: Mode?, upscale = false, padColor = Color.white
            var given: String?
            for option in options.map({ $0.lowercased() }) {
                if option == "upscale" {
                    upscale = true
                    continue
                }
                let isMode = Mode(rawValue: option) != nil || option.hasPrefix("pad=")
                if isMode, let given, given != option { throw .usage("resize modes '\(given)' and '\(option)' contradict each other: give one") }
                if let parsed = Mode(rawValue: option) {
                    (mode, given) = (parsed, option)
                } else if option.hasPrefix("pad=") {
                    guard let color = Color(parsing: String(option.dropFirst(4))) else {
                        throw .usage("bad pad colour '\(option.dropFirst(4))': expected #rgb, #rrggbb, #rrggbbaa or a name")
                    }
                    (mode, padColor, given) = (.pad, color, option)
                } else {
                    throw .usage("unknown resize mode '\(option)' (fit, fill, exact, cover, pad, upscale)")
                }
            }
            // `upscale` lets a fit enlarge: every other resize enlarges or shrinks as it says, and would ignore it.
            if upscale, size.contains("%") {
                throw .usage("a size in percent ('\(size)') enlarges as it says: upscale would do nothing")
            }
            if upscale, let given, mode != .fit {
                throw .usage("'\(given)' enlarges as it needs: upscale applies to fit only")
            }
            if size.contains("%") {
                guard mode == nil else { throw .usage("a size in percent ('\(size)') takes no resize mode") }
                let parts = size.lowercased().split(separator: "x", maxSplits: 1, omittingEmptySubsequences: false)
                func value(_ part: Substring) throws(ImgError) -> Double {
                    guard part.hasSuffix("%"), let number = DecimalNumber.parse(part.dropLast()), number.isFinite,
                          part.dropLast().allSatisfy({ $0.isASCIIDigit || $0 == "." }) else {
                        throw .usage("bad size '\(size)': expected N% or N%xM%")
                    }
                    return number
                }
                let horizontal = try value(parts[0])
                return try Resize(percent: horizontal, parts.count > 1 ? try value(parts[1]) : horizontal)
            }
            let suffix = size.last.flatMap { ">!<^".contains($0) ? $0 : nil }
            let (width, height) = try parseBox(suffix == nil ? size : String(size.dropLast()))
            guard let suffix else {
                return try Resize(width: width, height: height, mode: mode ?? .fit, upscale: upscale, padColor: padColor)
            }
            let implied: Mode = switch suffix {
            case "!": .exact
            case "^": .cover
            default: .fit
            }
            if let mode, mode != implied {
                throw .usage("'\(size)' already says \(suffix == ">" ? "shrink only" : suffix == "<" ? "enlarge only" : implied.rawValue); drop '\(mode.rawValue)'")
            }
            if suffix == ">", upscale { throw .usage("'\(size)' shrinks only: upscale contradicts it") }
            if upscale { throw .usage("'\(size)' enlarges as it says: upscale applies to fit only") }
            return try Resize(width: width, height: height, mode: implied, upscale: upscale, enlargeOnly: suffix == "<")
        }

        /// `resize(200x200,fit)`, `resize(1000x1000,fit,enlarge-only)`, `resize(100x100,cover)`, `resize(50%)`:
        /// equal results have equal identifiers (`200x200>` is `200x200`, `50%x50%` is `50%`).
        public var identifier: String {
            if let percent {
                let horizontal = percent.horizontal.canonicalText, vertical = percent.vertical.canonicalText
                return "resize(\(horizontal)%\(horizontal == vertical ? "" : "x\(vertical)%"))"
            }
            let box = "\(width.map(String.init) ?? "")x\(height.map(String.init) ?? "")"
            if mode == .pad { return "resize(\(box),pad=\(padColor))" }
            return "resize(\(box),\(mode.rawValue)\(enlargeOnly ? ",enlarge-only" : upscale ? ",upscale" : ""))"
        }

        /// The arguments of `vips_thumbnail` for an image of `imageWidth`×`imageHeight` (as it will be turned
        /// upright): target width, height, VipsSize and VipsInteresting.
        func thumbnailArguments(imageWidth: Int, imageHeight: Int) -> (width: Int32, height: Int32, size: Int32, crop: Int32) {
            let free: Int32 = 10_000_000
            if let percent {
                let width = max(1, Int((Double(imageWidth) * percent.horizontal / 100).rounded()))
                let height = max(1, Int((Double(imageHeight) * percent.vertical / 100).rounded()))
                return (Int32(clamping: width), Int32(clamping: height), Int32(VIPS_SIZE_FORCE.rawValue), Int32(VIPS_INTERESTING_NONE.rawValue))
            }
            var (targetWidth, targetHeight) = (width.map { Int32($0) } ?? free, height.map { Int32($0) } ?? free)
            if mode == .cover, let width, let height {
                // The side that needs the larger scale reaches the box; the other follows the aspect ratio.
                if Double(width) / Double(max(imageWidth, 1)) >= Double(height) / Double(max(imageHeight, 1)) {
                    targetHeight = free
                } else {
                    targetWidth = free
                }
            }
            let size: VipsSize = switch mode {
            case .fit: enlargeOnly ? VIPS_SIZE_UP : upscale ? VIPS_SIZE_BOTH : VIPS_SIZE_DOWN
            case .fill, .cover, .pad: VIPS_SIZE_BOTH
            case .exact: VIPS_SIZE_FORCE
            }
            let crop: VipsInteresting = mode == .fill ? VIPS_INTERESTING_CENTRE : VIPS_INTERESTING_NONE
            return (targetWidth, targetHeight, Int32(size.rawValue), Int32(crop.rawValue))
        }

        /// `fill` crops and `pad` adds a border, which `vips_thumbnail` can't do on an all-frames image: such images
        /// go frame by frame.
        var needsFrameByFrame: Bool { mode == .fill || mode == .pad }

        /// Never: libvips reduces rows in order.
        public var needsRandomAccess: Bool { false }

        /// Orientation was settled when the image was decoded (turned upright, or left alone with
        /// `--no-autorotate`): a later resize never turns the image by a tag that is still there.
        public func process(_ image: DecodedImage) throws(ImgError) -> DecodedImage {
            let arguments = thumbnailArguments(imageWidth: image.width, imageHeight: image.pageHeight)
            let resizeFrame = { (frame: DecodedImage) throws(ImgError) -> DecodedImage in
                let resized = try frame.derive("resize") {
                    imgf_thumbnail_image($0, $1, arguments.width, arguments.height, arguments.size, arguments.crop, 1)
                }
                guard let padding else { return resized }
                return try padding.padded(resized)
            }
            return try image.mapFrames(resizeFrame)
        }

        /// With `pad`, the canvas the fitted image is centred on: what is left to do once a decoder's shrink-on-load
        /// made the fitted image; nil otherwise.
        var padding: Pad? {
            guard mode == .pad, let width, let height else { return nil }
            return Pad(width: width, height: height, color: padColor)
        }
    }
}

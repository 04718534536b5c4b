/// How the result is written: format, quality and what happens to alpha and metadata.
public struct OutputEncoding: Sendable, Hashable {
    /// The output format; nil keeps the source format (the default).
    public var format: ImageFormat?
    /// 1...100; nil uses the format's default (JPEG 85, WebP 80, AVIF and HEIC 50, JPEG XL 75). Formats without
    /// a quality setting (PNG, GIF, TIFF) ignore it.
    public var quality: Int?
    /// Lossless WebP or JPEG XL; default false.
    public var lossless = false
    /// What transparent pixels become in formats without alpha; default white.
    public var background = Color.white
    /// Keep EXIF, XMP and ICC metadata; default false (stripped after conversion to sRGB).
    public var keepMetadata = false
    /// `--quality auto[:DISTANCE]`: the quality is the lowest whose result is within this Butteraugli distance of the
    /// processed image (`AutoEncoder`); nil (the default) for `quality` as it is. A JPEG so searched is written with
    /// optimised Huffman tables and without chroma subsampling, a WebP with sharp chroma subsampling
    /// (`ImageEncoder.searchedOptions`).
    public var targetDistance: Double?
    /// `--format auto[:LIST]`: the formats the smallest result is chosen from (each at its `targetDistance`
    /// quality), in `EncodingChoice.candidateOrder`; `format` is then nil. Nil (the default) for one format.
    public var candidateFormats: [ImageFormat]?

    public init(format: ImageFormat? = nil, quality: Int? = nil) {
        self.format = format
        self.quality = quality
    }

    /// The encoding of a throw-away rendering that reads all of an input of `source` format, every frame of an
    /// animation: GIF and WebP as themselves, others as PNG.
    static func probe(of source: ImageFormat?) -> OutputEncoding {
        OutputEncoding(format: source.flatMap { $0.supportsAnimation ? $0 : nil } ?? .png)
    }

    /// Whether an input of `source` format may come out animated: an animated GIF or WebP, written as GIF or WebP
    /// (one of them among `candidateFormats`). Otherwise the output takes the first frame or page alone.
    func keepsFrames(ofSource source: ImageFormat?) -> Bool {
        guard let source, source.supportsAnimation else { return false }
        if let candidateFormats { return candidateFormats.contains(where: \.supportsAnimation) }
        return (format ?? source).supportsAnimation
    }

    /// The default quality of a format, nil where the format has none.
    static func defaultQuality(of format: ImageFormat) -> Int? {
        switch format {
        case .jpeg: 85
        case .webp: 80
        case .avif, .heic: 50
        case .jxl: 75
        default: nil
        }
    }

    /// The canonical spelling for the variant key, e.g. `webp(q=80)` or `source(bg=#000000)`:
    /// everything that changes the bytes, defaults spelled out, nothing that doesn't.
    /// A searched quality is named by its target and coding (`q=auto:1.1,coding=3`) and a chosen format by its list and
    /// the rule that chose it (`auto:avif+webp+jpeg(...,choice=2,...)`), never by what they turned out to be; both name
    /// the background, which the metric flattens transparency onto.
    public func identifier(decoding: DecodeOptions = DecodeOptions()) -> String {
        var parts: [String] = []
        if let candidateFormats {
            let names = candidateFormats.map(\.rawValue).joined(separator: "+")
            parts.append("q=auto:\(EncodingChoice.spelling(targetDistance ?? EncodingChoice.defaultDistance))")
            parts.append("coding=\(EncodingChoice.searchedCoding)")
            parts.append("choice=\(EncodingChoice.formatChoiceRule)")
            parts.append("bg=\(background)")
            if keepMetadata { parts.append("keep-metadata") }
            return "auto:\(names)(\(parts.joined(separator: ",")))" + decoding.identifierSuffix
        }
        if let targetDistance, !(lossless && (format == .webp || format == .jxl)),
           format.map({ OutputEncoding.defaultQuality(of: $0) != nil }) ?? true {
            parts.append("q=auto:\(EncodingChoice.spelling(targetDistance))")
            parts.append("coding=\(EncodingChoice.searchedCoding)")
            parts.append("bg=\(background)")
        } else if let format {
            if lossless, format == .webp || format == .jxl {
                parts.append("lossless")
            } else if let defaultQuality = OutputEncoding.defaultQuality(of: format) {
                parts.append("q=\(quality ?? defaultQuality)")
            }
            if !format.supportsAlpha { parts.append("bg=\(background)") }
        } else {
            if let quality { parts.append("q=\(quality)") }
            if lossless { parts.append("lossless") }
            parts.append("bg=\(background)")
        }
        if keepMetadata { parts.append("keep-metadata") }
        let name = format?.rawValue ?? "source"
        return name + (parts.isEmpty ? "" : "(\(parts.joined(separator: ",")))") + decoding.identifierSuffix
    }

    /// The settings given that `format` has no use for, which `-v` notes (on a cache hit too): a quality in PNG,
    /// lossless in JPEG (PNG and TIFF, always lossless, take it as given); none for the source's format (nil).
    public func ignoredSettings(for format: ImageFormat?) -> [IgnoredSetting] {
        guard let format else { return [] }
        let hasLossless = format == .webp || format == .jxl || format == .png || format == .tiff
        var ignored: [IgnoredSetting] = []
        if quality != nil || targetDistance != nil, OutputEncoding.defaultQuality(of: format) == nil {
            ignored.append(IgnoredSetting(.quality(auto: quality == nil), format: format))
        } else if quality != nil, lossless, format == .webp || format == .jxl {
            ignored.append(IgnoredSetting(.qualityWhenLossless, format: format))
        }
        if lossless, !hasLossless { ignored.append(IgnoredSetting(.lossless, format: format)) }
        return ignored
    }
}

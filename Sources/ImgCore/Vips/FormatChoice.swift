import CVips
import Foundation

extension AutoEncoder {
    /// `--format auto`: each candidate at its searched quality, the smallest result winning (an equal size goes to the
    /// earlier in `EncodingChoice.candidateOrder`). With transparency that is used (a pixel not fully opaque), only the
    /// candidates that keep it compete; an animation, only those that animate; when the list has none, all of it does
    /// (flattened, or the first frame) and `-v` says so. After the first candidate, a result no smaller than the best
    /// so far is not measured (it could not win, nor could a higher quality, as sizes grow with quality): it bounds the
    /// candidate's search from above, and a candidate whose search ends on such a result is dropped
    /// (`QualitySearch.lowest(within:startingAt:falling:worthMeasuring:encode:measure:)`).
    static func choosingFormat(_ image: DecodedImage, among candidates: [ImageFormat], encoding: OutputEncoding,
                               sourceFormat: ImageFormat?) throws(ImgError) -> EncodedImage {
        let target = encoding.targetDistance ?? EncodingChoice.defaultDistance
        let (image, reference) = try measurable(image, background: encoding.background)
        let (formats, restriction) = try competing(candidates, for: image)
        var best: (encoded: EncodedImage, outcome: QualitySearch.Outcome<EncodedImage>)?
        var tried: [String] = []
        for format in formats {
            var fixed = encoding
            (fixed.format, fixed.candidateFormats, fixed.quality) = (format, nil, nil)
            let smallest = best?.encoded.data.count
            let outcome = try search(image, reference: reference, distance: target, encoding: fixed, sourceFormat: sourceFormat,
                                     worthMeasuring: { probe in smallest.map { probe.data.count < $0 } ?? true })
            guard let outcome else {
                tried.append("\(format.rawValue) dropped (no smaller than the best at the lowest quality left)")
                continue
            }
            let choice = EncodingChoice(quality: outcome.quality, distance: outcome.distance)
            tried.append("\(format.rawValue) \(outcome.encoding.data.count) bytes at q=\(choice.quality) (distance \(choice.distance))")
            if smallest.map({ outcome.encoding.data.count < $0 }) ?? true { best = (outcome.encoding, outcome) }
        }
        guard let best else { throw .internalFailure("format auto: no candidate was encoded") }
        var encoded = best.encoded
        encoded.chosen = EncodingChoice(quality: best.outcome.quality, distance: best.outcome.distance)
        encoded.notes.append(note(format: encoded.format, best.outcome, target: target))
        encoded.notes.append("format auto: chose \(encoded.format.rawValue) of \(tried.joined(separator: "; "))")
        if let restriction { encoded.notes.append(restriction) }
        return encoded
    }

    /// The candidates that compete for `image`, and what `-v` says about those left out (nil when none is).
    static func competing(_ candidates: [ImageFormat], for image: DecodedImage) throws(ImgError) -> ([ImageFormat], String?) {
        var formats = candidates, notes: [String] = []
        if image.frameCount > 1 {
            let animating = formats.filter(\.supportsAnimation)
            if animating.isEmpty {
                notes.append("format auto: none of \(names(candidates)) animates: the first frame competes")
            } else {
                formats = animating
                notes.append("format auto: an animation: only \(names(animating)) compete\(animating.count == 1 ? "s" : "")")
            }
        }
        if try image.usesTransparency() {
            let keeping = formats.filter(\.supportsAlpha)
            if keeping.isEmpty {
                notes.append("format auto: none of \(names(formats)) keeps transparency: flattened onto the background")
            } else if keeping.count < formats.count {
                formats = keeping
                notes.append("format auto: transparent pixels: only \(names(keeping)) keep them")
            }
        }
        return (formats, notes.isEmpty ? nil : notes.joined(separator: "; "))
    }

    private static func names(_ formats: [ImageFormat]) -> String {
        formats.map(\.rawValue).joined(separator: ", ")
    }
}

extension DecodedImage {
    /// Whether the image has an alpha channel with a pixel not fully opaque (an alpha channel opaque everywhere,
    /// as many photos saved as PNG have, keeps nothing a format without alpha would lose).
    func usesTransparency() throws(ImgError) -> Bool {
        guard hasAlpha else { return false }
        let last = Int32(bands - 1)
        let alpha = try derive("alpha band") { imgf_extract_bands($0, $1, last, 1) }
        let opaque: Double = imgf_band_format(pointer) == VIPS_FORMAT_USHORT ? 65535 : 255
        return try alpha.mean() < opaque
    }
}

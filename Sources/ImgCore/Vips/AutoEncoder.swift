import CVips
import Foundation

/// `--quality auto` and `--format auto`: the encoder's searches. The processed image is computed once into memory
/// (every probe encodes it, and the reference is measured on it); each probe is decoded again and measured against
/// it with Butteraugli on the first frame flattened onto the background, at the output's own size.
enum AutoEncoder {
    /// Encodes `image` as `encoding` says: choosing the format (`candidateFormats`), searching the quality
    /// (`targetDistance`, for a format that has one and is not lossless), else at the quality given.
    static func encode(_ image: DecodedImage, encoding: OutputEncoding, sourceFormat: ImageFormat?) throws(ImgError) -> EncodedImage {
        if let candidates = encoding.candidateFormats {
            return try choosingFormat(image, among: candidates, encoding: encoding, sourceFormat: sourceFormat)
        }
        let format = encoding.format ?? ImageEncoder.writableFormat(for: sourceFormat)
        guard let target = encoding.targetDistance, searches(format, encoding) else {
            return try ImageEncoder.encode(image, encoding: encoding, sourceFormat: sourceFormat)
        }
        var fixed = encoding
        fixed.format = format
        let outcome = try encodeWithin(distance: target, image, encoding: fixed, sourceFormat: sourceFormat)
        var encoded = outcome.encoding
        encoded.chosen = EncodingChoice(quality: outcome.quality, distance: outcome.distance)
        encoded.notes.append(Self.note(format: format, outcome, target: target))
        return encoded
    }

    /// Whether `format` gets a searched quality: it has a quality setting and is not written lossless.
    static func searches(_ format: ImageFormat, _ encoding: OutputEncoding) -> Bool {
        OutputEncoding.defaultQuality(of: format) != nil && !(encoding.lossless && (format == .webp || format == .jxl))
    }

    /// Encodes `image` in `encoding`'s format at the lowest quality (`QualitySearch`) whose decoded result is within
    /// Butteraugli `distance` of `image` itself, starting from the quality predicted for the format and distance.
    static func encodeWithin(distance: Double, _ image: DecodedImage, encoding: OutputEncoding,
                             sourceFormat: ImageFormat?) throws(ImgError) -> QualitySearch.Outcome<EncodedImage> {
        let (image, reference) = try measurable(image, background: encoding.background)
        let outcome = try search(image, reference: reference, distance: distance, encoding: encoding,
                                 sourceFormat: sourceFormat, worthMeasuring: { _ in true })
        guard let outcome else { throw .internalFailure("quality search: ended without a result worth measuring") }
        return outcome
    }

    /// The image in memory, and its metric pixels prepared once: the reference every probe is measured against.
    static func measurable(_ image: DecodedImage, background: Color) throws(ImgError) -> (DecodedImage, ButteraugliReference) {
        let image = try image.derive("auto: processed image in memory") { imgf_copy_memory($0, $1) }
        return (image, ButteraugliReference(try image.metricPixels(background: background)))
    }

    static func search(_ image: DecodedImage, reference: ButteraugliReference, distance: Double, encoding: OutputEncoding,
                       sourceFormat: ImageFormat?, worthMeasuring: (EncodedImage) -> Bool)
        throws(ImgError) -> QualitySearch.Outcome<EncodedImage>? {
        let format = encoding.format ?? ImageEncoder.writableFormat(for: sourceFormat)
        return try QualitySearch.lowest(
            within: distance, startingAt: QualityPrediction.quality(for: format, distance: distance),
            falling: QualityPrediction.fall[format] ?? QualitySearch.typicalFall, worthMeasuring: worthMeasuring,
            encode: { (quality: Int) throws(ImgError) in
                var probe = encoding
                (probe.quality, probe.targetDistance) = (quality, distance)
                return try ImageEncoder.encode(image, encoding: probe, sourceFormat: sourceFormat)
            },
            measure: { (encoded: EncodedImage) throws(ImgError) in
                try measure(encoded, against: reference, background: encoding.background)
            })
    }

    /// The distance of an encoding, decoded again, from `reference`.
    static func measure(_ encoded: EncodedImage, against reference: ButteraugliReference,
                        background: Color) throws(ImgError) -> Double {
        let bytes = PinnedBytes(encoded.data)
        guard let decoded = imgf_open_buffer(bytes.pointer, bytes.count, "") else {
            throw .image("cannot decode a \(encoded.format.rawValue) probe: \(VipsRuntime.takeError())")
        }
        let pixels = try DecodedImage(taking: decoded, source: bytes).metricPixels(background: background)
        return try reference.distance(to: pixels)
    }

    /// `-v`'s line about a search: `quality auto: jpeg q=70, Butteraugli distance 1.084 (target 1.1), 2 encodes`.
    static func note(format: ImageFormat, _ outcome: QualitySearch.Outcome<EncodedImage>, target: Double) -> String {
        let choice = EncodingChoice(quality: outcome.quality, distance: outcome.distance)
        var line = "quality auto: \(format.rawValue) q=\(choice.quality), Butteraugli distance \(choice.distance) "
            + "(target \(EncodingChoice.spelling(target))), \(outcome.encodes) encode\(outcome.encodes == 1 ? "" : "s")"
        if choice.distance > target { line += "; no quality was within the target" }
        return line
    }
}

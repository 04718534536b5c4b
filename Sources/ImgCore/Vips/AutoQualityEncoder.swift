import CVips
import Foundation

extension ImageEncoder {
    /// Encodes `image` in `encoding`'s format at the lowest quality (`QualitySearch`) whose decoded result is within
    /// Butteraugli `distance` of `image` itself, both measured on the first frame flattened onto the background.
    static func encodeWithin(distance: Double, _ image: DecodedImage, encoding: OutputEncoding,
                             sourceFormat: ImageFormat?) throws(ImgError) -> QualitySearch.Outcome<EncodedImage> {
        let reference = try image.metricPixels(background: encoding.background)
        return try QualitySearch.lowest(within: distance) { (quality: Int) throws(ImgError) in
            var probe = encoding
            probe.quality = quality
            let encoded = try encode(image, encoding: probe, sourceFormat: sourceFormat)
            let bytes = PinnedBytes(encoded.data)
            guard let decoded = imgf_open_buffer(bytes.pointer, bytes.count, "") else {
                throw .image("cannot decode the quality \(quality) encoding: \(VipsRuntime.takeError())")
            }
            let pixels = try DecodedImage(taking: decoded, source: bytes).metricPixels(background: encoding.background)
            return (encoded, try ButteraugliDistance.between(reference, pixels))
        }
    }
}

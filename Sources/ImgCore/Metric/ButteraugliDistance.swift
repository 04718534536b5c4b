import CJxl
import Foundation

/// The perceptual distance between two images of one size, from libjxl's Butteraugli API (`jxl/butteraugli.h`):
/// 0 for identical pixels, about 1 at the threshold of a visible difference, larger for larger ones. The images are
/// 8-bit sRGB (`MetricPixels`); the distance is Butteraugli's 3-norm over the difference map (what libjxl's
/// `butteraugli_main` prints as "3-norm"), steadier on a thumbnail than the map's single worst pixel.
public enum ButteraugliDistance {
    /// The norm taken over Butteraugli's difference map: 3.
    public static let norm: Float = 3

    /// The distance of `distorted` from `reference`; both must be of one size and neither empty.
    public static func between(_ reference: MetricPixels, _ distorted: MetricPixels) throws(ImgError) -> Double {
        guard reference.width == distorted.width, reference.height == distorted.height else {
            throw .image("butteraugli: \(reference.width)x\(reference.height) against \(distorted.width)x\(distorted.height)")
        }
        guard reference.width > 0, reference.height > 0 else { throw .image("butteraugli: an empty image") }
        guard let jxl = imgf_jxl() else { throw .image("butteraugli: \(String(cString: imgf_jxl_error()))") }
        guard let api = jxl.pointee.JxlButteraugliApiCreate(nil) else {
            throw .image("butteraugli: cannot start libjxl's API")
        }
        defer { jxl.pointee.JxlButteraugliApiDestroy(api) }
        var format = JxlPixelFormat(num_channels: 3, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        let result = reference.rgb.withUnsafeBytes { first in
            distorted.rgb.withUnsafeBytes { second in
                jxl.pointee.JxlButteraugliCompute(api, UInt32(reference.width), UInt32(reference.height),
                                      &format, first.baseAddress, first.count, &format, second.baseAddress, second.count)
            }
        }
        guard let result else { throw .image("butteraugli: libjxl could not compare the images") }
        defer { jxl.pointee.JxlButteraugliResultDestroy(result) }
        return Double(jxl.pointee.JxlButteraugliResultGetDistance(result, norm))
    }
}

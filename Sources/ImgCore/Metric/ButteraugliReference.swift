import CJxl
import Foundation

/// An image prepared once as the reference of Butteraugli distances: its pixels in linear-light sRGB, 32-bit floats,
/// the form libjxl compares in. Given 8-bit sRGB, `JxlButteraugliCompute` converts both images through its colour
/// management (lcms2) on every call, which was a quarter of the call's CPU on 200 px thumbnails; given linear floats
/// it converts nothing. So a search converts its reference here once and each probe through a 256-entry table.
/// libjxl's public API has no way to keep the reference's own Butteraugli analysis between calls: each call still
/// analyses both images.
public struct ButteraugliReference: Sendable {
    public let width: Int
    public let height: Int
    /// The reference's RGB in linear light, row by row.
    let linear: [Float]

    /// `pixels` must not be empty.
    public init(_ pixels: MetricPixels) {
        VipsRuntime.keepFreedMemoryForMeasuring()
        (width, height) = (pixels.width, pixels.height)
        linear = Self.linearised(pixels.rgb)
    }

    /// The distance of `distorted` (of the reference's size) from the reference: Butteraugli's
    /// `ButteraugliDistance.norm`-norm over its difference map.
    public func distance(to distorted: MetricPixels) throws(ImgError) -> Double {
        guard width == distorted.width, height == distorted.height else {
            throw .image("butteraugli: \(width)x\(height) against \(distorted.width)x\(distorted.height)")
        }
        guard width > 0, height > 0 else { throw .image("butteraugli: an empty image") }
        guard let jxl = imgf_jxl() else { throw .image("butteraugli: \(String(cString: imgf_jxl_error()))") }
        guard let api = jxl.pointee.JxlButteraugliApiCreate(nil) else {
            throw .image("butteraugli: cannot start libjxl's API")
        }
        defer { jxl.pointee.JxlButteraugliApiDestroy(api) }
        // Float samples are linear sRGB to libjxl (its BufferToImageBundle), so no colour conversion runs.
        var format = JxlPixelFormat(num_channels: 3, data_type: JXL_TYPE_FLOAT, endianness: JXL_NATIVE_ENDIAN, align: 0)
        let other = Self.linearised(distorted.rgb)
        let result = linear.withUnsafeBytes { first in
            other.withUnsafeBytes { second in
                jxl.pointee.JxlButteraugliCompute(api, UInt32(width), UInt32(height),
                                                  &format, first.baseAddress, first.count, &format, second.baseAddress, second.count)
            }
        }
        guard let result else { throw .image("butteraugli: libjxl could not compare the images") }
        defer { jxl.pointee.JxlButteraugliResultDestroy(result) }
        return Double(jxl.pointee.JxlButteraugliResultGetDistance(result, ButteraugliDistance.norm))
    }

    /// 8-bit sRGB samples in linear light through `toLinear` (the table read once, the samples through pointers:
    /// a thumbnail's 80,000 samples are converted for every probe).
    static func linearised(_ bytes: [UInt8]) -> [Float] {
        let table = toLinear
        return table.withUnsafeBufferPointer { table in
            bytes.withUnsafeBufferPointer { samples in
                [Float](unsafeUninitializedCapacity: samples.count) { linear, count in
                    for index in samples.indices { linear[index] = table[Int(samples[index])] }
                    count = samples.count
                }
            }
        }
    }

    /// The sRGB transfer function inverted (IEC 61966-2-1) for each 8-bit value.
    static let toLinear: [Float] = (0...255).map { (value: Int) -> Float in
        let encoded = Double(value) / 255
        return Float(encoded <= 0.04045 ? encoded / 12.92 : pow((encoded + 0.055) / 1.055, 2.4))
    }
}

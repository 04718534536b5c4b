import CCodecs
import Foundation

/// The compression of a Parquet column's pages (`CompressionCodec` in parquet.thrift) among those imgfetch reads:
/// none, snappy and zstd (their libraries opened on first use), gzip (zlib); snappy is also what it writes.
enum ParquetCodec: Int64 {
    case uncompressed = 0
    case snappy = 1
    case gzip = 2
    case zstd = 6

    /// The names of the codecs imgfetch does not read, for a refusal naming one.
    static func name(of code: Int64) -> String {
        [3: "LZO", 4: "BROTLI", 5: "LZ4", 7: "LZ4_RAW"][code] ?? "codec \(code)"
    }

    /// `bytes[range]` decompressed into exactly `size` bytes.
    func decompress(_ bytes: [UInt8], _ range: Range<Int>, size: Int) throws(ParquetFormatError) -> [UInt8] {
        if self == .uncompressed {
            guard range.count == size else { throw ParquetFormatError("a page of \(range.count) bytes where \(size) were declared") }
            return Array(bytes[range])
        }
        var output = [UInt8](repeating: 0, count: size)
        let status = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                let from = input.baseAddress.map { $0 + range.lowerBound }
                switch self {
                case .snappy: return imgf_snappy_decompress(from, range.count, out.baseAddress, size)
                case .zstd: return imgf_zstd_decompress(from, range.count, out.baseAddress, size)
                default: return imgf_gzip_decompress(from, range.count, out.baseAddress, size)
                }
            }
        }
        switch status {
        case IMGF_CODEC_OK: return output
        case IMGF_CODEC_UNAVAILABLE: throw ParquetFormatError(String(cString: imgf_codec_load_error()))
        default: throw ParquetFormatError("a \(self) page that does not decompress to its \(size) bytes")
        }
    }

    /// `bytes` in snappy's raw format, or nil when libsnappy can't be opened.
    static func snappyCompressed(_ bytes: Data) -> Data? {
        let bound = imgf_snappy_bound(bytes.count)
        guard bound > 0 else { return nil }
        var output = Data(count: bound)
        var length = 0
        let status = bytes.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { imgf_snappy_compress(input.baseAddress, bytes.count, $0.baseAddress, &length) }
        }
        guard status == IMGF_CODEC_OK else { return nil }
        output.count = length
        return output
    }
}

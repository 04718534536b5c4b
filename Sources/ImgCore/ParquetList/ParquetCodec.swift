import CCodecs
import Foundation

/// The compression of a Parquet column's pages (`CompressionCodec` in parquet.thrift) among those imgfetch reads:
/// none, snappy, zstd, Brotli, LZ4 (Hadoop's framing, or a bare block as older writers made it) and LZ4_RAW (their
/// libraries opened on first use), gzip (zlib): all but LZO, which no current writer makes. Snappy is also what it
/// writes.
enum ParquetCodec: Int64 {
    case uncompressed = 0
    case snappy = 1
    case gzip = 2
    case brotli = 4
    case lz4 = 5
    case zstd = 6
    case lz4Raw = 7

    /// The names of the codecs imgfetch does not read, for a refusal naming one.
    static func name(of code: Int64) -> String {
        code == 3 ? "LZO" : "codec \(code)"
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
                case .brotli: return imgf_brotli_decompress(from, range.count, out.baseAddress, size)
                case .lz4: return imgf_lz4_hadoop_decompress(from, range.count, out.baseAddress, size)
                case .lz4Raw: return imgf_lz4_raw_decompress(from, range.count, out.baseAddress, size)
                case .gzip, .uncompressed: return imgf_gzip_decompress(from, range.count, out.baseAddress, size)
                }
            }
        }
        switch status {
        case IMGF_CODEC_OK: return output
        case IMGF_CODEC_UNAVAILABLE:
            throw ParquetFormatError(library.map { String(cString: imgf_codec_load_error($0)) } ?? "\(name) is unavailable")
        default: throw ParquetFormatError("a \(name) page that does not decompress to its \(size) bytes")
        }
    }

    /// The library the codec is opened from on first use; nil for gzip (zlib is linked) and no codec.
    private var library: imgf_codec_library? {
        switch self {
        case .snappy: IMGF_CODEC_SNAPPY
        case .zstd: IMGF_CODEC_ZSTD
        case .brotli: IMGF_CODEC_BROTLI
        case .lz4, .lz4Raw: IMGF_CODEC_LZ4
        case .gzip, .uncompressed: nil
        }
    }

    /// The codec's name as parquet.thrift spells it.
    var name: String {
        switch self {
        case .uncompressed: "UNCOMPRESSED"
        case .snappy: "SNAPPY"
        case .gzip: "GZIP"
        case .brotli: "BROTLI"
        case .lz4: "LZ4"
        case .zstd: "ZSTD"
        case .lz4Raw: "LZ4_RAW"
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

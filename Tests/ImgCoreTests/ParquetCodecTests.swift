import Foundation
import Testing
@testable import ImgCore

/// Parquet's older LZ4 codec, which no current writer makes (pyarrow writes LZ4_RAW): Hadoop's framing, and a bare
/// block as older parquet-cpp wrote it, on blocks made here (literals only, a valid LZ4 block).
@Suite("Parquet codecs")
struct ParquetCodecTests {
    /// An LZ4 block of `bytes` (at most 14) as literals only: a token giving their count, then the bytes.
    static func literalBlock(_ bytes: [UInt8]) -> [UInt8] {
        [UInt8(bytes.count << 4)] + bytes
    }

    static func bigEndian(_ value: Int) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) }
    }

    /// A Hadoop frame: the decompressed and compressed sizes, then the block.
    static func frame(_ bytes: [UInt8]) -> [UInt8] {
        let block = literalBlock(bytes)
        return bigEndian(bytes.count) + bigEndian(block.count) + block
    }

    @Test func framedAndBareLZ4BlocksDecompress() throws {
        let first = Array("imgfetch".utf8), second = Array(" parquet".utf8)
        let framed = Self.frame(first) + Self.frame(second)
        #expect(try ParquetCodec.lz4.decompress(framed, framed.indices, size: 16) == first + second)
        let bare = Self.literalBlock(first)
        #expect(try ParquetCodec.lz4.decompress(bare, bare.indices, size: 8) == first)
        #expect(try ParquetCodec.lz4Raw.decompress(bare, bare.indices, size: 8) == first)
        // A frame that claims more than it holds, or a size other than the page's, is refused, not read past.
        var cut = framed
        cut.removeLast()
        #expect(throws: ParquetFormatError.self) { try ParquetCodec.lz4.decompress(cut, cut.indices, size: 16) }
        #expect(throws: ParquetFormatError.self) { try ParquetCodec.lz4.decompress(framed, framed.indices, size: 15) }
        #expect(throws: ParquetFormatError.self) { try ParquetCodec.lz4Raw.decompress(bare, bare.indices, size: 9) }
    }
}

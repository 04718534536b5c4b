import Foundation

/// The one reader of a PNG's chunks and its IHDR, used by every caller that reads a PNG without libspng (the
/// integrity check, the decode-memory estimate, the renderer's reply check).
///
/// Edge cases, decided as libspng (libvips' `pngload`) and libpng decide them:
/// - Chunks start after the 8-byte signature; the signature itself is the format sniffer's business
///   (`ImageFormat.sniff`) and is not checked here.
/// - A chunk is 4 bytes of length, 4 of type, the data and a 4-byte CRC. A length over 2^31 − 1 is invalid
///   (libspng's `SPNG_ECHUNK_SIZE`, libpng's "PNG unsigned integer out of range") and ends the walk as such.
/// - A chunk whose length and type are there but whose data or CRC runs past the end is handed over as
///   incomplete (`Chunk.complete` false) and ends the walk: what to make of it is the caller's business.
/// - The header is the first chunk, of type IHDR and length exactly 13 (libspng's `SPNG_EIHDR_SIZE`, and its
///   "first chunk must be IHDR"); anything else, or fewer than its 13 data bytes, is no header. Its CRC is not
///   needed to read it (the integrity check judges it).
public enum PNGChunks {
    /// The most a chunk's length may be: 2^31 − 1.
    static let maxLength = 0x7FFF_FFFF
    /// Where the first chunk starts: after the signature.
    static let firstChunk = 8

    /// One chunk's place in the bytes.
    struct Chunk {
        /// The four type letters ("IHDR", "IDAT", …).
        var type: [UInt8]
        /// Where the chunk's length field is.
        var offset: Int
        /// The data's length as written.
        var length: Int
        /// Whether the data and CRC are all there.
        var complete: Bool

        var dataOffset: Int { offset + 8 }
        /// Where the next chunk starts.
        var end: Int { offset + 12 + length }
        var name: String { String(decoding: type, as: UTF8.self) }
        func isType(_ name: String) -> Bool { type.elementsEqual(name.utf8) }
    }

    /// How a walk ended.
    enum End: Equatable {
        /// The callback asked to stop.
        case stopped
        /// The bytes ran out: fewer than 8 left for a chunk's length and type, or an incomplete chunk.
        case ranOut
        /// A chunk at this offset claims a length over 2^31 − 1.
        case invalidLength(offset: Int)
    }

    /// What IHDR says.
    public struct Header: Equatable, Sendable {
        public var width: Int, height: Int, bitDepth: Int, colorType: Int
        /// Adam7 (interlace method 1); any other non-zero method is no interlace libspng knows, and not counted.
        public var interlaced: Bool
    }

    /// Walks the chunks from the first, calling `body` on each (an incomplete one last) until it returns false.
    @discardableResult
    static func walk(_ reader: ByteReader, from start: Int = firstChunk, _ body: (Chunk) -> Bool) -> End {
        var offset = start
        while let head = reader.bytes(at: offset, length: 8) {
            let length = bigEndian32(head, at: 0)
            guard length <= maxLength else { return .invalidLength(offset: offset) }
            let chunk = Chunk(type: Array(head[4..<8]), offset: offset, length: length, complete: offset + 12 + length <= reader.count)
            guard body(chunk) else { return .stopped }
            guard chunk.complete else { return .ranOut }
            offset = chunk.end
        }
        return .ranOut
    }

    /// The header: the first chunk when it is a 13-byte IHDR whose data is there; nil otherwise.
    static func header(_ reader: ByteReader) -> Header? {
        guard let head = reader.bytes(at: firstChunk, length: 8), bigEndian32(head, at: 0) == 13,
              head[4..<8].elementsEqual("IHDR".utf8),
              let data = reader.bytes(at: firstChunk + 8, length: 13) else { return nil }
        return Header(width: bigEndian32(data, at: 0), height: bigEndian32(data, at: 4), bitDepth: Int(data[8]),
                      colorType: Int(data[9]), interlaced: data[12] == 1)
    }

    /// The header of the PNG in `data` (see the type's rules); nil when there is none.
    public static func header(in data: Data) -> Header? {
        data.withUnsafeBytes { header(ByteReader(memory: $0)) }
    }

    static func bigEndian32(_ bytes: [UInt8], at index: Int) -> Int {
        Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
    }
}

/// Parquet's DELTA_BINARY_PACKED encoding of integers, decoded a batch at a time: a header (the values a block, its
/// miniblocks, the count of values, the first value), then blocks, each a minimum delta and a bit width a miniblock,
/// then the miniblocks' deltas above that minimum, bit-packed lowest bit first (a miniblock not needed for the last
/// values has no bytes). Integers are ULEB128 varints, signed ones zigzag-coded; arithmetic wraps, as writers
/// compute the deltas. Memory is one miniblock's values, whatever the count the header gives.
struct DeltaBinaryPackedDecoder {
    /// The values a block may hold at most: 65,536 (writers use 128 to 2,048).
    static let maximumBlockValues: UInt64 = 1 << 16

    /// How many values are encoded.
    let count: Int
    /// The position after the encoding's last byte, where what follows it starts (DELTA_LENGTH_BYTE_ARRAY's bytes).
    let end: Int
    private let bytes: [UInt8]
    private var reader: VarintReader
    private let perMiniblock: Int
    private let miniblocks: Int
    /// Values decoded so far, the first one included.
    private var produced = 0
    private var previous: Int64 = 0
    private var minimum: Int64 = 0
    /// The bit widths of the block being read, and the next of its miniblocks (`miniblocks`: a block header is next).
    private var widthsStart = 0
    private var nextMiniblock = 0
    /// Decoded values not yet taken.
    private var pending: [Int64] = []
    private var pendingTaken = 0

    /// The encoding at `bytes[range]`, of at most `limit` values (a page's count: a header claiming more is
    /// malformed). An empty range holds no values. Its blocks are walked once here to find `end`.
    init(_ bytes: [UInt8], _ range: Range<Int>, limit: Int) throws(ParquetFormatError) {
        self.bytes = bytes
        reader = VarintReader(bytes: bytes, position: range.lowerBound, end: range.upperBound)
        guard !range.isEmpty else {
            (count, end, perMiniblock, miniblocks) = (0, range.lowerBound, 0, 0)
            return
        }
        let blockValues = try reader.unsigned(), miniblockCount = try reader.unsigned(), total = try reader.unsigned()
        let first = try reader.signed()
        guard blockValues > 0, blockValues <= Self.maximumBlockValues, blockValues % 128 == 0, miniblockCount > 0,
              blockValues % miniblockCount == 0, (blockValues / miniblockCount) % 32 == 0, total <= UInt64(max(0, limit)) else {
            throw ParquetFormatError("a malformed DELTA_BINARY_PACKED header")
        }
        (count, perMiniblock, miniblocks) = (Int(total), Int(blockValues / miniblockCount), Int(miniblockCount))
        nextMiniblock = miniblocks
        if count > 0 { (pending, produced, previous) = ([first], 1, first) }
        end = try Self.walk(bytes, from: reader, values: max(0, count - 1), perMiniblock: perMiniblock, miniblocks: miniblocks)
    }

    /// The next `wanted` values; fewer left than that is malformed.
    mutating func next(_ wanted: Int) throws(ParquetFormatError) -> [Int64] {
        var values: [Int64] = []
        values.reserveCapacity(wanted)
        while values.count < wanted {
            if pendingTaken < pending.count {
                let taken = min(pending.count - pendingTaken, wanted - values.count)
                values.append(contentsOf: pending[pendingTaken..<pendingTaken + taken])
                pendingTaken += taken
                continue
            }
            guard produced < count else { throw ParquetFormatError("values beyond their page") }
            try readMiniblock()
        }
        return values
    }

    /// Decodes the next miniblock's values into `pending`, reading its block's header first when it starts one.
    private mutating func readMiniblock() throws(ParquetFormatError) {
        if nextMiniblock == miniblocks {
            minimum = try reader.signed()
            guard miniblocks <= reader.end - reader.position else { throw ParquetFormatError("deltas beyond their page") }
            (widthsStart, nextMiniblock) = (reader.position, 0)
            reader.position += miniblocks
        }
        let width = Int(bytes[widthsStart + nextMiniblock])
        nextMiniblock += 1
        let length = try Self.miniblockLength(width: width, perMiniblock: perMiniblock, room: reader.end - reader.position)
        let values = min(perMiniblock, count - produced)
        pending.removeAll(keepingCapacity: true)
        for index in 0..<values {
            previous = previous &+ minimum &+ Int64(bitPattern: Self.unpack(bytes, from: reader.position, index: index, width: width))
            pending.append(previous)
        }
        (pendingTaken, produced) = (0, produced + values)
        reader.position += length
    }

    /// The bytes of a miniblock of `width` bits a value, checked to fit in `room`.
    private static func miniblockLength(width: Int, perMiniblock: Int, room: Int) throws(ParquetFormatError) -> Int {
        guard width <= 64 else { throw ParquetFormatError("a delta bit width of \(width)") }
        let length = perMiniblock * width / 8
        guard length <= room else { throw ParquetFormatError("deltas beyond their page") }
        return length
    }

    /// The position after the blocks that hold `values` deltas from `reader`'s position, read without decoding them.
    private static func walk(_ bytes: [UInt8], from start: VarintReader, values: Int, perMiniblock: Int,
                             miniblocks: Int) throws(ParquetFormatError) -> Int {
        var (reader, left) = (start, values)
        while left > 0 {
            _ = try reader.signed()
            guard miniblocks <= reader.end - reader.position else { throw ParquetFormatError("deltas beyond their page") }
            let widths = reader.position
            reader.position += miniblocks
            for miniblock in 0..<miniblocks where left > 0 {
                reader.position += try miniblockLength(width: Int(bytes[widths + miniblock]), perMiniblock: perMiniblock,
                                                       room: reader.end - reader.position)
                left -= min(perMiniblock, left)
            }
        }
        return reader.position
    }

    /// The `index`th value of `width` bits packed lowest bit first from `start`.
    private static func unpack(_ bytes: [UInt8], from start: Int, index: Int, width: Int) -> UInt64 {
        var (bit, result, taken) = (index * width, UInt64(0), 0)
        while taken < width {
            let shift = bit % 8
            let take = min(8 - shift, width - taken)
            let part = UInt64(bytes[start + bit / 8]) >> UInt64(shift) & (UInt64(1) << UInt64(take) - 1)
            result |= part << UInt64(taken)
            (taken, bit) = (taken + take, bit + take)
        }
        return result
    }
}

/// ULEB128 varints, unsigned or zigzag-signed, read from a range of bytes.
struct VarintReader {
    let bytes: [UInt8]
    var position: Int
    let end: Int

    /// The next unsigned varint (at most 10 bytes).
    mutating func unsigned() throws(ParquetFormatError) -> UInt64 {
        var (value, shift) = (UInt64(0), UInt64(0))
        while position < end, shift < 64 {
            let byte = bytes[position]
            position += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
        throw ParquetFormatError("a varint beyond its page")
    }

    /// The next zigzag-coded signed varint.
    mutating func signed() throws(ParquetFormatError) -> Int64 {
        let value = try unsigned()
        return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }
}

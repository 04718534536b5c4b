/// 64-bit hashes in the order they were added, each with a payload, searched for the first one within a Hamming
/// distance of a query (multi-index hashing). The hashes are cut into four blocks of 16 bits; by the pigeonhole
/// principle, a hash within `distance` bits of the query differs from it in at most `distance / 4` bits of some
/// block, so only the hashes filed under those block values are compared: at distance 6, the 17 values within one bit
/// of each block, about 68 / 65,536 of the hashes instead of all of them. Past distance `largestIndexed` (11), where
/// that many values would cost more than they save, every hash is compared.
struct HammingIndex<Payload> {
    /// The distance searched within, 0 to 64.
    let distance: Int
    /// The largest distance searched through the blocks: 11 (at most two bits of a block differ).
    static var largestIndexed: Int { 11 }
    private var hashes: [UInt64] = []
    private var payloads: [Payload] = []
    /// The masks of 16 bits with at most `distance / 4` bits set; empty when every hash is compared.
    private let nearby: [UInt16]
    /// Per block, the positions (in `hashes`) of the hashes with each of its 65,536 values, in the order added; made
    /// with the first hash.
    private var buckets: [[[Int32]]] = []

    init(distance: Int) {
        self.distance = min(64, max(0, distance))
        let radius = self.distance / 4
        nearby = self.distance > Self.largestIndexed ? [] : (0...UInt16.max).filter { $0.nonzeroBitCount <= radius }
    }

    /// Hashes added.
    var count: Int { hashes.count }

    /// The payload of the first hash added within `distance` bits of `hash`, or nil.
    func first(near hash: UInt64) -> Payload? {
        guard !nearby.isEmpty else {
            return hashes.firstIndex { ($0 ^ hash).nonzeroBitCount <= distance }.map { payloads[$0] }
        }
        guard !buckets.isEmpty else { return nil }
        var earliest: Int?
        for block in 0..<4 {
            let value = Self.block(block, of: hash)
            for mask in nearby {
                // Positions are in the order added: the first within the distance is this bucket's earliest.
                for position in buckets[block][Int(value ^ mask)] {
                    let index = Int(position)
                    if let earliest, index >= earliest { break }
                    if (hashes[index] ^ hash).nonzeroBitCount <= distance {
                        earliest = index
                        break
                    }
                }
            }
        }
        return earliest.map { payloads[$0] }
    }

    /// Adds `hash` with its payload, after every hash added before.
    mutating func add(_ hash: UInt64, _ payload: Payload) {
        let position = Int32(truncatingIfNeeded: hashes.count)
        hashes.append(hash)
        payloads.append(payload)
        guard !nearby.isEmpty else { return }
        if buckets.isEmpty { buckets = Array(repeating: Array(repeating: [], count: 1 << 16), count: 4) }
        for block in 0..<4 {
            buckets[block][Int(Self.block(block, of: hash))].append(position)
        }
    }

    /// Bits `16 * block` to `16 * block + 15` of `hash`.
    private static func block(_ block: Int, of hash: UInt64) -> UInt16 {
        UInt16(truncatingIfNeeded: hash >> UInt64(16 * block))
    }
}

extension HammingIndex: Sendable where Payload: Sendable {}

import Testing
@testable import ImgCore

/// `--facts`' near-duplicates are found through a `HammingIndex`: it must answer what comparing with every earlier
/// hash answered (the first one within the distance, in the order added), at every distance.
@Suite("Near-duplicate index")
struct HammingIndexTests {
    /// `base` with `bits` random bits flipped.
    static func flipped(_ base: UInt64, bits: Int, using random: inout SplitMix) -> UInt64 {
        var value = base
        for _ in 0..<bits { value ^= UInt64(1) << UInt64(random.next() % 64) }
        return value
    }

    @Test(arguments: [0, 1, 3, 6, 10, 14, 15, 20, 64])
    func theIndexFindsWhatComparingWithEveryHashFinds(distance: Int) {
        var random = SplitMix(state: UInt64(distance) &+ 1)
        var index = HammingIndex<Int>(distance: distance)
        var all: [UInt64] = []
        let families = (0..<40).map { _ in random.next() }
        for step in 0..<3_000 {
            // Mostly near one of a few images (as resized copies are), sometimes anything.
            let hash = step % 5 == 0 ? random.next()
                : Self.flipped(families[Int(random.next() % 40)], bits: Int(random.next() % 12), using: &random)
            let expected = all.firstIndex { ($0 ^ hash).nonzeroBitCount <= distance }
            #expect(index.first(near: hash) == expected, "hash \(hash) at step \(step)")
            if expected == nil || step % 3 == 0 {
                index.add(hash, all.count)
                all.append(hash)
            }
        }
        #expect(index.count == all.count && all.count > 40)
    }

    @Test func aHashIsFoundThroughTheOneBlockNearEnough() {
        // Six bits apart, two in each of the first two blocks of 16 bits, one in each of the others: only the
        // third and fourth blocks are within one bit. Seven bits apart is too far.
        var index = HammingIndex<String>(distance: 6)
        index.add(0, "zero")
        let six: UInt64 = 1 | 1 << 10 | 1 << 20 | 1 << 30 | 1 << 40 | 1 << 63
        #expect(index.first(near: six) == "zero" && index.first(near: six | 1 << 50) == nil)
        #expect(index.first(near: .max) == nil)
    }
}

/// The lowest quality whose encoding is within a Butteraugli distance of the image it encodes, found by a binary
/// search over `qualities` (7, 10, ... 100: 32 steps of 3) in at most 6 encodes: 5 halvings of the 31 steps below
/// 100, and an encode at 100 only when none of them was within the distance. Whatever the metric does between
/// steps, the result was measured within the distance and the step below it was measured outside it, unless the
/// result is the lowest step or 100 (then its distance may exceed the target; the outcome says which it is).
public enum QualitySearch {
    /// The qualities searched, lowest first: 7 to 100 in steps of 3.
    public static let qualities = Array(stride(from: 7, through: 100, by: 3))
    /// The most encodes one search makes: 6.
    public static let maximumEncodes = 6

    /// What a search chose: the quality, its measured distance, its encoding and how many encodes it took.
    public struct Outcome<Encoding> {
        public let quality: Int
        public let distance: Double
        public let encoding: Encoding
        public let encodes: Int
    }

    /// Searches with `encode`, which encodes at a quality and returns the result with its distance.
    public static func lowest<Encoding>(
        within target: Double, encode: (Int) throws(ImgError) -> (Encoding, distance: Double)
    ) throws(ImgError) -> Outcome<Encoding> {
        var measured: [Int: (Encoding, distance: Double)] = [:]
        var low = 0, high = qualities.count - 1 // high: the lowest index known (or, for the top, assumed) within
        while low < high {
            let middle = (low + high) / 2
            let result = try encode(qualities[middle])
            measured[middle] = result
            if result.distance <= target { high = middle } else { low = middle + 1 }
        }
        let encodes = measured.count
        let chosen = if let known = measured[high] { known } else { try encode(qualities[high]) }
        return Outcome(quality: qualities[high], distance: chosen.distance, encoding: chosen.0,
                       encodes: encodes + (measured[high] == nil ? 1 : 0))
    }
}

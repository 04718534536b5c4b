/// The lowest quality whose encoding is within a Butteraugli distance of the image it encodes, found over `qualities`
/// (7, 10, ... 100: 32 steps of 3) in at most 6 encodes. The search starts one step below a predicted quality and
/// goes where the line through its last two results crosses the target (one step from the first result towards the
/// other side); once the boundary lies between a result within and one outside, it interpolates between those two.
/// Every probe is
/// kept where a plain bisection could still finish in the encodes left, so the bound holds whatever the metric does:
/// 6 encodes is a bisection's 5 halvings of the 31 steps below 100 and one at 100 when none was within. The result
/// was measured within the distance and the step below it was measured outside, unless the result is the lowest step
/// or 100 (then its distance may exceed the target; the outcome says which it is).
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

    /// Searches with `encode`, which encodes at a quality and returns the result with its distance, starting at
    /// `predicted` (a quality; by default the middle).
    public static func lowest<Encoding>(
        within target: Double, startingAt predicted: Int? = nil,
        encode: (Int) throws(ImgError) -> (Encoding, distance: Double)
    ) throws(ImgError) -> Outcome<Encoding> {
        let outcome = try lowest(within: target, startingAt: predicted, abandon: { _ in false }, encode: encode)
        guard let outcome else { throw .internalFailure("quality search: abandoned without a reason") }
        return outcome
    }

    /// `lowest(within:startingAt:encode:)` that `abandon` may end: it is asked about each result outside the
    /// distance (the answer lies at a higher quality), and true ends the search with nil.
    public static func lowest<Encoding>(
        within target: Double, startingAt predicted: Int?, abandon: (Encoding) -> Bool,
        encode: (Int) throws(ImgError) -> (Encoding, distance: Double)
    ) throws(ImgError) -> Outcome<Encoding>? {
        var state = State<Encoding>(target: target)
        // One step below the prediction, where the result is likely outside: that leaves few steps above it, so
        // the next probe may be the prediction itself; a result within would leave many below, and the bound
        // would call for a bisection.
        var guess = predicted.map { index(nearest: $0) - 1 } ?? (qualities.count - 1) / 2
        while state.low < state.high {
            let probe = state.feasible(nearest: guess)
            let result = try encode(qualities[probe])
            state.record(probe, distance: result.distance)
            state.results[probe] = result
            if result.distance > target, abandon(result.0) { return nil }
            guess = state.nextGuess(after: probe)
        }
        let top = state.high
        let chosen = if let known = state.results[top] { known } else { try encode(qualities[top]) }
        let encodes = state.results.count + (state.results[top] == nil ? 1 : 0)
        return Outcome(quality: qualities[top], distance: chosen.distance, encoding: chosen.0, encodes: encodes)
    }

    /// The index of the step nearest `quality`.
    static func index(nearest quality: Int) -> Int {
        qualities.indices.min { abs(qualities[$0] - quality) < abs(qualities[$1] - quality) } ?? 0
    }

    /// What is known: every step below `low` outside (measured or below one measured), `high` within (measured, or
    /// the top step, assumed until measured).
    private struct State<Encoding> {
        let target: Double
        var low = 0, high = qualities.count - 1
        var results: [Int: (Encoding, distance: Double)] = [:]
        /// Which side the last result fell on, and the probe before it.
        var lastWithin = false, previousProbe: Int?, lastProbe: Int?

        init(target: Double) { self.target = target }

        var topAssumed: Bool { high == qualities.count - 1 && results[high] == nil }
        var encodesLeft: Int { maximumEncodes - results.count }

        mutating func record(_ probe: Int, distance: Double) {
            let within = distance <= target
            (lastWithin, previousProbe, lastProbe) = (within, lastProbe, probe)
            if within { high = probe } else { low = probe + 1 }
        }

        /// The probe nearest `guess` after which a bisection still ends within the encodes left, whichever side the
        /// result falls on (a bisection of n steps takes ceil(log2 n) encodes, one more for an assumed top).
        func feasible(nearest guess: Int) -> Int {
            let after = encodesLeft - 1
            let highest = min(high - 1, low + (1 << max(after, 0)) - 1)
            let lowest = max(low, high - (1 << max(after - (topAssumed ? 1 : 0), 0)))
            return min(max(guess, lowest), max(highest, lowest))
        }

        /// Between a result outside and one within: where the distances, joined by a line, cross the target. Else
        /// where the line through the last two results crosses it (when the distance falls as the quality rises),
        /// else one step from `probe` towards the other side.
        func nextGuess(after probe: Int) -> Int {
            if low > 0, let below = results[low - 1], let above = results[high] {
                return crossing(Double(low - 1), below.distance, Double(high), above.distance) ?? low
            }
            if let previous = previousProbe, let earlier = results[previous], let last = results[probe],
               let guess = crossing(Double(previous), earlier.distance, Double(probe), last.distance) {
                return guess
            }
            return lastWithin ? probe - 1 : probe + 1
        }

        /// The step at or above where the line through (x1, d1) and (x2, d2) reaches the target, within the steps
        /// still open; nil when the distance does not fall as the quality rises.
        private func crossing(_ x1: Double, _ d1: Double, _ x2: Double, _ d2: Double) -> Int? {
            guard x1 != x2, (d2 - d1) / (x2 - x1) < 0 else { return nil }
            let x = x1 + (target - d1) * (x2 - x1) / (d2 - d1)
            guard x.isFinite else { return nil }
            return min(max(Int(x.rounded(.up)), low), high - 1)
        }
    }
}

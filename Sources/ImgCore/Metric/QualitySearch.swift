import Foundation

/// The lowest quality whose encoding is within a Butteraugli distance of the image it encodes, found over `qualities`
/// (7, 10, ... 100: 32 steps of 3) in at most 6 encodes. The search starts one step below a predicted quality; from
/// that first result it goes where a distance falling by a given fraction a step would cross the target (the first step
/// past the crossing, on the other side), then where the line through its last two results crosses it; once the
/// boundary lies between a result within and one outside, it interpolates between those two.
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
    /// How much the distance falls, relatively, per quality step near the target, unless told: 3.5 % (the median on
    /// `make bench`'s photos at 200 px is 4 % for JPEG at distance 1.95; 3.5 % took fewest encodes there, 3.75 on
    /// average where one step at a time from the first result took 4.5). Only the second probe depends on it.
    public static let typicalFall = 0.035

    /// What a search chose: the quality, its measured distance, its encoding and how many encodes it took.
    public struct Outcome<Encoding> {
        public let quality: Int
        public let distance: Double
        public let encoding: Encoding
        public let encodes: Int
    }

    /// Searches with `encode`, which encodes at a quality and returns the result with its distance, starting at
    /// `predicted` (a quality; by default the middle) and expecting the distance to fall by `falling` a step
    /// (default `typicalFall`).
    public static func lowest<Encoding>(
        within target: Double, startingAt predicted: Int? = nil, falling: Double = typicalFall,
        encode: (Int) throws(ImgError) -> (Encoding, distance: Double)
    ) throws(ImgError) -> Outcome<Encoding> {
        let outcome = try lowest(within: target, startingAt: predicted, falling: falling, abandon: { _ in false },
                                 encode: encode)
        guard let outcome else { throw .internalFailure("quality search: abandoned without a reason") }
        return outcome
    }

    /// `lowest(within:startingAt:falling:encode:)` that `abandon` may end: it is asked about each result outside the
    /// distance (the answer lies at a higher quality), and true ends the search with nil.
    public static func lowest<Encoding>(
        within target: Double, startingAt predicted: Int?, falling: Double = typicalFall, abandon: (Encoding) -> Bool,
        encode: (Int) throws(ImgError) -> (Encoding, distance: Double)
    ) throws(ImgError) -> Outcome<Encoding>? {
        var state = State<Encoding>(target: target, fall: falling)
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
        /// The relative fall of the distance per step that the second probe expects.
        let fall: Double
        var low = 0, high = qualities.count - 1
        var results: [Int: (Encoding, distance: Double)] = [:]
        /// Which side the last result fell on, and the probe before it.
        var lastWithin = false, previousProbe: Int?, lastProbe: Int?

        init(target: Double, fall: Double) { (self.target, self.fall) = (target, fall) }

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
        /// where the line through the last two results crosses it (when the distance falls as the quality rises);
        /// after the first result, where a distance falling `fall` a step crosses it; else one step from `probe`
        /// towards the other side.
        func nextGuess(after probe: Int) -> Int {
            if low > 0, let below = results[low - 1], let above = results[high] {
                return crossing(Double(low - 1), below.distance, Double(high), above.distance) ?? low
            }
            if let previous = previousProbe, let earlier = results[previous], let last = results[probe],
               let guess = crossing(Double(previous), earlier.distance, Double(probe), last.distance) {
                return guess
            }
            if previousProbe == nil, let only = results[probe], only.distance > 0 {
                return modelled(from: probe, only.distance)
            }
            return lastWithin ? probe - 1 : probe + 1
        }

        /// The step where a distance falling `fall` a step from `distance` at `probe` crosses the target,
        /// rounded away from `probe` (onto the far side of the crossing), within the steps still open.
        private func modelled(from probe: Int, _ distance: Double) -> Int {
            let x = Double(probe) + log(distance / target) / fall
            guard x.isFinite else { return lastWithin ? probe - 1 : probe + 1 }
            let step = Int(distance > target ? x.rounded(.up) : x.rounded(.down))
            return min(max(step, low), high - 1)
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

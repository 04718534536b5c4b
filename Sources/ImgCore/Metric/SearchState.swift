import Foundation

/// What a `QualitySearch` knows, in step indices: every step below `low` outside the distance (measured, or below one
/// measured), `high` within (measured, or the top step, assumed until measured) or bounding the answer unmeasured
/// (`bound`), and the distances measured.
struct SearchState {
    let target: Double
    /// The relative fall of the distance per step that an estimate from one result expects.
    let fall: Double
    var low = 0
    var high: Int
    var distances: [Int: Double] = [:]
    /// Steps encoded but left unmeasured (`bound`): never encoded again, and not an answer that needs an encode.
    var bounded: Set<Int> = []

    init(target: Double, fall: Double, steps: Int) {
        (self.target, self.fall, high) = (target, fall, steps - 1)
    }

    /// Whether the top step is only assumed within: neither measured nor bounded, so an answer there needs an encode.
    var topAssumed: Bool { distances[high] == nil && !bounded.contains(high) }

    mutating func record(_ probe: Int, distance: Double) {
        distances[probe] = distance
        if distance <= target { high = probe } else { low = probe + 1 }
    }

    /// A probe left unmeasured that bounds the answer from above, as one within would (its distance stays unknown,
    /// so no estimate uses it).
    mutating func bound(_ probe: Int) {
        bounded.insert(probe)
        high = min(high, probe)
    }

    /// The probe nearest `guess` after which the steps still open can be settled in the encodes left, whichever side
    /// its result falls on (`QualitySearch.worstCase`): within, the steps from `low` to it; outside, those above it.
    func feasible(nearest guess: Int, encodesLeft: Int) -> Int {
        let after = max(encodesLeft - 1, 0)
        let highest = min(high - 1, low + (1 << after) - 1)
        let lowest = max(low, high - (1 << after) + (topAssumed ? 1 : 0))
        return min(max(guess, lowest), max(highest, lowest))
    }

    /// How near, in steps, the crossing must lie to the step below the likeliest answer for that step to be probed
    /// first: 0.35. Otherwise the answer is: a result within measures the top of the open steps, which a halving of
    /// the rest then needs one encode fewer for (2.60 encodes on average against 2.63 at 0.5, over the distance
    /// curves of 240 of `make bench`'s photos).
    static let lowerStepNearness = 0.35

    /// The next probe wanted: the step at or above the estimated crossing (the likeliest answer) or the one below it,
    /// whichever is unmeasured; when both are, the answer unless the crossing is within `lowerStepNearness` of the
    /// step below.
    func nextGuess() -> Int {
        let crossing = estimatedCrossing()
        let answer = min(max(Int(crossing.rounded(.up)), low), high)
        let unmeasured = [answer - 1, answer].filter { $0 >= low && $0 < high && distances[$0] == nil }
        guard let first = unmeasured.first else { return answer < high ? answer : high - 1 }
        guard unmeasured.count == 2 else { return first }
        return crossing - Double(answer - 1) < Self.lowerStepNearness ? answer - 1 : answer
    }

    /// Where, in steps, the log-distance crosses the target's: between the last step outside and the first within
    /// when both are measured; else along the line through the two results nearest the target (its slope kept within
    /// a third and three times `fall`); else from the nearest result, falling `fall` a step.
    func estimatedCrossing() -> Double {
        let goal = log(target)
        if low > 0, let below = distances[low - 1], let above = distances[high] {
            let (from, to) = (Self.logarithm(below), Self.logarithm(above))
            guard from != to else { return Double(low - 1 + high) / 2 }
            return Double(low - 1) + (goal - from) * Double(high - low + 1) / (to - from)
        }
        let nearest = distances.map { (step: $0.key, log: Self.logarithm($0.value)) }
            .sorted { (abs($0.log - goal), $0.step) < (abs($1.log - goal), $1.step) }
        guard let first = nearest.first else { return Double(low + high) / 2 }
        if nearest.count > 1 {
            let second = nearest[1]
            let slope = (second.log - first.log) / Double(second.step - first.step)
            if slope < 0 {
                let kept = min(max(slope, -3 * fall), -fall / 3)
                return Double(first.step) + (goal - first.log) / kept
            }
        }
        return Double(first.step) + (first.log - goal) / fall
    }

    /// The logarithm of a distance, a distance of 0 (identical pixels) taken as 0.0001.
    static func logarithm(_ distance: Double) -> Double {
        log(max(distance, 0.0001))
    }
}

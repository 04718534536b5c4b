import Foundation

/// The lowest quality whose encoding is within a Butteraugli distance of the image it encodes, found over `qualities`
/// (10, 16, ... 100: 16 steps of 6) in at most 6 encodes. The search starts one step below a predicted quality; after
/// each result it estimates where the distance crosses the target (from one result, by a distance falling a given
/// fraction a step; from two or more, along the line through the log-distances of the results nearest the target, or
/// between the result outside and the one within that bracket it) and measures the step on either side of that
/// crossing it has not measured yet, so that a good estimate ends the search in 2 or 3 encodes.
///
/// Every probe is kept where the fewest encodes that can settle the steps still open, whatever the results, fit in
/// the encodes left (`worstCase`), so the bound holds whatever the metric does. 16 steps settle in 5 encodes at worst
/// (4 halvings and one at 100 when none was within), which leaves the bound one encode to spend where the estimate
/// points; 32 steps of 3 needed all 6 for the bound, so the search had to probe where a halving would, and took 3.8
/// encodes on average against 2.7 on `make bench`'s photos at one mean distance, for the same bytes
/// (docs/BENCHMARKS.md, workload 9). The result was measured within the distance and the step below it was measured
/// outside, unless the result is the lowest step or 100 (then its distance may exceed the target; the outcome says
/// which it is).
public enum QualitySearch {
    /// The qualities searched, lowest first: 10 to 100 in steps of 6.
    public static let qualities = Array(stride(from: 10, through: 100, by: 6))
    /// The most encodes one search makes: 6.
    public static let maximumEncodes = 6
    /// How much the distance falls, relatively, per quality step near the target, unless told: 7.7 % (the median on
    /// `make bench`'s photos at 200 px for JPEG near distance 2).
    public static let typicalFall = 0.077

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
        let outcome = try lowest(within: target, startingAt: predicted, falling: falling, worthMeasuring: { _ in true },
                                 encode: encode, measure: { $0.distance })
        guard let outcome else { throw .internalFailure("quality search: ended without a result worth measuring") }
        return Outcome(quality: outcome.quality, distance: outcome.distance, encoding: outcome.encoding.0,
                       encodes: outcome.encodes)
    }

    /// `lowest(within:startingAt:falling:encode:)` for a result that must also be worth having: each encoding is
    /// measured only when `worthMeasuring` says it could still be wanted (`--format auto`: smaller than the best so
    /// far). One that is not bounds the search from above unmeasured, as a result within would: only a lower quality
    /// could be wanted. The search ends with nil when it would end on such a result, or when the top step, encoded at
    /// the end, is not worth measuring. So a candidate that cannot win costs encodes, not Butteraugli calls, and one
    /// that can ends where the full search would wherever distance and size grow with quality.
    public static func lowest<Encoding>(
        within target: Double, startingAt predicted: Int?, falling: Double = typicalFall,
        worthMeasuring: (Encoding) -> Bool, encode: (Int) throws(ImgError) -> Encoding,
        measure: (Encoding) throws(ImgError) -> Double
    ) throws(ImgError) -> Outcome<Encoding>? {
        var state = SearchState(target: target, fall: falling, steps: qualities.count)
        // One step below the prediction: the prediction is the median answer, and the step below it and the
        // prediction are the two likeliest answers, either of which a first probe can settle in 2 encodes.
        var guess = predicted.map { index(nearest: $0) - 1 } ?? (qualities.count - 1) / 2
        var results: [Int: Encoding] = [:]
        while state.low < state.high {
            let probe = state.feasible(nearest: guess, encodesLeft: maximumEncodes - results.count)
            let encoding = try encode(qualities[probe])
            results[probe] = encoding
            if worthMeasuring(encoding) {
                state.record(probe, distance: try measure(encoding))
            } else {
                state.bound(probe)
            }
            guess = state.nextGuess()
        }
        let top = state.high
        if let known = results[top] {
            guard let distance = state.distances[top] else { return nil }
            return Outcome(quality: qualities[top], distance: distance, encoding: known, encodes: results.count)
        }
        let chosen = try encode(qualities[top])
        guard worthMeasuring(chosen) else { return nil }
        return Outcome(quality: qualities[top], distance: try measure(chosen), encoding: chosen,
                       encodes: results.count + 1)
    }

    /// The index of the step nearest `quality`.
    static func index(nearest quality: Int) -> Int {
        qualities.indices.min { abs(qualities[$0] - quality) < abs(qualities[$1] - quality) } ?? 0
    }

    /// The fewest encodes that settle `open` steps below a top step whatever the results: a halving of the
    /// `open + 1` answers left (the top among them), and one more when the top is only assumed (not yet measured),
    /// since an answer there must still be encoded.
    static func worstCase(open: Int, topAssumed: Bool) -> Int {
        let answers = open + (topAssumed ? 2 : 1)
        var encodes = 0
        while 1 << encodes < answers { encodes += 1 }
        return encodes
    }
}

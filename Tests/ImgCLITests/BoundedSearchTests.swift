import Foundation
import Testing
@testable import ImgCore

/// The search `--format auto` gives each candidate after the first: a result no smaller than the best so far is not
/// measured and bounds the search from above (`QualitySearch.lowest(within:startingAt:falling:worthMeasuring:...)`).
@Suite("Quality search bounded by size")
struct BoundedSearchTests {
    static let qualities = QualitySearch.qualities

    /// Distances falling `QualitySearch.typicalFall` a step, crossing 1.5 just below step `boundary`.
    static func distance(_ quality: Int, boundary: Int) -> Double {
        1.5 * exp(-QualitySearch.typicalFall * (Double(QualitySearch.index(nearest: quality) - boundary) + 0.5))
    }

    /// Where distance and size both grow with quality: the answer of the full search when it is smaller than the
    /// best, nil when it is not; never a result not worth measuring measured; fewer measurements in all.
    @Test(arguments: 0..<16)
    func aCandidateThatCanWinEndsWhereTheFullSearchDoes(boundary: Int) throws {
        let size = { (quality: Int) in 1_000 + 10 * quality }
        var (fullEncodes, boundedMeasures) = (0, 0)
        for best in [1_000, 1_300, 1_600, 1_800, 2_001] {
            for start in [nil] + Self.qualities {
                let full = try QualitySearch.lowest(within: 1.5, startingAt: start) { (quality: Int) throws(ImgError) in
                    (quality, Self.distance(quality, boundary: boundary))
                }
                fullEncodes += full.encodes
                let bounded = try QualitySearch.lowest(
                    within: 1.5, startingAt: start, worthMeasuring: { size($0) < best },
                    encode: { (quality: Int) throws(ImgError) in quality },
                    measure: { (quality: Int) throws(ImgError) in
                        #expect(size(quality) < best, "q=\(quality) measured though no smaller than \(best)")
                        boundedMeasures += 1
                        return Self.distance(quality, boundary: boundary)
                    })
                if size(full.quality) < best {
                    #expect(bounded?.quality == full.quality && bounded?.distance == full.distance, "best \(best)")
                } else {
                    #expect(bounded == nil, "best \(best), start \(String(describing: start))")
                }
                #expect((bounded?.encodes ?? 0) <= QualitySearch.maximumEncodes)
            }
        }
        #expect(boundedMeasures < fullEncodes)
    }

    /// On arbitrary distances and sizes: at most 6 encodes, none twice, nothing measured that was not worth it, and a
    /// result within its distance (below 100) with the step below it measured outside.
    @Test(arguments: 0..<20)
    func anyCurvesKeepTheSearchsPromises(seed: Int) throws {
        var generator = SplitMix(state: UInt64(seed) &+ 1_000)
        let distances = Dictionary(uniqueKeysWithValues: Self.qualities.map {
            ($0, Double(generator.next() % 400) / 100)
        })
        let sizes = Dictionary(uniqueKeysWithValues: Self.qualities.map { ($0, Int(generator.next() % 1_000)) })
        for start in [nil] + Self.qualities {
            var (encoded, measured) = (Set<Int>(), [Int: Double]())
            let outcome = try QualitySearch.lowest(
                within: 1.5, startingAt: start, worthMeasuring: { sizes[$0]! < 500 },
                encode: { (quality: Int) throws(ImgError) in
                    #expect(encoded.insert(quality).inserted, "quality \(quality) encoded twice")
                    return quality
                },
                measure: { (quality: Int) throws(ImgError) in
                    #expect(sizes[quality]! < 500)
                    measured[quality] = distances[quality]!
                    return distances[quality]!
                })
            #expect(encoded.count <= QualitySearch.maximumEncodes)
            guard let outcome else { continue }
            #expect(outcome.encodes == encoded.count && sizes[outcome.quality]! < 500)
            if outcome.quality != 100 { #expect(outcome.distance <= 1.5) }
            let index = try #require(Self.qualities.firstIndex(of: outcome.quality))
            if index > 0 { #expect(try #require(measured[Self.qualities[index - 1]]) > 1.5) }
        }
    }
}

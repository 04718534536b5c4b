/// The dominant colour: the colour that covers the most of the picture, not the mean, so a red flower on green leaves
/// is green or red, never brown. Colours are clustered (k-means over the opaque pixels of the facts sample, a shrink
/// of fixed size), then clusters whose centres lie within `mergeDistance` of each other are taken as one colour
/// region: a sky's gradient, split by k-means into several near-equal clusters, is one region, so which of its parts
/// happens to be largest at one size never decides the answer, and one picture at any size gets the same colour.
public enum DominantColor {
    /// Clusters tried: 8, enough to split a picture's distinct colours apart before near ones are merged.
    public static let clusterCount = 8
    /// Centres closer than this (Euclidean, 8-bit sRGB) belong to one colour region: 40, about twice the step
    /// between the clusters k-means makes of a smooth gradient, well under the distance of distinct colours.
    public static let mergeDistance = 40.0

    /// `#rrggbb` of the largest colour region: the pixel-weighted mean of its clusters' centres. Pixels under half
    /// opacity are left out (all of them for a fully transparent image, which gives `#000000`). Deterministic: the
    /// centres start from the most populated cells of a coarse colour histogram.
    public static func compute(_ pixels: FactPixels) -> String {
        var points: [SIMD3<Double>] = []
        points.reserveCapacity(pixels.width * pixels.height)
        for index in stride(from: 0, to: pixels.rgba.count, by: 4) where pixels.rgba[index + 3] >= 128 {
            points.append(SIMD3(Double(pixels.rgba[index]), Double(pixels.rgba[index + 1]), Double(pixels.rgba[index + 2])))
        }
        guard !points.isEmpty else { return hex(SIMD3(0, 0, 0)) }
        let (centres, counts) = clusters(points)
        let regions = merged(centres, counts)
        // Ties go to the region holding the earlier centre, i.e. the more populated histogram cell.
        let largest = regions.indices.max {
            regions[$0].count < regions[$1].count || (regions[$0].count == regions[$1].count && $0 > $1)
        } ?? 0
        return hex(regions[largest].colour)
    }

    /// K-means from the histogram's seeds, to convergence (at most 40 rounds): the centres and their pixel counts.
    private static func clusters(_ points: [SIMD3<Double>]) -> (centres: [SIMD3<Double>], counts: [Int]) {
        var centres = initialCentres(points)
        var counts = [Int](repeating: 0, count: centres.count)
        for _ in 0..<40 {
            var sums = [SIMD3<Double>](repeating: .zero, count: centres.count)
            counts = [Int](repeating: 0, count: centres.count)
            for point in points {
                let nearest = nearestCentre(point, centres)
                sums[nearest] += point
                counts[nearest] += 1
            }
            var moved = false
            for index in centres.indices where counts[index] > 0 {
                let centre = sums[index] / Double(counts[index])
                if centre != centres[index] { moved = true }
                centres[index] = centre
            }
            if !moved { break }
        }
        return (centres, counts)
    }

    /// The colour regions: clusters joined when any centre of one lies within `mergeDistance` of one of the other's
    /// (single linkage), in the order of their first cluster; each with its pixel count and weighted mean colour.
    private static func merged(_ centres: [SIMD3<Double>], _ counts: [Int]) -> [(count: Int, colour: SIMD3<Double>)] {
        var region = Array(centres.indices)
        func root(_ index: Int) -> Int { region[index] == index ? index : root(region[index]) }
        for a in centres.indices where counts[a] > 0 {
            for b in centres.indices where b > a && counts[b] > 0 {
                let d = centres[a] - centres[b]
                if (d * d).sum().squareRoot() < mergeDistance { region[max(root(a), root(b))] = min(root(a), root(b)) }
            }
        }
        var totals: [Int: (count: Int, sum: SIMD3<Double>)] = [:]
        for index in centres.indices where counts[index] > 0 {
            let old = totals[root(index)] ?? (0, .zero)
            totals[root(index)] = (old.count + counts[index], old.sum + centres[index] * Double(counts[index]))
        }
        return totals.sorted { $0.key < $1.key }.map { ($0.value.count, $0.value.sum / Double($0.value.count)) }
    }

    /// The centres of the most populated cells of a 4-bit-per-channel histogram, at most `clusterCount`.
    private static func initialCentres(_ points: [SIMD3<Double>]) -> [SIMD3<Double>] {
        var cells: [Int: (count: Int, sum: SIMD3<Double>)] = [:]
        for point in points {
            let cell = (Int(point.x) >> 4) << 8 | (Int(point.y) >> 4) << 4 | Int(point.z) >> 4
            let old = cells[cell] ?? (0, .zero)
            cells[cell] = (old.count + 1, old.sum + point)
        }
        let ranked = cells.sorted { $0.value.count != $1.value.count ? $0.value.count > $1.value.count : $0.key < $1.key }
        return ranked.prefix(clusterCount).map { $0.value.sum / Double($0.value.count) }
    }

    private static func nearestCentre(_ point: SIMD3<Double>, _ centres: [SIMD3<Double>]) -> Int {
        var best = 0, bestDistance = Double.infinity
        for (index, centre) in centres.enumerated() {
            let d = point - centre
            let distance = (d * d).sum()
            if distance < bestDistance { best = index; bestDistance = distance }
        }
        return best
    }

    private static func hex(_ colour: SIMD3<Double>) -> String {
        let byte = { (value: Double) -> String in
            let digits = String(Int(max(0, min(255, value.rounded()))), radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }
        return "#" + byte(colour.x) + byte(colour.y) + byte(colour.z)
    }
}

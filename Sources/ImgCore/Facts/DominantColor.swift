/// The dominant colour: the centre of the largest colour cluster (k-means over the opaque pixels), not the mean,
/// so a red flower on green leaves is green or red, never brown.
public enum DominantColor {
    /// Clusters tried; 5, as colour-thief-like tools use for a palette.
    public static let clusterCount = 5

    /// `#rrggbb` of the largest cluster's centre; pixels under half opacity are left out (all of them for a fully
    /// transparent image, which gives `#000000`). Deterministic: the centres start from the most populated cells of a
    /// coarse colour histogram.
    public static func compute(_ pixels: FactPixels) -> String {
        var points: [SIMD3<Double>] = []
        points.reserveCapacity(pixels.width * pixels.height)
        for index in stride(from: 0, to: pixels.rgba.count, by: 4) where pixels.rgba[index + 3] >= 128 {
            points.append(SIMD3(Double(pixels.rgba[index]), Double(pixels.rgba[index + 1]), Double(pixels.rgba[index + 2])))
        }
        guard !points.isEmpty else { return hex(SIMD3(0, 0, 0)) }
        var centres = initialCentres(points)
        var counts = [Int](repeating: 0, count: centres.count)
        for _ in 0..<12 {
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
        // Ties go to the earlier centre, i.e. the more populated histogram cell.
        let largest = counts.indices.max { counts[$0] < counts[$1] || (counts[$0] == counts[$1] && $0 > $1) } ?? 0
        return hex(centres[largest])
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

import CVips
import Foundation
import Testing
@testable import ImgCore

/// `QualitySearch` against the metric: the result within its distance and the step below it not (unless at the
/// lowest step), at most 6 encodes, the same bytes every time; on synthetic distances and on real encodes.
@Suite("Quality search")
struct QualitySearchTests {
    @Test(arguments: [0.5, 1.0, 2.0, 3.5, 9.0])
    func monotoneDistancesGiveTheLowestQualityWithin(target: Double) throws {
        var encodes = 0
        let distance = { (quality: Int) in 10 - Double(quality) / 10 }
        let outcome = try QualitySearch.lowest(within: target) { (quality: Int) throws(ImgError) in
            encodes += 1
            return (quality, distance(quality))
        }
        let expected = QualitySearch.qualities.first { distance($0) <= target } ?? 100
        #expect(outcome.quality == expected)
        #expect(outcome.encoding == expected)
        #expect(outcome.encodes == encodes && encodes <= QualitySearch.maximumEncodes)
    }

    @Test(arguments: [nil, 10, 52, 85, 100])
    func noQualityWithinEndsAtTheTopWithTheStepBelowMeasured(start: Int?) throws {
        var probed: [Int] = []
        let outcome = try QualitySearch.lowest(within: 0.1, startingAt: start) { (quality: Int) throws(ImgError) in
            probed.append(quality)
            return ((), 5)
        }
        let belowTop = QualitySearch.qualities[QualitySearch.qualities.count - 2]
        #expect(outcome.quality == 100 && outcome.encodes <= 6 && probed.last == 100 && probed.contains(belowTop), "\(probed)")
    }

    /// From every start, on arbitrary distances: at most 6 encodes, none twice, the result within (below 100) and the
    /// step below it measured outside (above the lowest step).
    @Test(arguments: 0..<20)
    func anyDistancesKeepTheStepBelowOutside(seed: Int) throws {
        var generator = SplitMix(state: UInt64(seed))
        let table = Dictionary(uniqueKeysWithValues: QualitySearch.qualities.map { ($0, Double(generator.next() % 400) / 100) })
        for start in [nil] + QualitySearch.qualities {
            var seen: [Int: Double] = [:]
            let outcome = try QualitySearch.lowest(within: 1.5, startingAt: start) { (quality: Int) throws(ImgError) in
                #expect(seen[quality] == nil, "quality \(quality) encoded twice")
                seen[quality] = table[quality]!
                return ((), table[quality]!)
            }
            #expect(seen.count <= QualitySearch.maximumEncodes && outcome.encodes == seen.count, "start \(String(describing: start))")
            if outcome.quality != 100 { #expect(outcome.distance <= 1.5) }
            let index = try #require(QualitySearch.qualities.firstIndex(of: outcome.quality))
            if index > 0 { #expect(try #require(seen[QualitySearch.qualities[index - 1]]) > 1.5) }
        }
    }

    /// Monotone distances from every start: the one boundary, on a steep line and on distances falling
    /// `QualitySearch.typicalFall` a step; on the latter 2 encodes when the prediction is the answer (the search
    /// probes the step below the prediction first, just outside, then where the fall crosses the target: the prediction).
    @Test(arguments: [false, true])
    func aStartNextToTheAnswerTakesTwoEncodes(typical: Bool) throws {
        let answer = 88  // the first step within 1.5 on the line (85 and up)
        let boundary = Double(QualitySearch.index(nearest: answer))
        let distance = { (quality: Int) in
            typical ? 1.5 * exp(-QualitySearch.typicalFall * (Double(QualitySearch.index(nearest: quality)) - boundary + 0.5))
                : 10 - Double(quality) / 10
        }
        for start in [nil] + QualitySearch.qualities {
            let outcome = try QualitySearch.lowest(within: 1.5, startingAt: start) { (quality: Int) throws(ImgError) in
                ((), distance(quality))
            }
            #expect(outcome.quality == answer && outcome.encodes <= QualitySearch.maximumEncodes)
            if start == answer, typical { #expect(outcome.encodes == 2, "start \(start!)") }
        }
    }

    /// Distances falling `QualitySearch.typicalFall` a step, as photos' distances do near the target: from a start 3 to
    /// 7 steps off the answer the search takes 3 encodes (its second probe goes where the model crosses the target,
    /// not one step on; that took 5 or 6).
    @Test(arguments: [(7, 2), (7, 11), (7, 14), (4, 10), (10, 4), (12, 6), (3, 9)])
    func aStartSeveralStepsOffTakesThreeEncodes(boundary: Int, start: Int) throws {
        let distance = { (quality: Int) in
            1.5 * exp(-QualitySearch.typicalFall * (Double(QualitySearch.index(nearest: quality) - boundary) + 0.5))
        }
        let outcome = try QualitySearch.lowest(within: 1.5, startingAt: QualitySearch.qualities[start]) {
            (quality: Int) throws(ImgError) in ((), distance(quality))
        }
        #expect(outcome.quality == QualitySearch.qualities[boundary])
        #expect(outcome.encodes <= 3, "boundary \(boundary), start \(start): \(outcome.encodes) encodes")
    }

    /// The fewest encodes that settle n steps whatever the results is a halving's (one more while the top is only
    /// assumed), and the steps searched settle in one encode fewer than the bound, which the search spends where its
    /// estimate points (32 steps of 3 needed all 6).
    @Test func theStepsSettleWithinTheBoundWithOneEncodeToSpare() {
        #expect(QualitySearch.worstCase(open: 0, topAssumed: false) == 0)
        #expect(QualitySearch.worstCase(open: 0, topAssumed: true) == 1)
        #expect(QualitySearch.worstCase(open: 14, topAssumed: true) == 4)
        #expect(QualitySearch.worstCase(open: 15, topAssumed: false) == 4)
        #expect(QualitySearch.worstCase(open: 30, topAssumed: true) == 5)
        #expect(QualitySearch.worstCase(open: 31, topAssumed: true) == 6)
        let open = QualitySearch.qualities.count - 1
        #expect(QualitySearch.worstCase(open: open, topAssumed: true) == QualitySearch.maximumEncodes - 1)
    }

    /// A searched JPEG is what libvips writes with `ImageEncoder.searchedOptions` (4:4:4, optimised Huffman
    /// tables) at the chosen quality, fewer bytes than the same without optimised tables; a fixed quality keeps
    /// libvips' defaults (4:2:0 below 90), byte for byte.
    @Test func aSearchedJPEGIsFourFourFourWithOptimisedTables() throws {
        let image = try Self.processed("plane.jpg")
        let outcome = try AutoEncoder.encodeWithin(distance: 1.95, image, encoding: OutputEncoding(format: .jpeg), sourceFormat: .png)
        func libvips(_ options: String) throws -> Data {
            var buffer: UnsafeMutableRawPointer?
            var length = 0
            #expect(imgf_write_to_buffer(image.pointer, ".jpg[\(options),strip]", &buffer, &length) == 0)
            defer { g_free(buffer) }
            return Data(bytes: try #require(buffer), count: length)
        }
        let quality = outcome.quality
        let searched = try libvips("Q=\(quality),optimize_coding,subsample_mode=off")
        let unoptimised = try libvips("Q=\(quality),subsample_mode=off")
        #expect(outcome.encoding.data == searched && searched.count < unoptimised.count)
        let fixed = try ImageEncoder.encode(image, encoding: OutputEncoding(format: .jpeg, quality: 85), sourceFormat: .png)
        let defaults = try libvips("Q=85"), subsampled = try libvips("Q=85,subsample_mode=on")
        #expect(fixed.data == defaults && fixed.data == subsampled)
    }

    /// A 200 px thumbnail of a fixture photo, decoded: the processed image a search encodes.
    static func processed(_ photo: String) throws -> DecodedImage {
        let work = try TemporaryDirectory()
        let output = work.file("reference.png")
        let result = try Imgfetch.runInProcess([Paths.images + "/photos/" + photo, "--no-cache", "--resize", "200x", "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        return try ImageInspection.open(try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    @Test(arguments: [("plane.jpg", ImageFormat.jpeg), ("grass.jpg", .jpeg), ("plane.jpg", .webp), ("grass.jpg", .avif)])
    func realEncodesAreWithinAndTheStepBelowIsNot(photo: String, format: ImageFormat) throws {
        let image = try Self.processed(photo)
        let encoding = OutputEncoding(format: format)
        let target = 1.5
        let outcome = try AutoEncoder.encodeWithin(distance: target, image, encoding: encoding, sourceFormat: .png)
        let reference = try image.metricPixels()
        func measured(_ data: Data) throws -> Double {
            try ButteraugliDistance.between(reference, try ImageInspection.metricPixels(data))
        }
        #expect(outcome.encodes <= QualitySearch.maximumEncodes)
        #expect(try measured(outcome.encoding.data) == outcome.distance)
        if outcome.quality < 100 { #expect(outcome.distance <= target, "q=\(outcome.quality)") }
        if let step = QualitySearch.qualities.firstIndex(of: outcome.quality), step > 0 {
            var lower = encoding  // the step below in the searched coding, as the search's probe there was
            (lower.quality, lower.targetDistance) = (QualitySearch.qualities[step - 1], target)
            let below = try ImageEncoder.encode(image, encoding: lower, sourceFormat: .png)
            #expect(try measured(below.data) > target, "q=\(outcome.quality)")
        }
        let again = try AutoEncoder.encodeWithin(distance: target, image, encoding: encoding, sourceFormat: .png)
        #expect(again.encoding.data == outcome.encoding.data && again.quality == outcome.quality)
    }
}

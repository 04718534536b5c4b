import Foundation

/// What `--quality auto` and `--format auto` chose for a variant: the quality and the Butteraugli distance its result
/// was measured at (the format is the variant's own). Stored with the variant, so that a cache hit reports it without
/// a search.
public struct EncodingChoice: Sendable, Codable, Equatable {
    /// The quality the search ended at (`QualitySearch.qualities`).
    public var quality: Int
    /// The result's measured distance from the processed image, rounded to 3 decimals.
    public var distance: Double

    public init(quality: Int, distance: Double) {
        self.quality = quality
        self.distance = (distance * 1000).rounded() / 1000
    }

    /// The default target of `--quality auto` and `--format auto`: Butteraugli distance 2, where `--quality auto`
    /// JPEG's mean SSIMULACRA2 score over real photographs' 200 px thumbnails is nearest `--quality 85` JPEG's (the 400
    /// photos of `make bench`: 56.89 against 57.07; 1.95 scored 0.47 above, 2.05 0.61 below; docs/BENCHMARKS.md,
    /// workload 9), so that `auto` keeps that visible quality on average and spends fewer bytes where the image allows.
    public static let defaultDistance = 2.0
    /// The coding searched results are written in (`ImageEncoder.searchedOptions`: JPEG 4:4:4 with optimised Huffman
    /// tables, WebP with smart subsampling) and the qualities searched (`QualitySearch.qualities`), numbered: the
    /// variant key names it (`coding=3`), so that entries written by an earlier search (1: the fixed-quality coding;
    /// 2: this coding over qualities 7, 10, ... 100) serve no search made in this one.
    public static let searchedCoding = 3
    /// How `--format auto` searches its candidates, numbered: the variant key of a chosen format names it
    /// (`choice=2`), so that entries chosen by the earlier rule (1: every result measured, a candidate dropped once a
    /// result outside the distance was no smaller than the best) serve no choice made by this one (2: a result no
    /// smaller than the best is not measured, and bounds the candidate's search from above).
    public static let formatChoiceRule = 2
    /// The distances `--quality auto:DISTANCE` accepts: 0.3 (about the best a lossy encoder reaches) to 10.
    public static let distanceRange = 0.3...10.0
    /// The formats whose quality can be searched, and so those `--format auto` may choose from.
    public static let searchable: [ImageFormat] = [.avif, .webp, .jxl, .heic, .jpeg]
    /// The list `--format auto` chooses from by default: AVIF, WebP and JPEG.
    public static let defaultCandidates: [ImageFormat] = [.avif, .webp, .jpeg]

    /// `formats` in the one order a key spells and a search tries them (`searchable`'s), each once: an equal size is
    /// won by the earlier.
    public static func candidateOrder(_ formats: [ImageFormat]) -> [ImageFormat] {
        searchable.filter(formats.contains)
    }

    /// A distance as the variant key spells it: the shortest decimal (1.1, 0.75, 2).
    public static func spelling(_ distance: Double) -> String {
        distance == distance.rounded() ? String(Int(distance)) : String(distance)
    }
}

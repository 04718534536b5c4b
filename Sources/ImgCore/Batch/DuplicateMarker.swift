/// Finds near-duplicates among a batch's outputs as lines retire, in input order (`--facts`, `--duplicate-distance`):
/// per variant, the perceptual hashes of the outputs retired so far, with their lines' inputs, in a `HammingIndex`
/// (so that a list of millions of lines is not compared line by line with every line before it).
struct DuplicateMarker {
    private var seenHashes: [Int: HammingIndex<String>] = [:]

    /// Marks each output whose phash is within `distance` bits of an earlier line's output of the same variant (the
    /// first such line; with `skipping`, it is not written), and remembers the others' hashes for the lines after.
    mutating func mark(_ report: inout BatchItemReport, within distance: Int, skipping: Bool) {
        if let carried = report.carried {
            // A line done earlier (--resume) is still what later lines are compared with, unless a duplicate itself.
            for (index, output) in (carried.outputs ?? []).enumerated() where output.duplicateOf == nil {
                if let hex = output.phash, let hash = UInt64(hex, radix: 16) {
                    remember(hash, of: report.item.input, output: index, distance: distance)
                }
            }
            return
        }
        for index in report.outputs.indices {
            guard case .success(let response) = report.outputs[index].result,
                  let hex = response.image.facts?.phash, let hash = UInt64(hex, radix: 16) else { continue }
            if let earlier = seenHashes[index]?.first(near: hash) {
                report.outputs[index].duplicateOf = earlier
                report.outputs[index].skippedAsDuplicate = skipping
            } else {
                remember(hash, of: report.item.input, output: index, distance: distance)
            }
        }
    }

    /// Adds `hash` of the line `input` to the index of output `index` (made for `distance` on its first hash).
    private mutating func remember(_ hash: UInt64, of input: String, output index: Int, distance: Int) {
        seenHashes[index, default: HammingIndex(distance: distance)].add(hash, input)
    }
}

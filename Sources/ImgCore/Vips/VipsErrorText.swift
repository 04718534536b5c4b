import Foundation

/// libvips' error buffer made into one line that says each thing once.
///
/// The buffer holds one line per failing layer: a decode failure found while saving reads
/// `gifload_buffer: Invalid frame data` then `vips2png: unable to write to target target`, a seek that fails
/// twice is logged twice with different offsets, and libheif appends its error code (`(2.100)`) on a line of its own.
enum VipsErrorText {
    /// Lines that only say a later layer failed because an earlier one did; dropped when another line remains.
    private static let followOns = ["unable to write to target", "unable to read buffer", "unable to read source",
                                    "unable to read file", "unable to call", "unable to write to buffer"]

    static func oneLine(_ buffer: String) -> String {
        var seen = Set<String>()
        var lines: [String] = []
        for raw in buffer.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            // A bare error code such as `(2.100)`.
            if line.isEmpty || line.allSatisfy({ "().0123456789".contains($0) }) { continue }
            // The same message again, perhaps with other numbers (`bad seek to 162011`, `bad seek to 159809`).
            guard seen.insert(String(line.filter { !$0.isNumber })).inserted else { continue }
            lines.append(line)
        }
        let meaningful = lines.filter { line in !followOns.contains { line.contains($0) } }
        let kept = meaningful.isEmpty ? lines : meaningful
        return kept.isEmpty ? "libvips gave no detail" : kept.joined(separator: "; ")
    }
}

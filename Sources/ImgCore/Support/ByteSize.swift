import Foundation

/// Parses and formats byte counts such as `64M`, where K, M and G are powers of 1024.
public enum ByteSize {
    /// Parses `N`, `NK`, `NM`, `NG` (optionally followed by `B` or `iB`, any case). Rejects negatives and overflow.
    public static func parse(_ text: String) -> Int64? {
        var digits = text.trimmingCharacters(in: .whitespaces).uppercased()
        for suffix in ["IB", "B"] where digits.hasSuffix(suffix) && digits.count > suffix.count {
            digits.removeLast(suffix.count)
            break
        }
        var multiplier: Int64 = 1
        if let last = digits.last, let power = "KMGT".firstIndex(of: last) {
            multiplier = Int64(1) << (10 * ("KMGT".distance(from: "KMGT".startIndex, to: power) + 1))
            digits.removeLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit), let value = Int64(digits) else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : product
    }

    /// Formats a byte count for people: `512 B`, `3.4 KiB`, `12.0 MiB`.
    public static func format(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        var value = Double(bytes)
        for unit in ["KiB", "MiB", "GiB", "TiB"] {
            value /= 1024
            if value < 1024 || unit == "TiB" { return String(format: "%.1f %@", value, unit) }
        }
        return "\(bytes) B"
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

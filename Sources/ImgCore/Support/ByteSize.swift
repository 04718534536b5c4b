import Foundation

/// Parses and formats byte counts as GNU tools do: `K`, `M`, `G`, `T` and `KiB` … `TiB` are powers of 1024, `kB`,
/// `MB`, `GB`, `TB` powers of 1000, decimals allowed (`1.5G`).
public enum ByteSize {
    /// Parses `N` or `N` with a unit: `K`/`M`/`G`/`T` (any case) or `KiB`…`TiB` for powers of 1024, `kB`/`MB`/`GB`/`TB`
    /// (`KB` too) for powers of 1000, `B` for bytes. `N` may have a decimal part when a unit follows (`1.5G`); the
    /// result is rounded to a whole byte. Rejects negatives, overflow, blanks (around it or before the unit: ` 64M`,
    /// `64 M`) and anything else.
    public static func parse(_ text: String) -> Int64? {
        let number = text.prefix { $0.isASCIIDigit || $0 == "." }
        let unit = String(text.dropFirst(number.count))
        guard !number.isEmpty, number.filter({ $0 == "." }).count <= 1, number.first != ".", number.last != ".",
              let multiplier = multiplier(of: unit) else { return nil }
        if !number.contains(".") {
            guard let value = Int64(number) else { return nil }
            let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
            return overflow ? nil : product
        }
        guard multiplier > 1, let value = DecimalNumber.parse(number) else { return nil }
        let product = (value * Double(multiplier)).rounded()
        guard product.isFinite, product < 9.2e18 else { return nil }
        return Int64(product)
    }

    /// The multiplier of a unit; nil for an unknown one.
    private static func multiplier(of unit: String) -> Int64? {
        if unit.isEmpty || unit.lowercased() == "b" { return 1 }
        let letters = "KMGT"
        let upper = unit.uppercased()
        guard let letter = upper.first, let power = letters.firstIndex(of: letter) else { return nil }
        let exponent = letters.distance(from: letters.startIndex, to: power) + 1
        let binary = Int64(1) << (10 * exponent)
        var decimal: Int64 = 1
        for _ in 0..<exponent { decimal *= 1000 }
        switch upper.dropFirst() {
        case "": return binary
        case "IB": return binary
        case "B": return decimal
        default: return nil
        }
    }

    /// Formats a byte count for people: `512 B`, `25.0 KiB`, `12.0 MiB`.
    public static func format(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        var value = Double(bytes)
        for unit in ["KiB", "MiB", "GiB", "TiB"] {
            value /= 1024
            if value < 1023.95 || unit == "TiB" { return String(format: "%.1f %@", value, unit) }
        }
        return "\(bytes) B"
    }

    /// Words a size the user gave (a limit) exactly: in the largest of KiB, MiB, GiB and TiB it is a whole number
    /// of (`1 KiB`, `1536 KiB`, `256 MiB`), else in bytes (`1000 bytes`, `1 byte`); never rounded.
    public static func exact(_ bytes: Int64) -> String {
        for (unit, shift) in [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)] {
            let size = Int64(1) << shift
            if bytes >= size, bytes % size == 0 { return "\(bytes / size) \(unit)" }
        }
        return bytes == 1 ? "1 byte" : "\(bytes) bytes"
    }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

/// A number as a person writes it on a command line or in a list: decimal digits with an optional sign, point and
/// exponent (`2`, `0.5`, `.5`, `-1`, `1e3`). What Swift's `Double(_:)` also takes, and no one means in an option,
/// is not a number here: hexadecimal (`0x10`, read as 16), `inf`, `nan`.
public enum DecimalNumber {
    /// The value `text` spells in decimal; nil for anything else.
    public static func parse(_ text: some StringProtocol) -> Double? {
        var bytes = Array(text.utf8)[...]
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let integer = bytes.prefix { isDigit($0) }
        bytes = bytes.dropFirst(integer.count)
        var fraction: ArraySlice<UInt8> = []
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            fraction = bytes.prefix { isDigit($0) }
            bytes = bytes.dropFirst(fraction.count)
        }
        guard !integer.isEmpty || !fraction.isEmpty else { return nil }
        if let mark = bytes.first, mark == UInt8(ascii: "e") || mark == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            let exponent = bytes.prefix { isDigit($0) }
            guard !exponent.isEmpty else { return nil }
            bytes = bytes.dropFirst(exponent.count)
        }
        guard bytes.isEmpty else { return nil }
        return Double(String(text))
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}

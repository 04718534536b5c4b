import Foundation

/// How long a cache entry lives after it is stored or last used.
public enum TimeToLive: Equatable, Sendable, CustomStringConvertible {
    /// The entry expires this many seconds after its last access.
    case seconds(Int64)
    /// The entry never expires.
    case never

    /// Kingfisher's default: seven days.
    public static let defaultValue = TimeToLive.seconds(7 * 86_400)

    /// Parses `30s`, `15m`, `12h`, `7d`, a bare number of seconds, or `never` (no blanks around it).
    public static func parse(_ text: String) -> TimeToLive? {
        let trimmed = text.lowercased()
        if trimmed == "never" { return .never }
        guard let seconds = parseSeconds(trimmed) else { return nil }
        return .seconds(seconds)
    }

    /// Parses a duration with an optional unit `s`, `m`, `h` or `d` into whole seconds; fractions are allowed.
    public static func parseSeconds(_ text: String) -> Int64? {
        var number = text
        var unit: Double = 1
        if let last = number.last, let scale = ["s": 1.0, "m": 60, "h": 3600, "d": 86_400][String(last)] {
            unit = scale
            number.removeLast()
        }
        guard !number.isEmpty, number.allSatisfy({ $0.isASCIIDigit || $0 == "." }),
              let value = DecimalNumber.parse(number), value >= 0, value * unit < 1e15 else { return nil }
        return Int64((value * unit).rounded())
    }

    public var description: String {
        switch self {
        case .never: "never"
        case .seconds(let seconds): "\(seconds)s"
        }
    }
}

import Foundation

/// How long a cache entry lives after it is stored or last used.
public enum TimeToLive: Equatable, Sendable, CustomStringConvertible {
    /// The entry expires this many seconds after its last access.
    case seconds(Int64)
    /// The entry never expires.
    case never

    /// Kingfisher's default: seven days.
    public static let defaultValue = TimeToLive.seconds(7 * 86_400)

    /// The longest time to live: 100 years (`36500d`). An entry's expiry is its file's mtime: one from year 2400 on
    /// reads back as never expiring (`EntryIO.neverThreshold`), one past year 9999 is stored as never
    /// (`EntryIO.never`), so a longer ttl was taken and silently became `never`, which is asked for by name.
    public static let maximumSeconds: Int64 = 36_500 * 86_400
    /// `maximumSeconds` as a time to live.
    public static let longest = TimeToLive.seconds(maximumSeconds)

    /// Parses `30s`, `15m`, `12h`, `7d`, a bare number of seconds, or `never` (no blanks around it); nil for
    /// anything else and for more than `maximumSeconds`.
    public static func parse(_ text: String) -> TimeToLive? {
        let trimmed = text.lowercased()
        if trimmed == "never" { return .never }
        guard let seconds = parseSeconds(trimmed), seconds <= maximumSeconds else { return nil }
        return .seconds(seconds)
    }

    /// What a value `parse` refuses should be, said after `bad ttl 'TEXT'`: within the maximum, for a duration
    /// beyond it; else the forms it takes.
    public static func expectation(for text: String) -> String {
        if let seconds = parseSeconds(text.lowercased()), seconds > maximumSeconds {
            return "at most \(maximumSeconds / 86_400)d (100 years), or never for no expiry"
        }
        return "expected e.g. 30s, 15m, 12h, 7d or never"
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

import ImgCore

/// How an option's value is read: text to a typed value (a bad one is a usage error naming the option as
/// `shown`, `--timeout`), the value back to text (help's default), and the words completions offer.
struct ValueParser<Value: Sendable>: Sendable {
    let parse: @Sendable (_ text: String, _ shown: String) throws(ImgError) -> Value
    let format: @Sendable (Value) -> String
    /// The words the shell completions offer; nil: file names.
    var choices: [String]? = nil
}

extension ValueParser where Value == String {
    /// The text as given.
    static var text: Self { Self(parse: { text, _ in text }, format: { $0 }) }

    /// A file or directory's path: any text but the empty one, which names none (a script's unset variable:
    /// `--cache-dir "$DIR"` must not fall back to the default cache).
    static var path: Self { nonEmpty("a path") }

    /// Any text but the empty one, which names nothing (`what`: what the value names, `a key`).
    static func nonEmpty(_ what: String) -> Self {
        Self(parse: { text, shown throws(ImgError) in
            guard !text.isEmpty else { throw .usage("bad \(shown) '': expected \(what) (an empty value names none)") }
            return text
        }, format: { $0 })
    }
}

extension ValueParser where Value == Int {
    /// A whole number in `range` (`Int.max` as the upper bound: no bound).
    static func integer(_ range: ClosedRange<Int>) -> Self {
        Self(parse: { text, shown throws(ImgError) in
            guard ValueFormat.isPlain(text), let value = Int(text), range.contains(value) else {
                let upper = range.upperBound == Int.max ? " up" : " to \(range.upperBound)"
                throw .usage("bad \(shown) '\(text)': expected a whole number from \(range.lowerBound)\(upper)")
            }
            return value
        }, format: { String($0) })
    }
}

extension ValueParser where Value == Int64 {
    /// `integer(range)` as an Int64 (`--max-pixels`).
    static func wholeNumber(_ range: ClosedRange<Int>) -> Self {
        let integer = ValueParser<Int>.integer(range)
        return Self(parse: { text, shown throws(ImgError) in Int64(try integer.parse(text, shown)) }, format: { String($0) })
    }

    /// A size over 0 (`512K`, `64M`, `1G`: see `ByteSize.parse`); shown in the largest unit it is a whole number of.
    static var size: Self {
        Self(parse: { text, shown throws(ImgError) in
            guard let value = ByteSize.parse(text), value > 0 else {
                throw .usage("bad \(shown) '\(text)': expected a size such as 512K, 64M or 1G")
            }
            return value
        }, format: ValueFormat.size)
    }
}

extension ValueParser where Value == Int {
    /// `size` as an Int (`--memory-limit`).
    static var sizeInt: Self {
        Self(parse: { text, shown throws(ImgError) in Int(try ValueParser<Int64>.size.parse(text, shown)) },
             format: { ValueFormat.size(Int64($0)) })
    }
}

extension ValueParser where Value == Double {
    /// Seconds over 0 and at most 86400 (a day), fractions allowed.
    static var seconds: Self {
        Self(parse: { text, shown throws(ImgError) in try ValueFormat.seconds(text, shownAs: shown) },
             format: ValueFormat.number)
    }
}

extension ValueParser where Value == Double {
    /// A decimal number (`2`, `0.5`; no hex or exponent) that `accepts` lets through; else a usage error ending in
    /// `expected` (`bad --rate '0': expected ...`).
    static func decimal(expected: String, accepts: @escaping @Sendable (Double) -> Bool) -> Self {
        Self(parse: { text, shown throws(ImgError) in
            guard ValueFormat.isPlain(text), let value = DecimalNumber.parse(text), value.isFinite, accepts(value) else {
                throw .usage("bad \(shown) '\(text)': expected \(expected)")
            }
            return value
        }, format: ValueFormat.number)
    }
}

/// A width and a height in pixels, as `--min-size` gives them.
struct PixelDimensions: Sendable, Equatable {
    var width: Int
    var height: Int
}

extension ValueParser where Value == PixelDimensions {
    /// `WxH` (or `WXH`), each a whole number from 0 to 1,000,000.
    static var dimensions: Self {
        Self(parse: { text, shown throws(ImgError) in
            let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
            guard parts.count == 2, parts.allSatisfy({ ValueFormat.isPlain($0) }), let width = Int(parts[0]), let height = Int(parts[1]),
                  (0...1_000_000).contains(width), (0...1_000_000).contains(height) else {
                throw .usage("bad \(shown) '\(text)': expected WxH in pixels, e.g. 64x64")
            }
            return PixelDimensions(width: width, height: height)
        }, format: { "\($0.width)x\($0.height)" })
    }
}

extension ValueParser where Value == Double {
    /// A duration (`0`, `90s`, `30m`, `1h`, `2d`: see `TimeToLive.parseSeconds`), as seconds.
    static var duration: Self {
        Self(parse: { text, shown throws(ImgError) in
            guard let seconds = TimeToLive.parseSeconds(text.lowercased()) else {
                throw .usage("bad \(shown) '\(text)': expected a duration such as 0, 30m, 1h or 2d")
            }
            return Double(seconds)
        }, format: ValueFormat.duration)
    }
}

extension ValueParser {
    /// One of the words of `table`, in the order completions offer them (`auto|off`); else a usage error listing them.
    static func choice(_ table: KeyValuePairs<String, Value>) -> Self {
        let words = table.map(\.key)
        return Self(parse: { text, shown throws(ImgError) in
            guard let found = table.first(where: { $0.key == text }) else {
                throw .usage("bad \(shown) '\(text)': expected \(ValueFormat.alternatives(words))")
            }
            return found.value
        }, format: { value in table.first { "\($0.value)" == "\(value)" }?.key ?? "\(value)" }, choices: words)
    }
}

/// The text forms of values shared by the parsers.
enum ValueFormat {
    /// A number as every parser takes it: no blanks around it and no `+` before it (`' 5'`, `+5` were taken by some
    /// parsers and refused by others; sizes and durations never took a sign).
    static func isPlain(_ text: some StringProtocol) -> Bool {
        guard let first = text.first, let last = text.last else { return true }
        return !first.isWhitespace && first != "+" && !last.isWhitespace
    }

    /// `64M`, `256M`, `1G`: the largest of T, G, M and K the size is a whole number of, else bytes.
    static func size(_ bytes: Int64) -> String {
        for (unit, shift) in [("T", 40), ("G", 30), ("M", 20), ("K", 10)] where bytes > 0 && bytes % (Int64(1) << shift) == 0 {
            return "\(bytes >> shift)\(unit)"
        }
        return String(bytes)
    }

    /// `1h` for 3600, `2d`, `30m`, `90s`: the largest of d, h, m and s the duration is a whole number of.
    static func duration(_ seconds: Double) -> String {
        let whole = Int64(seconds)
        for (unit, size) in [("d", Int64(86_400)), ("h", 3600), ("m", 60)] where whole > 0 && whole % size == 0 {
            return "\(whole / size)\(unit)"
        }
        return "\(whole)s"
    }

    /// `a or b`, `a, b or c`.
    static func alternatives(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " or " + words.last!
    }

    /// `30` for 30.0, `0.5` for 0.5.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// Seconds over 0 and at most a day; an error names the value as `name` (an option or a variable).
    static func seconds(_ text: String, shownAs name: String) throws(ImgError) -> Double {
        guard isPlain(text), let value = DecimalNumber.parse(text), value.isFinite, value > 0, value <= 86_400 else {
            throw .usage("bad \(name) '\(text)': expected seconds greater than 0 and at most 86400")
        }
        return value
    }
}

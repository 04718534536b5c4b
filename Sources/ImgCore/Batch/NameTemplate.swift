/// `--name TEMPLATE`: how batch outputs are named, from `{name}`, `{variant}`, `{index}`, `{hash}` and `{ext}`.
/// Every placeholder expands to safe characters only, and the literal text may not contain `/`, `..` or NUL nor
/// start with a dot, so no name can lead outside the output directory.
public struct NameTemplate: Sendable, Equatable {
    private enum Part: Sendable, Equatable {
        case literal(String)
        case name, variant, index, hash, ext
    }

    private let parts: [Part]
    /// The template as given.
    public let text: String

    /// `{name}-{variant}.{ext}`, the default with `--variant`.
    public static let withVariants = try! NameTemplate("{name}-{variant}.{ext}")
    /// `{name}.{ext}`, the default without `--variant`.
    public static let plain = try! NameTemplate("{name}.{ext}")

    /// Parses a template; unknown placeholders, unbalanced braces and unsafe literal text are usage errors that give
    /// the problem (the caller names where the template came from).
    public init(_ text: String) throws(ImgError) {
        self.text = text
        var parts: [Part] = []
        var rest = Substring(text)
        while !rest.isEmpty {
            if rest.first == "{" {
                guard let close = rest.firstIndex(of: "}") else { throw .usage("unclosed '{'") }
                let word = rest[rest.index(after: rest.startIndex)..<close]
                switch word {
                case "name": parts.append(.name)
                case "variant": parts.append(.variant)
                case "index": parts.append(.index)
                case "hash": parts.append(.hash)
                case "ext": parts.append(.ext)
                default: throw .usage("unknown placeholder {\(word)} (name, variant, index, hash, ext)")
                }
                rest = rest[rest.index(after: close)...]
            } else {
                let literal = rest.prefix { $0 != "{" }
                if literal.contains("}") { throw .usage("'}' without '{'") }
                parts.append(.literal(String(literal)))
                rest = rest.dropFirst(literal.count)
            }
        }
        guard !parts.isEmpty else { throw .usage("empty template") }
        let literals = parts.compactMap { if case .literal(let value) = $0 { value } else { nil } }
        if literals.contains(where: { $0.contains("/") || $0.contains("\0") || $0.contains("..") }) {
            throw .usage("a name may not contain '/', '..' or NUL")
        }
        // A name starting with '-' reads as an option to the commands run on the folder (`rm *`).
        if case .literal(let first) = parts[0], first.hasPrefix(".") || first.hasPrefix("-") {
            throw .usage("a name may not start with '.' or '-'")
        }
        self.parts = parts
    }

    /// Whether every name begins with `{index}` and nothing after it can continue its digits: the template is
    /// `{index}` alone, or `{index}` then `{ext}` or text that doesn't start with a digit. Then a name's leading
    /// digits are its line's number, so lines with different numbers never get one name.
    public var beginsWithDelimitedIndex: Bool {
        guard parts.first == .index else { return false }
        guard parts.count > 1 else { return true }
        switch parts[1] {
        case .ext: return true
        case .literal(let text): return text.first?.isWholeNumber != true
        default: return false
        }
    }

    /// Whether the template uses `{hash}`.
    public var usesHash: Bool { parts.contains(.hash) }

    /// How many times the template uses `{name}`.
    public var nameCount: Int { parts.filter { $0 == .name }.count }

    /// How many times the template uses `{ext}`.
    public var extensionCount: Int { parts.filter { $0 == .ext }.count }

    /// Expands the template. `name` must already be a safe stem (`OutputNaming.safeStem`).
    public func render(name: String, variant: String, index: Int, hash: String, ext: String) -> String {
        parts.map { part in
            switch part {
            case .literal(let value): value
            case .name: name
            case .variant: variant
            case .index: String(index)
            case .hash: hash
            case .ext: ext
            }
        }.joined()
    }

    /// The longest file name Linux file systems take, in bytes (`NAME_MAX`).
    public static let maximumFileNameBytes = 255

    /// Whether `name` is a plain file name that stays inside its directory: not empty, no `/` or NUL, not starting
    /// with a dot (which also rules out `.` and `..`). Its length is checked apart (`maximumFileNameBytes`).
    public static func isSafeFileName(_ name: String) -> Bool {
        !name.isEmpty && !name.contains("/") && !name.contains("\0") && !name.hasPrefix(".")
    }

    /// The output format a list's second column names by its extension, as `-o`'s extension does (`thumb.png` is
    /// PNG); nil for no extension or one that names no writable format (it is then part of the name's stem only).
    public static func format(ofColumn column: String) -> ImageFormat? {
        guard let dot = column.lastIndex(of: "."), dot != column.startIndex else { return nil }
        let suffix = String(column[column.index(after: dot)...])
        guard !suffix.isEmpty, let format = ImageFormat(name: suffix), ImageFormat.writable.contains(format) else { return nil }
        return format
    }

    /// Validates a list's second column and reduces it to a safe stem (its extension is dropped: the output
    /// format decides it). Refused: `/`, `..`, NUL and a leading dot.
    public static func stem(fromColumn column: String) throws(ImgError) -> String {
        if column.contains("/") || column.contains("..") || column.contains("\0") || column.hasPrefix(".")
            || column.hasPrefix("-") {
            throw .usage("unsafe output name '\(column)': a name may not contain '/', '..' or NUL, nor start with '.' or '-'")
        }
        return OutputNaming.safeStem(column)
    }
}

import Foundation

/// Names the outputs of a batch from its list alone. Every line of the list, in input order, claims a name for each of
/// its outputs, whether it will succeed or fail and whichever shard handles it; so a name never depends on which items
/// failed, on the shard or on the order work finishes in, and a re-run of the list gives each name to the same line.
/// The output format is known only once the image is, so `{ext}` is claimed as a marker: names that differ only in
/// their extension clash.
///
/// A name must fit `NameTemplate.maximumFileNameBytes` with its clash suffix and the longest extension. A `{name}`
/// taken from the URL is shortened to fit (at a character boundary; the template's other parts, the variant and the
/// suffix stay whole); a name too long because of the template or of the list's second column is left as it is, and
/// refused when the output is written (`ClaimedOutputName.name(ext:)`).
struct BatchOutputNamer {
    private let template: NameTemplate
    /// The names claimed so far; only the current line's when lines never clash.
    private var registry = OutputNameRegistry()
    /// Whether two lines can never get one name, so that only a line's own names are compared: a template that
    /// begins with its `{index}` (`NameTemplate.beginsWithDelimitedIndex`), as line numbers differ (several inputs
    /// are numbered on through them, `ListSequenceReader`). Then nothing is remembered from line to line, where the
    /// batch's names would otherwise take 8–16 bytes a line.
    let linesNeverClash: Bool

    init(template: NameTemplate) {
        self.template = template
        linesNeverClash = template.beginsWithDelimitedIndex
    }

    /// How many names are remembered for later lines.
    var rememberedNames: Int { registry.count }

    /// Whether the names need `{hash}`, the short hash of each output's variant key (computing it costs a key).
    var usesHash: Bool { template.usesHash }

    /// Claims the names of one line's outputs, one per entry of `variants` (`original` without `--variant`), in order.
    /// `stem` is `{name}`, shortened to fit when `shortenable` (it comes from the URL, not from the list);
    /// `index` is `{index}` (the line number), and `hash(i)` gives `{hash}` for `variants[i]`.
    mutating func claim(stem: String, shortenable: Bool, variants: [String], index: Int,
                        hash: (Int) -> String) -> [ClaimedOutputName] {
        let template = template
        let names = template.nameCount
        // What each name gains once its extension markers are the longest extension there is.
        let extensionGrowth = template.extensionCount * (Self.longestExtensionBytes - ClaimedOutputName.extensionMarker.utf8.count)
        defer { if linesNeverClash { registry = OutputNameRegistry() } }
        return variants.indices.map { position in
            let variant = variants[position], digest = usesHash ? hash(position) : ""
            let render = { (stem: String) in
                template.render(name: stem, variant: variant, index: index, hash: digest, ext: ClaimedOutputName.extensionMarker)
            }
            let rendered = render(stem)
            let claimed = registry.claim { counter in
                let name = OutputNameRegistry.numbered(rendered, counter)
                let excess = name.utf8.count + extensionGrowth - NameTemplate.maximumFileNameBytes
                guard excess > 0, shortenable, names > 0 else { return name }
                // Each {name} gives up its share of the excess, rounded up; one character stays at least.
                let share = (excess + names - 1) / names
                return OutputNameRegistry.numbered(render(Self.shortened(stem, by: share)), counter)
            }
            return ClaimedOutputName(pattern: claimed)
        }
    }

    /// The longest `{ext}`: of the image formats, and `bin` for bytes of no known format.
    static let longestExtensionBytes = (ImageFormat.allCases.map(\.fileExtension) + ["bin"]).map(\.utf8.count).max() ?? 4

    /// `text` less at least `bytes` bytes from its end, cut between characters; never less than its first character.
    static func shortened(_ text: String, by bytes: Int) -> String {
        let limit = max(0, text.utf8.count - bytes)
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            if used + size > limit, !result.isEmpty { break }
            result.append(character)
            used += size
        }
        return result
    }

    /// The stem of a line and whether the list gave it: its second column made safe when it has a valid one, else the
    /// last path segment of its source (`OutputNaming.fullBaseName`), else, for a line that is no usable source, the
    /// text after its last `/` (without a query or fragment) made safe, so that an unusable line claims the name its
    /// repaired form would.
    static func stem(input: String, column: String?, source: ImageSource?) -> (text: String, fromList: Bool) {
        if let column, let stem = try? NameTemplate.stem(fromColumn: column) { return (stem, true) }
        if let source, source != .standardInput { return (OutputNaming.fullBaseName(for: source), false) }
        let path = input.prefix { $0 != "?" && $0 != "#" }
        let last = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? ""
        return (OutputNaming.safeStem(last.removingPercentEncoding ?? last), false)
    }
}

/// An output name claimed from the list, waiting for the output format to give its extension.
struct ClaimedOutputName: Sendable, Equatable {
    /// What stands for `{ext}` until the format is known: NUL, which no other part of a name can hold.
    static let extensionMarker = "\u{0}"

    /// The claimed name, `{ext}` still a marker.
    let pattern: String

    /// The file name, with `ext` for `{ext}`; a usage error when it is longer than a file name may be (only a
    /// template or a list's name can make it so).
    func name(ext: String) throws(ImgError) -> String {
        // NUL is a character of its own (a control character joins no other), so a split by characters is exact.
        let name = pattern.split(separator: "\u{0}", omittingEmptySubsequences: false).joined(separator: ext)
        let bytes = name.utf8.count
        guard bytes <= NameTemplate.maximumFileNameBytes else {
            let shown = bytes > 80 ? "\(name.prefix(40))…\(name.suffix(24))" : name
            throw .usage("output name '\(shown)' is too long: \(bytes) bytes, a file name takes at most "
                         + "\(NameTemplate.maximumFileNameBytes) (shorten the name template or the list's name)")
        }
        return name
    }
}

import Foundation

/// Names the outputs of a batch from its list alone. Every line of the list, in input order, claims a name for each of
/// its outputs, whether it will succeed or fail and whichever shard handles it; so a name never depends on which items
/// failed, on the shard or on the order work finishes in, and a re-run of the list gives each name to the same line.
/// The output format is known only once the image is, so `{ext}` is claimed as a marker: names that differ only in
/// their extension clash.
struct BatchOutputNamer {
    private let template: NameTemplate
    private var registry = OutputNameRegistry()

    init(template: NameTemplate) {
        self.template = template
    }

    /// Whether the names need `{hash}`, the short hash of each output's variant key (computing it costs a key).
    var usesHash: Bool { template.usesHash }

    /// Claims the names of one line's outputs, one per entry of `variants` (`original` without `--variant`), in order.
    /// `stem` is `{name}`, `index` is `{index}` (the line number), and `hash(i)` gives `{hash}` for `variants[i]`.
    mutating func claim(stem: String, variants: [String], index: Int, hash: (Int) -> String) -> [ClaimedOutputName] {
        variants.indices.map { position in
            let rendered = template.render(name: stem, variant: variants[position], index: index,
                                           hash: usesHash ? hash(position) : "", ext: ClaimedOutputName.extensionMarker)
            return ClaimedOutputName(pattern: registry.claim(rendered))
        }
    }

    /// The stem of a line: its second column made safe when it has a valid one, else the last path segment of its
    /// source (`OutputNaming.baseName`), else, for a line that is no usable source, the text after its last `/`
    /// (without a query or fragment) made safe, so that an unusable line claims the name its repaired form would.
    static func stem(input: String, column: String?, source: ImageSource?) -> String {
        if let column, let stem = try? NameTemplate.stem(fromColumn: column) { return stem }
        if let source, source != .standardInput { return OutputNaming.baseName(for: source) }
        let path = input.prefix { $0 != "?" && $0 != "#" }
        let last = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? ""
        return OutputNaming.safeStem(last.removingPercentEncoding ?? last)
    }
}

/// An output name claimed from the list, waiting for the output format to give its extension.
struct ClaimedOutputName: Sendable, Equatable {
    /// What stands for `{ext}` until the format is known: NUL, which no other part of a name can hold.
    static let extensionMarker = "\u{0}"

    /// The claimed name, `{ext}` still a marker.
    let pattern: String

    /// The file name, with `ext` for `{ext}`.
    func name(ext: String) -> String {
        pattern.replacingOccurrences(of: Self.extensionMarker, with: ext)
    }
}

import ImgCore

/// The scanned command line: options in the order given, and the other words.
struct ScannedArguments {
    var options: [(name: String, value: String?)] = []
    /// How each of `options` was spelled (`-j`, `--jobs`), for messages.
    var spellings: [String] = []
    /// Every word that is not an option, those after `--` included.
    var positionals: [String] = []
    /// How many of `positionals` came before `--` (all of them without one): only these can name a command.
    var wordsBeforeDashDash = 0

    /// The words before `--`.
    var optionWords: ArraySlice<String> { positionals.prefix(wordsBeforeDashDash) }

    // Look-ups by long name: what the typed declarations (`arguments[Options.timeout]`, `Option.value(in:)`) and
    // the scope checks use underneath. Read an option through its declaration instead; these stay public to the
    // module only for options not yet declared typed (the dataset output options being added alongside).
    func has(_ name: String) -> Bool { options.contains { $0.name == name } }
    /// The last value given for an option (later ones win).
    func value(_ name: String) -> String? { options.last { $0.name == name }?.value }
    func values(_ name: String) -> [String] { options.filter { $0.name == name }.compactMap(\.value) }

    /// Refuses any word (a command's name included) and any option but `allowed` beside `--NAME`, an option that
    /// stands alone (`--version`, `--generate`): `imgfetch batch --version` is no way to ask for a version, and
    /// `--version -o FILE` wrote nothing and said nothing of it. A usage error naming the first extra word or option.
    func checkAlone(_ name: String, besides allowed: [String] = []) throws(ImgError) {
        if let extra = positionals.first { throw .usage("--\(name) takes no arguments; got '\(extra)'") }
        if let other = options.first(where: { $0.name != name && !allowed.contains($0.name) }) {
            let but = allowed.isEmpty ? "" : " but " + allowed.map { "--" + $0 }.joined(separator: ", ")
            throw .usage("--\(name) takes no option\(but); got --\(other.name)")
        }
    }
}

/// GNU-style scanning: `--opt=v`, `--opt v`, `-o v`, `-ov`, bundled flags `-qv`, `--` ends options,
/// `-` alone is a word (stdin or stdout). Options may stand anywhere.
enum ArgumentScanner {
    static func scan(_ arguments: [String], specs: [OptionDefinition] = OptionCatalog.all) throws(ImgError) -> ScannedArguments {
        var result = ScannedArguments()
        var index = 0
        func takeValue(for spec: OptionDefinition, shownAs shown: String) throws(ImgError) -> String {
            index += 1
            guard index < arguments.count else { throw .usage("option \(shown) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                result.wordsBeforeDashDash = result.positionals.count
                result.positionals.append(contentsOf: arguments[(index + 1)...])
                return result
            }
            if argument.hasPrefix("--") {
                let body = argument.dropFirst(2)
                let name = String(body.prefix { $0 != "=" })
                let inline = body.contains("=") ? String(body.drop { $0 != "=" }.dropFirst()) : nil
                guard let spec = specs.first(where: { $0.long == name }) else {
                    throw .usage("unknown option --\(name)\(suggestion(for: name, specs: specs))")
                }
                if spec.takesValue {
                    let value = if let inline { inline } else { try takeValue(for: spec, shownAs: "--\(name)") }
                    result.options.append((name, value))
                } else {
                    guard inline == nil || spec.optionalValue != nil else { throw .usage("option --\(name) takes no value") }
                    result.options.append((name, inline))
                }
                result.spellings.append("--\(name)")
            } else if argument.hasPrefix("-"), argument.count > 1 {
                var letters = Array(argument.dropFirst())
                while !letters.isEmpty {
                    let letter = letters.removeFirst()
                    guard let spec = specs.first(where: { $0.short == letter }) else {
                        throw .usage("unknown option -\(letter)")
                    }
                    if spec.takesValue {
                        let value = letters.isEmpty ? try takeValue(for: spec, shownAs: "-\(letter)") : String(letters)
                        result.options.append((spec.long, value))
                        letters = []
                    } else {
                        result.options.append((spec.long, nil))
                    }
                    result.spellings.append("-\(letter)")
                }
            } else {
                result.positionals.append(argument)
            }
            index += 1
        }
        result.wordsBeforeDashDash = result.positionals.count
        return result
    }

    /// ` (did you mean --NAME?)` for the known option nearest to `name` (fewest single-letter edits, at most a
    /// third of its length), else nothing.
    private static func suggestion(for name: String, specs: [OptionDefinition]) -> String {
        let scored = specs.filter { !$0.isHidden }.map { ($0.long, editDistance(name, $0.long)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(1, name.count / 3) else { return "" }
        return " (did you mean --\(best.0)?)"
    }

    /// Edits between `a` and `b`: insertions, deletions, substitutions and swaps of two neighbours
    /// (`--jsno` is one edit from `--json`).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in stride(from: 1, through: a.count, by: 1) {
            for j in stride(from: 1, through: b.count, by: 1) {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}

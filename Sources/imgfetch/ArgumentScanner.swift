import ImgCore

/// One option the command line knows: its long name, optional short letter, and whether it takes a value.
struct OptionSpec {
    let long: String
    let short: Character?
    let takesValue: Bool
}

/// The scanned command line: options in the order given, and the other words.
struct ScannedArguments {
    var options: [(name: String, value: String?)] = []
    var positionals: [String] = []

    func has(_ name: String) -> Bool { options.contains { $0.name == name } }
    /// The last value given for an option (later ones win).
    func value(_ name: String) -> String? { options.last { $0.name == name }?.value }
    func values(_ name: String) -> [String] { options.filter { $0.name == name }.compactMap(\.value) }
}

/// GNU-style scanning: `--opt=v`, `--opt v`, `-o v`, `-ov`, bundled flags `-qv`, `--` ends options,
/// `-` alone is a word (stdin or stdout). Options may stand anywhere.
enum ArgumentScanner {
    static func scan(_ arguments: [String], specs: [OptionSpec]) throws(ImgError) -> ScannedArguments {
        var result = ScannedArguments()
        var index = 0
        func takeValue(for spec: OptionSpec, shownAs shown: String) throws(ImgError) -> String {
            index += 1
            guard index < arguments.count else { throw .usage("option \(shown) needs a value") }
            return arguments[index]
        }
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                result.positionals.append(contentsOf: arguments[(index + 1)...])
                break
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
                    guard inline == nil else { throw .usage("option --\(name) takes no value") }
                    result.options.append((name, nil))
                }
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
                }
            } else {
                result.positionals.append(argument)
            }
            index += 1
        }
        return result
    }

    private static func suggestion(for name: String, specs: [OptionSpec]) -> String {
        let close = specs.map(\.long).filter { $0.hasPrefix(String(name.prefix(3))) }
        return close.isEmpty ? "" : " (did you mean --\(close[0])?)"
    }
}

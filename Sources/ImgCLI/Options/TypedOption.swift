import ImgCore

/// What an `OptionGroup` lists: a declaration, plain (`OptionDefinition`) or typed (`Option`, `Flag`).
protocol OptionDeclaring: Sendable {
    var definition: OptionDefinition { get }
}

extension OptionDefinition: OptionDeclaring {
    var definition: OptionDefinition { self }
}

/// An option that takes a value, declared once with how that value is read: its syntax, its parsing and range
/// (`parser`), its default (the ImgCore value, shown by help and by the man page's generated "Default:" line) and
/// the commands it applies to. Read as `arguments[Options.timeout]`: a misspelled option does not compile.
struct Option<Value: Sendable>: OptionDeclaring {
    let definition: OptionDefinition
    let parser: ValueParser<Value>
    /// The default, as ImgCore has it; nil when there is none.
    let defaultValue: Value?

    /// `default` is the ImgCore value; help shows it through `parser.format` unless `shownDefault` words it
    /// (`imgfetch/VERSION`). The man page's "Default: X." line is generated from `default` unless `statesDefault`
    /// is false (the man text words the default itself); a `shownDefault` alone is not stated there.
    init(_ long: String, short: Character? = nil, value: String, parser: ValueParser<Value>,
         default defaultValue: Value? = nil, shownDefault: String? = nil, statesDefault: Bool = true,
         for commands: Set<CommandName>, step: Bool = false, hidden: Bool = false, needs: OptionNeed? = nil,
         choices: [String]? = nil, help: String, man: String) {
        self.parser = parser
        self.defaultValue = defaultValue
        let shown = shownDefault ?? defaultValue.map(parser.format)
        definition = OptionDefinition(long, short: short, value: value, default: shown, for: commands, step: step,
                                      hidden: hidden, needs: needs, choices: choices ?? parser.choices,
                                      statesDefault: statesDefault && defaultValue != nil, help: help, man: man)
    }

    var long: String { definition.long }

    /// The value given last (later ones win), parsed; nil when the option is not given. A bad value is a usage
    /// error naming the option (`bad --timeout 'soon': ...`).
    func value(in arguments: ScannedArguments) throws(ImgError) -> Value? {
        guard let text = arguments.value(long) else { return nil }
        return try parser.parse(text, "--" + long)
    }

    /// Every value given, in order, each parsed (a repeatable option such as `-H`).
    func values(in arguments: ScannedArguments) throws(ImgError) -> [Value] {
        try arguments.values(long).map { text throws(ImgError) in try parser.parse(text, "--" + long) }
    }

    /// `text`, a value of this option, read by `read`: ImgCore's parsing, whose usage error gives the problem only,
    /// worded here as a bad value of the option (`bad --name '{x': unclosed '{'`).
    func reading<Read>(_ text: String, with read: (String) throws(ImgError) -> Read) throws(ImgError) -> Read {
        do {
            return try read(text)
        } catch {
            guard case .usage(let problem) = error else { throw error }
            throw .usage("bad --\(long) '\(text.escapingControlCharacters)': \(problem)")
        }
    }
}

/// An option that takes no value (`-q`, `--no-cache`), or a value given inline only (`--keep-query[=NAMES]`).
/// Read as `arguments[Options.quiet]`.
struct Flag: OptionDeclaring {
    let definition: OptionDefinition

    init(_ long: String, short: Character? = nil, optionalValue: String? = nil, for commands: Set<CommandName>,
         step: Bool = false, hidden: Bool = false, needs: OptionNeed? = nil, choices: [String]? = nil,
         help: String, man: String) {
        definition = OptionDefinition(long, short: short, optionalValue: optionalValue, for: commands, step: step,
                                      hidden: hidden, needs: needs, choices: choices, help: help, man: man)
    }

    var long: String { definition.long }

    func isSet(in arguments: ScannedArguments) -> Bool { arguments.has(long) }
}

extension ScannedArguments {
    /// The typed value of `option` given last; nil when not given; a bad value is a usage error naming it.
    subscript<Value>(option: Option<Value>) -> Value? {
        get throws(ImgError) { try option.value(in: self) }
    }

    /// Whether `flag` is on the command line.
    subscript(flag: Flag) -> Bool { flag.isSet(in: self) }

    /// Whether `option` is on the command line (whatever its value).
    func has(_ option: some OptionDeclaring) -> Bool { has(option.definition.long) }

    /// `--keep-query=NAMES`: the inline value of the last `flag` given; `.some(nil)` when given bare, nil when not.
    func inlineValue(of flag: Flag) -> String?? {
        guard let given = options.last(where: { $0.name == flag.long }) else { return nil }
        return .some(given.value)
    }
}

/// Every option, typed, by the Swift name of its long name (`Options.maxBytes` is `--max-bytes`); each is declared
/// in the file of its topic (`Options/*Options.swift`) and listed there in its `OptionGroup`.
enum Options {}

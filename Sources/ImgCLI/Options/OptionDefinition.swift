/// One option, declared once: what the scanner accepts, which commands it applies to, and what `--help`,
/// `help COMMAND`, the shell completions and the man page's OPTIONS section say about it.
///
/// To add an option, add one `OptionDefinition(...)` to the group of its topic (`Options/*Options.swift`);
/// then `make man` regenerates the man page's OPTIONS section from it.
struct OptionDefinition: Sendable {
    /// The long name, without `--`.
    let long: String
    /// The short letter, if any (`-o`).
    let short: Character?
    /// The value's syntax as help shows it (`FILE`, `WxH[:MODE]`, `auto|off`); nil for a flag that takes none.
    /// Upper-case words are placeholders (italic in the man page), the rest is literal.
    let value: String?
    /// For a flag that may also be given a value, inline only (`--keep-query` or `--keep-query=img,w`): the value's
    /// syntax (`NAMES`); nil for every other option.
    let optionalValue: String?
    /// The default as help shows it (`30`, `7d`), or nil when there is none worth showing.
    let defaultValue: String?
    /// The commands it applies to; given to any other, it is a usage error (exit 2) before anything runs.
    let commands: Set<CommandName>
    /// One line for `--help` and `help COMMAND` (lower case, no final full stop, at most ~50 characters).
    let help: String
    /// The man page paragraph under the option's heading, in roff (`.B`, `.I`, `.BR` ...), without the heading.
    let man: String
    /// A processing step: its place among the other steps on the command line is the order they run in.
    let isStep: Bool
    /// Accepted but shown nowhere (internal commands such as `--generate`).
    let isHidden: Bool
    /// For some of its commands, another option it is taken only with; nil for none.
    let needs: OptionNeed?
    /// The words the shell completions offer for its value (`jpeg png ...` for `--format`, a typed option's
    /// parser's choices: `auto off`); nil: file names.
    let choices: [String]?
    /// The man page's last line for it is "Default: X." made from `defaultValue` (the man text does not word it).
    let statesDefault: Bool

    init(_ long: String, short: Character? = nil, value: String? = nil, optionalValue: String? = nil,
         default defaultValue: String? = nil,
         for commands: Set<CommandName>, step: Bool = false, hidden: Bool = false, needs: OptionNeed? = nil,
         choices: [String]? = nil, statesDefault: Bool = false, help: String, man: String) {
        self.choices = choices
        self.statesDefault = statesDefault
        self.long = long
        self.short = short
        self.value = value
        self.optionalValue = optionalValue
        self.defaultValue = defaultValue
        self.commands = commands
        self.help = help
        self.man = man
        self.isStep = step
        self.isHidden = hidden
        self.needs = needs
    }

    /// The option `command` takes this one only with (`facts` for info's `--max-pixels`), or nil.
    func needed(by command: CommandName) -> String? {
        guard let needs, needs.commands.contains(command) else { return nil }
        return needs.option
    }

    var takesValue: Bool { value != nil }
    /// Applies to every command (`-q`, `-v`, `--cache-dir`, `--help`, `--version`).
    var isGlobal: Bool { commands == .every }

    /// `-o, --output FILE` or `--format FORMAT`.
    var synopsis: String {
        var text = short.map { "-\($0), " } ?? ""
        text += "--" + long
        if let value { text += " " + value }
        if let optionalValue { text += "[=\(optionalValue)]" }
        return text
    }
}

/// An option that, on `commands`, is taken only with `option` (a long name) on the line too: info decodes, so its
/// decoding limits apply, only with `--facts`. Without it, a usage error (exit 2) saying `reason`; help says
/// "(needs --facts)" and the completions offer it on those commands only once `--facts` has been typed.
struct OptionNeed: Sendable {
    let option: String
    let commands: Set<CommandName>
    /// Why, for the usage error (`without it nothing is decoded`); nil for none.
    let reason: String?

    init(_ option: String, on commands: Set<CommandName>, because reason: String? = nil) {
        (self.option, self.commands, self.reason) = (option, commands, reason)
    }
}

/// The options of one topic, in the order help and the man page list them, with the man page's words before and
/// after the list (roff).
struct OptionGroup: Sendable {
    /// The man page's subsection title (`.SS Network`) and help's heading.
    let title: String
    let options: [OptionDefinition]
    var manIntro: String? = nil
    var manOutro: String? = nil

    init(title: String, options: [any OptionDeclaring], manIntro: String? = nil, manOutro: String? = nil) {
        self.title = title
        self.options = options.map(\.definition)
        (self.manIntro, self.manOutro) = (manIntro, manOutro)
    }
}

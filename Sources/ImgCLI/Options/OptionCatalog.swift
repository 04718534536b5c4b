import ImgCore

/// Every option of every command, grouped by topic; the groups are declared in `Options/*Options.swift`.
enum OptionCatalog {
    /// The topics in the order `--help` and the man page show them.
    static let groups: [OptionGroup] = [general, output, processing, encoding, network, reporting, facts, cache,
                                        renderer, batch, records, list, dataset, optOut, cacheCommands]

    static let all: [OptionDefinition] = groups.flatMap(\.options)

    static func named(_ long: String) -> OptionDefinition? { all.first { $0.long == long } }
    static func lettered(_ short: Character) -> OptionDefinition? { all.first { $0.short == short } }

    /// The options that are processing steps, run in the order given.
    static let steps: Set<String> = Set(all.filter(\.isStep).map(\.long))

    /// The options shown for `command`, by topic (hidden ones left out).
    static func groups(for command: CommandName) -> [OptionGroup] {
        groups.map { group in
            OptionGroup(title: group.title, options: group.options.filter { $0.commands.contains(command) && !$0.isHidden })
        }.filter { !$0.options.isEmpty }
    }

    /// Refuses an option given to a command it does not apply to: a usage error naming both, and the commands the
    /// option is for.
    static func checkApplicable(_ arguments: ScannedArguments, to command: CommandName) throws(ImgError) {
        for (index, option) in arguments.options.enumerated() {
            guard let definition = named(option.name), !definition.commands.contains(command) else { continue }
            let shown = arguments.spellings.indices.contains(index) ? arguments.spellings[index] : "--" + option.name
            let named = shown == "--" + definition.long ? shown : "\(shown) (--\(definition.long))"
            let users = CommandName.allCases.filter { definition.commands.contains($0) && !$0.isInternal }.map(\.rawValue)
            throw .usage("option \(named) does not apply to '\(command.rawValue)'"
                         + (users.isEmpty ? "" : "; it is for \(Self.list(users))"))
        }
    }

    /// Refuses an option given without the one it needs on `command` (`info --max-pixels` without `--facts`).
    static func checkNeeds(_ arguments: ScannedArguments, of command: CommandName) throws(ImgError) {
        for option in arguments.options {
            guard let definition = named(option.name), let needed = definition.needed(by: command),
                  !arguments.has(needed) else { continue }
            let reason = definition.needs?.reason.map { " (\($0))" } ?? ""
            if definition.commands.isSubset(of: definition.needs?.commands ?? []) {
                throw .usage("--\(definition.long) needs --\(needed)\(reason)")
            }
            throw .usage("--\(definition.long) applies to \(command.rawValue) only with --\(needed)\(reason)")
        }
    }

    /// `a`, `a and b`, `a, b and c`.
    static func list(_ words: [String]) -> String {
        guard words.count > 1 else { return words.first ?? "" }
        return words.dropLast().joined(separator: ", ") + " and " + words.last!
    }
}

extension CommandName {
    /// help and completions: not named when saying where an option belongs.
    var isInternal: Bool { self == .help || self == .completions }
}

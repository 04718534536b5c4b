import Foundation

/// `--help` and `help COMMAND`, made from `CommandCatalog` and `OptionCatalog`; every line fits 80 columns.
enum HelpFormatter {
    static let width = 80
    /// Where the help line of an option starts.
    static let helpColumn = 28

    /// The help of `word` (fetch, batch, prefetch, cache, renderer, completions, help); nil is the general help,
    /// which is fetch's.
    static func text(for word: String?) -> String {
        let word = word ?? "fetch"
        let commands = CommandName.allCases.filter { $0.word == word }
        var text = CommandCatalog.usage + "\n\n" + CommandCatalog.description(of: word)
        // The options of every subcommand (cache's, renderer's), each once, by topic; global ones last.
        var seen = Set<String>()
        for group in OptionCatalog.groups {
            let options = group.options.filter { option in
                !option.isHidden && !option.isGlobal && commands.contains { option.commands.contains($0) }
                    && seen.insert(option.long).inserted
            }
            guard !options.isEmpty else { continue }
            text += "\n\n" + group.title + ":"
            for option in options { text += "\n" + line(option, for: commands) }
        }
        let global = OptionCatalog.all.filter { $0.isGlobal && !$0.isHidden }
        text += "\n\nEvery command:"
        for option in global { text += "\n" + line(option, for: commands) }
        if word == "fetch" {
            let others = CommandName.words.filter { $0 != "fetch" && $0 != "help" }
            text += "\n\nOther commands: imgfetch help " + others.joined(separator: "|")
        }
        return text
    }

    /// `  -o, --output FILE         write the result to FILE (- for stdout)`, wrapped to 80 columns; a
    /// cache or renderer option names the subcommands it is for.
    static func line(_ option: OptionDefinition, for commands: [CommandName]) -> String {
        let left = "  " + (option.short == nil ? "    " : "") + option.synopsis
        var help = option.help
        if let value = option.defaultValue { help += " (default \(value))" }
        if let needed = commands.compactMap(option.needed(by:)).first { help += " (needs --\(needed))" }
        if commands.count > 1 {
            let users = commands.filter { option.commands.contains($0) }
            if users.count < commands.count { help += " [" + users.compactMap(\.subcommand).joined(separator: ", ") + "]" }
        }
        let indent = String(repeating: " ", count: helpColumn)
        var lines: [String] = []
        var line: String
        if left.count + 2 > helpColumn {
            lines.append(left)
            line = indent
        } else {
            line = left.padding(toLength: helpColumn, withPad: " ", startingAt: 0)
        }
        var empty = true
        for word in help.split(separator: " ") {
            if !empty, line.count + 1 + word.count > width {
                lines.append(line)
                line = indent
                empty = true
            }
            line += (empty ? "" : " ") + word
            empty = false
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }
}

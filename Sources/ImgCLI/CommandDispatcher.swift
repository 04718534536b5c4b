import Foundation
import ImgCore

/// Picks the command from the first word: fetch (the default), batch, prefetch, cache, renderer, completions, help;
/// refuses options that don't apply to it; runs it.
public enum CommandDispatcher {
    static var commands: [String] { CommandName.words }

    /// Runs one process's command line (its arguments without the program name): prepares the process (standard
    /// descriptors, a crash's one line, libvips' process settings), runs the command with the environment as it is
    /// after that preparation (which sets variables of its own: a renderer's address depends on them), and waits for
    /// a libvips start still under way so that exit handlers don't race it. Returns the exit status.
    public static func runProcess(_ arguments: ArraySlice<String>) -> Int32 {
        StandardStream.guardClosedDescriptors()
        CrashLine.install(environment: ProcessInfo.processInfo.environment)
        VipsRuntime.prepareProcess()
        let status = run(Array(arguments), environment: ProcessInfo.processInfo.environment, console: .process)
        VipsRuntime.waitForBackgroundStart()
        return status
    }

    /// Runs one command line (without the program name), writing to `console`, and returns its exit status. It
    /// needs no preparation of the process: without `runProcess`'s, libvips loads its modules itself (slower), and
    /// libcurl still reads its proxy variables from the process's environment, not from `environment`.
    public static func run(_ arguments: [String], environment: [String: String], console: Console) -> Int32 {
        let scanned: ScannedArguments
        do {
            scanned = try ArgumentScanner.scan(arguments)
        } catch {
            console.error(error.commandLineMessage)
            return error.exitCode
        }
        var words = scanned.positionals
        // A word after `--` is an input, even one spelled like a command.
        let word = scanned.optionWords.first.flatMap { commands.contains($0) ? $0 : nil } ?? "fetch"
        if scanned.optionWords.first == word { words.removeFirst() }
        do throws(ImgError) {
            // Accepted by every command, so judged for every one (renderer, help and completions never read it).
            _ = try scanned[Options.cacheDir]
            if let kind = try scanned[Options.generate] {
                // Alone: beside a command it replaced it (`batch urls.txt -O out --generate man-options` ran no batch).
                try scanned.checkAlone(Options.generate.long)
                try console.printLine(try generated(kind), terminator: "")
                return 0
            }
            if scanned[Options.version] {
                try VersionCommand.checkAlone(scanned)
                try VersionCommand.print(json: scanned[Options.json], console: console)
                return 0
            }
            if scanned[Options.help] || word == "help" {
                try console.printLine(HelpFormatter.text(for: try topic(word == "help" ? try helpTopic(words) : word)))
                return 0
            }
            if let first = scanned.optionWords.first, first != word { try checkNotMistyped(first) }
            // cache and renderer name their subcommand next; an unknown one is refused by the command itself.
            let subcommand = CommandName.subcommands(of: word).isEmpty ? nil : words.first
            if let command = CommandName(word: word, subcommand: subcommand) {
                try OptionCatalog.checkApplicable(scanned, to: command)
                try OptionCatalog.checkNeeds(scanned, of: command)
            }
        } catch {
            console.error(error.commandLineMessage)
            return error.exitCode
        }
        if arguments.isEmpty {
            console.standardError.writeIgnoringFailure(CommandCatalog.usage + "\n")
            return 2
        }
        return dispatch(word, scanned, words: words, environment: environment, console: console)
    }

    /// Runs command `word` with its words (its subcommand, inputs or lists).
    private static func dispatch(_ word: String, _ scanned: ScannedArguments, words: [String],
                                 environment: [String: String], console: Console) -> Int32 {
        switch word {
        case "cache":
            return CacheCommand.run(scanned, words: words, environment: environment, console: console)
        case "renderer":
            return RendererCommand.run(scanned, words: words, environment: environment, console: console)
        case "batch", "prefetch":
            return BatchCommand.run(scanned, words: words, prefetchOnly: word == "prefetch", environment: environment,
                                    console: console)
        case "info":
            return InfoCommand.run(scanned, inputs: words, environment: environment, console: console)
        case "completions":
            return completions(words, console: console)
        default:
            return FetchCommand.run(scanned, inputs: words, environment: environment, console: console)
        }
    }

    /// The command `help WORDS` is on (nil: none, the general help): `help cache prune` is the command's help,
    /// which covers its subcommands; two commands are a usage error.
    private static func helpTopic(_ words: [String]) throws(ImgError) -> String? {
        if words.count == 2, CommandName.subcommands(of: words[0]).contains(words[1]) { return words[0] }
        if words.count > 1 {
            throw .usage("help is on one command at a time: give 'imgfetch help \(words[0])', then 'imgfetch help \(words[1])'")
        }
        return words.first
    }

    /// A first word that is no command, no existing file and no URL, but within two edits of a command (`bacth`),
    /// is a typo: refused before anything is fetched or created, instead of being fetched as an input.
    private static func checkNotMistyped(_ first: String) throws(ImgError) {
        guard first.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-") }), first != "-" else { return }
        var status = stat()
        guard lstat(first, &status) != 0, let meant = CommandName.nearest(to: first, among: commands) else { return }
        throw .usage("'\(first)' is not a command, a file or a URL; did you mean '\(meant)'?")
    }

    /// `imgfetch completions bash|zsh|fish`.
    private static func completions(_ words: [String], console: Console) -> Int32 {
        do throws(ImgError) {
            guard words.count == 1, let script = CompletionWriter.script(for: words[0]) else {
                throw .usage("completions needs one shell: \(CompletionWriter.shells.joined(separator: ", "))")
            }
            try console.printLine(script, terminator: "")
            return 0
        } catch {
            console.error(error.commandLineMessage)
            return error.exitCode
        }
    }

    /// What `--generate KIND` prints: `man-options` (the man page's OPTIONS section), `complete-SHELL`.
    private static func generated(_ kind: String) throws(ImgError) -> String {
        if kind == "man-options" { return ManPageWriter.optionsSection() }
        if kind.hasPrefix("complete-"), let script = CompletionWriter.script(for: String(kind.dropFirst(9))) { return script }
        throw .usage("bad --generate '\(kind)': expected man-options, complete-bash, complete-zsh or complete-fish")
    }

    /// The command `help WORD` is about; nil for the general help. An unknown word is a usage error.
    private static func topic(_ word: String?) throws(ImgError) -> String? {
        guard let word, word != "help" else { return nil }
        guard commands.contains(word) else {
            throw .usage("no help on '\(word)': commands are \(commands.filter { $0 != "help" }.joined(separator: ", "))")
        }
        return word
    }
}

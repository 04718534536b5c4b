import Foundation
import ImgCore

/// Picks the command from the first word: fetch (the default), batch, prefetch, cache, renderer, help.
enum CommandDispatcher {
    static let commands = ["fetch", "batch", "prefetch", "cache", "renderer", "help"]

    static func run(_ arguments: [String], environment: [String: String]) -> Int32 {
        let scanned: ScannedArguments
        do {
            scanned = try ArgumentScanner.scan(arguments, specs: OptionTable.all)
        } catch {
            Reporter.error(error.message)
            return error.exitCode
        }
        var words = scanned.positionals
        // A word after `--` is an input, even one spelled like a command.
        let command = scanned.optionWords.first.flatMap { commands.contains($0) ? $0 : nil } ?? "fetch"
        if scanned.optionWords.first == command { words.removeFirst() }
        do throws(ImgError) {
            if scanned.has("version") {
                try Reporter.printLine("imgfetch \(Version.current)")
                return 0
            }
            if scanned.has("help") || command == "help" {
                try Reporter.printLine(HelpText.text(for: try topic(command == "help" ? words.first : command)))
                return 0
            }
        } catch {
            Reporter.error(error.message)
            return error.exitCode
        }
        if arguments.isEmpty {
            StandardStream.error.writeIgnoringFailure(HelpText.usage + "\n")
            return 2
        }
        switch command {
        case "cache":
            return CacheCommand.run(scanned, words: words, environment: environment)
        case "renderer":
            return RendererCommand.run(scanned, words: words, environment: environment)
        case "batch", "prefetch":
            return BatchCommand.run(scanned, words: words, prefetchOnly: command == "prefetch", environment: environment)
        default:
            return FetchCommand.run(scanned, inputs: words, environment: environment)
        }
    }

    /// The command `help WORD` is about; nil for the general help. An unknown word is a usage error.
    private static func topic(_ word: String?) throws(ImgError) -> String? {
        guard let word, word != "help" else { return nil }
        guard commands.contains(word) else {
            throw .usage("no help on '\(word)': commands are \(commands.dropLast().joined(separator: ", "))")
        }
        return word
    }
}

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
        if scanned.has("version") {
            print("imgfetch \(Version.current)")
            return 0
        }
        var words = scanned.positionals
        let command = words.first.flatMap { commands.contains($0) ? $0 : nil } ?? "fetch"
        if words.first == command { words.removeFirst() }
        if scanned.has("help") || command == "help" {
            print(HelpText.text(for: command == "help" ? words.first : command))
            return 0
        }
        if arguments.isEmpty {
            FileHandle.standardError.write(Data((HelpText.usage + "\n").utf8))
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
}

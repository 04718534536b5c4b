import ImgCore

/// Every command an option can apply to, as the user types it (`cache prune`, `renderer status`).
/// A new command is a new case here and an entry in `CommandCatalog`.
enum CommandName: String, CaseIterable, Sendable {
    case fetch, batch, prefetch, info
    case cacheInspect = "cache inspect", cacheCleanExpired = "cache clean-expired", cachePrune = "cache prune"
    case cacheClear = "cache clear", cacheRemove = "cache remove", cacheVerify = "cache verify"
    case cacheConfig = "cache config"
    case rendererServe = "renderer serve", rendererStart = "renderer start", rendererStop = "renderer stop"
    case rendererStatus = "renderer status"
    case help, completions

    /// The first word of the command (`cache` for `cache prune`).
    var word: String { String(rawValue.prefix { $0 != " " }) }
    /// The second word (`prune`), or nil for a one-word command.
    var subcommand: String? { rawValue.contains(" ") ? String(rawValue.drop { $0 != " " }.dropFirst()) : nil }

    /// The first words that name a command (fetch, batch, ..., cache, renderer).
    static var words: [String] {
        var seen = Set<String>()
        return allCases.map(\.word).filter { seen.insert($0).inserted }
    }

    /// The first words that name a command only with a subcommand (`cache`, `renderer`).
    static var multiWord: [String] { words.filter { !subcommands(of: $0).isEmpty } }

    /// The subcommands of a first word (`prune`, `clear`, ... for `cache`); empty for a one-word command.
    static func subcommands(of word: String) -> [String] { allCases.filter { $0.word == word }.compactMap(\.subcommand) }

    /// The word of `candidates` within two edits of `word` (the nearest, the first of equals), or nil:
    /// for "did you mean 'batch'?".
    static func nearest(to word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, ArgumentScanner.editDistance(word, $0)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= 2, best.1 < best.0.count else { return nil }
        return best.0
    }

    /// The command `word` and the first of `words` name (`cache prune`): none, or an unknown one (with the one
    /// meant, if near), is a usage error.
    static func named(_ word: String, subcommandIn words: [String]) throws(ImgError) -> CommandName {
        let subcommands = subcommands(of: word)
        guard let subcommand = words.first else {
            throw .usage("\(word) needs a command: \(subcommands.joined(separator: ", "))")
        }
        guard let command = CommandName(word: word, subcommand: subcommand) else {
            let meant = nearest(to: subcommand, among: subcommands)
            throw .usage("unknown \(word) command '\(subcommand)'"
                         + (meant.map { "; did you mean '\($0)'?" } ?? " (\(subcommands.joined(separator: ", ")))"))
        }
        return command
    }

    /// The command `WORD [SUB]` names, or nil.
    init?(word: String, subcommand: String?) {
        guard let found = Self.allCases.first(where: { $0.word == word && $0.subcommand == subcommand }) else { return nil }
        self = found
    }
}

extension Set where Element == CommandName {
    /// Every command, those added later included: for the global options.
    static var every: Set<CommandName> { Set(CommandName.allCases) }
    /// The commands that fetch: fetch, batch and prefetch.
    static var fetchLike: Set<CommandName> { [.fetch, .batch, .prefetch] }
    /// The commands that make requests: the fetching ones and info (network, limits, keys).
    static var requesting: Set<CommandName> { fetchLike.union([.info]) }
    /// batch and prefetch.
    static var batchLike: Set<CommandName> { [.batch, .prefetch] }
    /// Every `cache` subcommand.
    static var cache: Set<CommandName> { Set(CommandName.allCases.filter { $0.word == "cache" }) }
    /// Every `renderer` subcommand.
    static var renderer: Set<CommandName> { Set(CommandName.allCases.filter { $0.word == "renderer" }) }
}

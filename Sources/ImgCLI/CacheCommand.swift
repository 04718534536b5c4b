import Foundation
import ImgCore

/// `imgfetch cache inspect|clean-expired|prune|clear|remove|verify|config`: parses, calls ImgCore, prints.
/// Summaries go to stdout (nothing with `-q`); errors are one line on stderr with the documented exit code
/// (2 usage, 7 local I/O or an unsafe directory, 8 damaged entries found by verify).
enum CacheCommand {
    /// Its subcommands, as `CommandName` lists them.
    static var subcommands: [String] { CommandName.subcommands(of: CommandName.cacheInspect.word) }

    static func run(_ arguments: ScannedArguments, words: [String], environment: [String: String],
                    console: Console) -> Int32 {
        do throws(ImgError) {
            return try execute(arguments, words: words, environment: environment, console: console)
        } catch {
            console.error(error.commandLineMessage)
            return error.exitCode
        }
    }

    private static func execute(_ arguments: ScannedArguments, words: [String], environment: [String: String],
                                console: Console) throws(ImgError) -> Int32 {
        guard let subcommand = words.first else {
            throw .usage("cache needs a command: \(subcommands.joined(separator: ", "))")
        }
        guard let command = CommandName(word: CommandName.cacheInspect.word, subcommand: subcommand) else {
            let meant = CommandName.nearest(to: subcommand, among: subcommands)
            throw .usage("unknown cache command '\(subcommand)'"
                         + (meant.map { "; did you mean '\($0)'?" } ?? " (\(subcommands.joined(separator: ", ")))"))
        }
        let rest = Array(words.dropFirst())
        let directory = CacheDirectory.resolve(option: try arguments[Options.cacheDir], environment: environment)
        // Opened once, before anything else, and used through its descriptor: a directory that another user could
        // swap (or a folder on the way) is refused (exit 7); a missing one is an empty cache.
        var root = try CacheRoot.open(directory, create: false)
        let output = CacheCommandOutput(console: console, quiet: arguments[Options.quiet], verbose: arguments[Options.verbose] && !arguments[Options.quiet],
                                        json: arguments[Options.json], command: "cache \(subcommand)")
        let dryRun = arguments[Options.dryRun]

        switch command {
        case .cacheInspect:
            guard rest.count <= 1 else { throw .usage("cache inspect takes at most one URL, got \(rest.count)") }
            var limit: Int? = try arguments[Options.limit] ?? Options.limit.defaultValue
            if arguments[Options.all] { limit = nil }
            let settings = try settings(arguments, root: root, environment: environment)
            let key = try rest.first.map { input throws(ImgError) in
                try CacheInspector.originalKey(forInput: input, query: settings.query, cacheKey: try arguments[Options.cacheKey])
            }
            let inspection = root.map {
                CacheInspector.inspect(root: $0, originalKey: key, limit: key == nil ? limit : nil, sizeLimit: settings.sizeLimit)
            } ?? CacheInspector.empty(directory: directory, sizeLimit: settings.sizeLimit)
            let shownURL = rest.first.map(URLCredentials.maskingPassword(in:))
            if arguments[Options.json] {
                try CacheOutput.printJSON(inspection, url: shownURL, originalKey: key, console: console)
            } else if !output.quiet {
                try CacheOutput.printInspection(inspection, url: shownURL, console: console)
            }
            return 0

        case .cacheCleanExpired:
            try noArguments(rest, subcommand)
            let tempAge = try arguments[Options.tempAge] ?? CacheMaintenance.defaultTempAge
            guard let root else { return try output.nothing(dryRun) }
            let report = CacheMaintenance.cleanExpired(root: root, tempAge: tempAge, dryRun: dryRun,
                                                      listingPaths: output.listsPaths)
            return try output.report(report, dryRun: dryRun)

        case .cachePrune:
            try noArguments(rest, subcommand)
            let settings = try settings(arguments, root: root, environment: environment)
            guard let limit = settings.sizeLimit else {
                throw .usage("cache prune needs a size limit: give --size-limit SIZE (e.g. 500M), set IMGFETCH_SIZE_LIMIT, "
                             + "or store one with 'imgfetch cache config size-limit=500M'")
            }
            guard let root else { return try output.nothing(dryRun, limit: limit) }
            let report = CacheMaintenance.prune(root: root, sizeLimit: limit, dryRun: dryRun, listingPaths: output.listsPaths)
            return try output.report(report, dryRun: dryRun, limit: limit)

        case .cacheClear:
            try noArguments(rest, subcommand)
            guard let root else { return try output.nothing(dryRun) }
            return try output.report(CacheMaintenance.clear(root: root, dryRun: dryRun), dryRun: dryRun)

        case .cacheRemove:
            guard rest.count == 1 else { throw .usage("cache remove takes one URL, got \(rest.count)") }
            let query = try settings(arguments, root: root, environment: environment).query
            let key = try CacheInspector.originalKey(forInput: rest[0], query: query, cacheKey: try arguments[Options.cacheKey])
            guard let root else { return try output.nothing(dryRun) }
            return try output.report(try CacheMaintenance.remove(root: root, originalKey: key, dryRun: dryRun),
                                     dryRun: dryRun)

        case .cacheVerify:
            try noArguments(rest, subcommand)
            let repair = arguments[Options.repair]
            let result = root.map { CacheVerifier.verify(root: $0, repair: repair) } ?? CacheVerifier.Result()
            for failure in result.failures {
                console.error("warning: could not remove \(failure.path): \(failure.reason)")
            }
            try output.verification(result, repair: repair)
            if !result.failures.isEmpty { return ImgError.io("").exitCode }
            if !repair, !result.damaged.isEmpty {
                throw .damaged("\(result.damaged.count) of \(Counted.of(result.checked, "entry", "entries")) damaged; "
                               + "'imgfetch cache verify --repair' removes them")
            }
            return 0

        default: // .cacheConfig
            if !rest.isEmpty {
                let made = if let root { root } else { try CacheRoot.open(directory, create: true) }
                guard let opened = made else { throw .io("cannot open \(directory)") }
                try CacheSettings.writeConfig(root: opened, assignments: rest)
                root = opened
            }
            let settings = try settings(arguments, root: root, environment: environment)
            try output.configuration(directory: directory, settings: settings)
            return 0
        }
    }

    private static func settings(_ arguments: ScannedArguments, root: CacheRoot?,
                                 environment: [String: String]) throws(ImgError) -> CacheSettings {
        try CacheSettingsChoice.resolve(arguments, root: root, environment: environment)
    }

    private static func noArguments(_ rest: [String], _ subcommand: String) throws(ImgError) {
        if let extra = rest.first { throw .usage("cache \(subcommand) takes no arguments, got '\(URLCredentials.maskingPassword(in: extra))'") }
    }
}

/// How `cache inspect` prints: a text table, or one JSON document whose times are Unix seconds (UTC, fractional).
enum CacheOutput {
    static func date(_ seconds: Double?) -> String {
        guard let seconds else { return "never" }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }

    static func printInspection(_ inspection: CacheInspector.Inspection, url: String?, console: Console) throws(ImgError) {
        let summary = inspection.summary
        var text = "directory      \(inspection.directory)\n"
        if let url { text += "url            \(url)\n" }
        text += "entries        \(summary.entries) (\(Counted.of(summary.originals, "original", "originals")), "
            + "\(Counted.of(summary.variants, "variant", "variants")))\n"
        text += "total          \(ByteSize.format(summary.totalBytes))"
        if let limit = inspection.sizeLimit {
            text += " of a \(ByteSize.format(limit)) size limit (\(Int((Double(summary.totalBytes) * 100 / Double(limit)).rounded()))% full)\n"
        } else {
            text += ", size limit none\n"
        }
        text += "last pruned    \(date(inspection.lastPruned))\n"
        text += "expired        \(summary.expired)\n"
        text += "oldest access  \(summary.oldestAccess.map { date($0) } ?? "-")\n"
        text += "newest access  \(summary.newestAccess.map { date($0) } ?? "-")\n"
        if !inspection.items.isEmpty {
            text += "\nLAST ACCESS           EXPIRES               SIZE        FORMAT  WIDTHxHEIGHT  KIND      URL / VARIANT\n"
        }
        for item in inspection.items {
            let size = ByteSize.format(item.size)
            let dimensions = item.width.map { "\($0)x\(item.height ?? 0)" } ?? "-"
            let expires = item.expired ? "expired" : date(item.expires)
            var line = date(item.lastAccess).padding(toLength: 22, withPad: " ", startingAt: 0)
            line += expires.padding(toLength: 22, withPad: " ", startingAt: 0)
            line += size.padding(toLength: 12, withPad: " ", startingAt: 0)
            line += (item.format ?? "?").padding(toLength: 8, withPad: " ", startingAt: 0)
            line += dimensions.padding(toLength: 14, withPad: " ", startingAt: 0)
            line += item.kind.padding(toLength: 10, withPad: " ", startingAt: 0)
            line += item.damaged ? "(damaged: \(item.path))" : (item.url ?? "?")
            if let variant = item.variant { line += "  " + variant }
            text += line.escapingControlCharacters + "\n"
        }
        let hidden = summary.entries - inspection.items.count
        if hidden > 0 { text += "… and \(hidden) more (--all or --limit N to list them)\n" }
        try console.printLine(String(text.dropLast()))
    }

    static func printJSON(_ inspection: CacheInspector.Inspection, url: String?, originalKey: String?,
                          console: Console) throws(ImgError) {
        func value<T>(_ optional: T?) -> Any { optional.map { $0 as Any } ?? NSNull() }
        let summary = inspection.summary
        let items: [[String: Any]] = inspection.items.map { item in
            ["kind": item.kind, "url": value(item.url), "key": value(item.key), "variant": value(item.variant),
             "path": item.path, "size": item.size, "imageBytes": value(item.imageBytes), "format": value(item.format),
             "width": value(item.width), "height": value(item.height), "created": value(item.created),
             "lastAccess": item.lastAccess, "expires": value(item.expires), "expired": item.expired,
             "etag": value(item.etag), "lastModified": value(item.lastModified), "damaged": item.damaged]
        }
        let document: [String: Any] = [
            "directory": inspection.directory, "url": value(url), "originalKey": value(originalKey),
            "entries": summary.entries, "originals": summary.originals, "variants": summary.variants,
            "totalBytes": summary.totalBytes, "sizeLimit": value(inspection.sizeLimit), "expired": summary.expired,
            "fullPercent": value(inspection.sizeLimit.map { (Double(summary.totalBytes) * 1000 / Double($0)).rounded() / 10 }),
            "lastPruned": value(inspection.lastPruned),
            "oldestAccess": value(summary.oldestAccess), "newestAccess": value(summary.newestAccess),
            "shown": items.count, "items": items,
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            throw .internalFailure("cannot encode the inspection as JSON")
        }
        try console.printLine(String(decoding: data, as: UTF8.self))
    }
}

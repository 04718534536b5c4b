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
        let command = try CommandName.named(CommandName.cacheInspect.word, subcommandIn: words)
        // Opened once, before anything else, and used through its descriptor: a directory that another user could
        // swap (or a folder on the way) is refused (exit 7); a missing one is an empty cache.
        let directory = CacheDirectory.resolve(option: try arguments[Options.cacheDir], environment: environment)
        var invocation = CacheInvocation(arguments: arguments, subcommand: words[0], rest: Array(words.dropFirst()),
                                         directory: directory, root: try CacheRoot.open(directory, create: false),
                                         environment: environment, console: console)
        switch command {
        case .cacheInspect: return try invocation.inspect()
        case .cacheCleanExpired: return try invocation.cleanExpired()
        case .cachePrune: return try invocation.prune()
        case .cacheClear: return try invocation.clear()
        case .cacheRemove: return try invocation.remove()
        case .cacheVerify: return try invocation.verify()
        default: return try invocation.config()  // .cacheConfig
        }
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

    /// `total` as a percentage of `limit`, to one decimal (`0.3` for 977.9 KiB of 300 MiB): what the text prints
    /// and `--json`'s `fullPercent` gives.
    static func fullPercent(_ total: Int64, of limit: Int64) -> Double {
        (Double(total) * 1000 / Double(limit)).rounded() / 10
    }

    /// A percentage as JSON writes it: `0.3`, `45`, `45.3`.
    static func percentText(_ percent: Double) -> String {
        String(format: percent == percent.rounded() ? "%.0f" : "%.1f", percent)
    }

    static func printInspection(_ inspection: CacheInspector.Inspection, url: String?, console: Console) throws(ImgError) {
        let summary = inspection.summary
        var text = "directory      \(inspection.directory)\n"
        if let url { text += "url            \(url)\n" }
        text += "entries        \(summary.entries) (\(Counted.of(summary.originals, "original", "originals")), "
            + "\(Counted.of(summary.variants, "variant", "variants")))\n"
        text += "total          \(ByteSize.format(summary.totalBytes))"
        if let limit = inspection.sizeLimit {
            text += " of a \(ByteSize.format(limit)) size limit (\(percentText(fullPercent(summary.totalBytes, of: limit)))% full)\n"
        } else {
            text += ", size limit none\n"
        }
        text += "last pruned    \(date(inspection.lastPruned))\n"
        text += "expired        \(summary.expired)\n"
        text += "oldest access  \(summary.oldestAccess.map { date($0) } ?? "-")\n"
        text += "newest access  \(summary.newestAccess.map { date($0) } ?? "-")\n"
        if summary.irregular > 0 {
            text += "not regular    \(summary.irregular) (damaged, not entries: cache verify --repair removes them)\n"
        }
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
            line += item.notRegular.map { "(not a regular file, \($0): \(item.path))" }
                ?? (item.damaged ? "(damaged: \(item.path))" : (item.url ?? "?"))
            if let variant = item.variant { line += "  " + variant }
            text += line.escapingControlCharacters + "\n"
        }
        let hidden = summary.entries + summary.irregular - inspection.items.count
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
             "etag": value(item.etag), "lastModified": value(item.lastModified), "damaged": item.damaged,
             "notRegular": value(item.notRegular)]
        }
        let document: [String: Any] = [
            "directory": inspection.directory, "url": value(url), "originalKey": value(originalKey),
            "entries": summary.entries, "originals": summary.originals, "variants": summary.variants,
            "totalBytes": summary.totalBytes, "notRegular": summary.irregular, "sizeLimit": value(inspection.sizeLimit), "expired": summary.expired,
            "fullPercent": value(inspection.sizeLimit.map { fullPercent(summary.totalBytes, of: $0) }),
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

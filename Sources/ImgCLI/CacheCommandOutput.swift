import Foundation
import ImgCore

/// What the cache commands print on stdout: lines of text (none with `-q`), or with `--json` one JSON document
/// (printed with `-q` too: `-q` silences the human text only). Fields are documented in the man page's JSON OUTPUT.
struct CacheCommandOutput {
    /// Where it prints.
    var console: Console
    var quiet: Bool
    var verbose: Bool
    var json: Bool
    /// `cache prune`, as the document's `command` field says.
    var command: String

    /// A line of text, its control characters escaped (it may quote a URL or a path); nothing with `-q` or `--json`.
    func line(_ text: String) throws(ImgError) {
        guard !quiet, !json else { return }
        try console.printLine(text.escapingControlCharacters)
    }

    func nothing(_ dryRun: Bool, limit: Int64? = nil) throws(ImgError) -> Int32 {
        try report(CacheMaintenance.Report(), dryRun: dryRun, limit: limit)
    }

    /// Whether a report is to list the removed paths (`-v` and `--json` show them): a prune of a large cache that
    /// lists nothing holds none.
    var listsPaths: Bool { json || (verbose && !quiet) }

    /// `removed 12 entries, 3.4 MiB`, then temporaries and locks when there were any; `-v` lists the paths. Each
    /// removal that failed (a dry run: would fail) is a warning on stderr naming its path (with `-q` too); returns the
    /// exit status: 7 when anything could not be removed, else 0 (a dry run: 0).
    @discardableResult
    func report(_ report: CacheMaintenance.Report, dryRun: Bool, limit: Int64? = nil) throws(ImgError) -> Int32 {
        for failure in report.failures {
            console.error("warning: \(dryRun ? "would not remove" : "could not remove") \(failure.path): \(failure.reason)")
        }
        // A dry run that names what the run would not remove did what it was asked.
        let status: Int32 = report.failures.isEmpty || dryRun ? 0 : ImgError.io("").exitCode
        try summarize(report, dryRun: dryRun, limit: limit)
        return status
    }

    private func summarize(_ report: CacheMaintenance.Report, dryRun: Bool, limit: Int64?) throws(ImgError) {
        if json {
            var document: [String: Any] = [
                "command": command, "dryRun": dryRun, "entries": report.entries, "bytes": report.bytes,
                "temporaries": report.temporaries, "temporaryBytes": report.temporaryBytes, "locks": report.locks,
                "paths": report.paths,
                "failed": report.failures.map { ["path": $0.path, "error": $0.reason] },
                "interrupted": report.interrupted,
            ]
            if command == "cache prune" {
                document["sizeLimit"] = limit.map { $0 as Any } ?? NSNull()
                document["remainingBytes"] = report.remainingBytes.map { $0 as Any } ?? NSNull()
            }
            return try print(document)
        }
        if verbose, !quiet { for path in report.paths { try console.printLine(path.escapingControlCharacters) } }
        var text = "\(dryRun ? "would remove" : "removed") \(Counted.of(report.entries, "entry", "entries")), "
            + ByteSize.format(report.bytes)
        if report.temporaries > 0 {
            text += "; \(Counted.of(report.temporaries, "temporary", "temporaries")), \(ByteSize.format(report.temporaryBytes))"
        }
        if report.locks > 0 { text += "; \(Counted.of(report.locks, "stale lock file", "stale lock files"))" }
        if !report.failures.isEmpty { text += "; \(report.failures.count) \(dryRun ? "would not" : "could not") be removed" }
        if let limit, let remaining = report.remainingBytes {
            text += " (total \(ByteSize.format(remaining)), limit \(ByteSize.format(limit)))"
        }
        try line(text)
    }

    /// `cache verify`: each damaged entry, then `checked N entries, all whole`.
    func verification(_ result: CacheVerifier.Result, repair: Bool) throws(ImgError) {
        let removed = result.damaged.filter(\.removed).count
        if json {
            let damaged: [[String: Any]] = result.damaged.map { ["path": $0.path, "reason": $0.reason, "removed": $0.removed] }
            return try print(["command": command, "checked": result.checked, "damaged": damaged, "repair": repair,
                                   "removed": removed,
                                   "failed": result.failures.map { ["path": $0.path, "error": $0.reason] }])
        }
        for damage in result.damaged {
            try line("\(damage.removed ? "removed" : "damaged"): \(damage.path) (\(damage.reason))")
        }
        guard repair || result.damaged.isEmpty else { return }
        try line("checked \(Counted.of(result.checked, "entry", "entries"))" + (repair ? ", removed \(removed) damaged" : ", all whole"))
    }

    /// `cache config`: the directory and the settings in effect, with where each came from.
    func configuration(directory: String, settings: CacheSettings) throws(ImgError) {
        if json {
            var ttl: Any = NSNull()
            if case .seconds(let seconds) = settings.ttl { ttl = seconds }
            return try print([
                "command": command, "directory": directory,
                "sizeLimit": settings.sizeLimit.map { $0 as Any } ?? NSNull(), "sizeLimitOrigin": Self.word(settings.sizeLimitOrigin),
                "ttl": ttl, "ttlOrigin": Self.word(settings.ttlOrigin),
                "keepQuery": settings.query.description, "keepQueryOrigin": Self.word(settings.queryOrigin),
                "failOn": settings.failOn.rawValue, "failOnOrigin": Self.word(settings.failOnOrigin),
            ])
        }
        let limit = settings.sizeLimit.map { ByteSize.format($0) } ?? "none"
        try line("directory  \(directory)")
        try line("size-limit \(limit) (\(Self.describe(settings.sizeLimitOrigin)))")
        try line("ttl        \(Self.duration(settings.ttl)) (\(Self.describe(settings.ttlOrigin)))")
        try line("keep-query \(settings.query.description) (\(Self.describe(settings.queryOrigin)))")
        try line("fail-on    \(settings.failOn.rawValue) (\(Self.describe(settings.failOnOrigin)))")
    }

    /// One JSON document on stdout: keys sorted, slashes not escaped.
    func print(_ document: [String: Any]) throws(ImgError) {
        guard let data = try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            throw .internalFailure("cannot encode the report as JSON")
        }
        try console.printLine(String(decoding: data, as: UTF8.self))
    }

    /// `14d`, `12h`, `30m`, `45s` or `never`.
    static func duration(_ ttl: TimeToLive) -> String {
        guard case .seconds(let seconds) = ttl else { return "never" }
        for (unit, size) in [("d", Int64(86_400)), ("h", 3600), ("m", 60)] where seconds > 0 && seconds % size == 0 {
            return "\(seconds / size)\(unit)"
        }
        return "\(seconds)s"
    }

    private static func describe(_ origin: CacheSettings.Origin) -> String {
        switch origin {
        case .option: "from the command line"
        case .environment: "from the environment"
        case .config: "from the directory's config"
        case .builtIn: "default"
        }
    }

    /// `option`, `environment`, `config` or `default`, for JSON.
    private static func word(_ origin: CacheSettings.Origin) -> String {
        switch origin {
        case .option: "option"
        case .environment: "environment"
        case .config: "config"
        case .builtIn: "default"
        }
    }
}

/// `1 entry`, `2 entries`.
enum Counted {
    static func of(_ count: Int, _ singular: String, _ plural: String) -> String {
        "\(count) \(count == 1 ? singular : plural)"
    }
}

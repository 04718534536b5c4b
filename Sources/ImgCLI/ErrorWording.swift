import ImgCore

extension ImgError {
    /// The message as the command line words it: a limit names the option that set it (`--max-bytes`,
    /// `--max-redirects`, `--max-frames`, `--max-pixels`, `--max-decode-memory`, `--max-render-time`), a refused
    /// private address `--deny-private-networks`, redirects over the time allowed `--timeout`, an entry not in the
    /// cache `--only-from-cache` (the only way to get one), a missing column the option that named it, a setting's
    /// problem its option (`SettingProblem`), an untrusted format `--allow-untrusted-formats`; other errors as
    /// ImgCore words them.
    var commandLineMessage: String {
        switch self {
        case .network(let text, cause: .privateAddress): return "\(text) (--deny-private-networks)"
        case .network(let text, cause: .noHeaderWithinLimit): return "\(text) (--max-bytes)"
        case .network(_, cause: .redirectsTimedOut): return "timed out: the redirects took longer than --timeout"
        case .notCached(let text): return "\(text) (--only-from-cache)"
        case .missingColumn(let missing): return missing.message(roleWords: Self.option(naming: missing.role))
        case .setting(let problem): return problem.commandLineMessage
        case .untrustedFormat(let loader, let contentType):
            return Self.untrustedFormatMessage(loader: loader, contentType: contentType,
                                               advice: "; use --allow-untrusted-formats")
        default: break
        }
        guard case .overLimit(let limit, let contentType) = self else { return message }
        let text = switch limit {
        case .bodyBytes: "body is over --max-bytes \(limit.limitText)"
        case .redirects(let limit): "too many redirects (--max-redirects \(limit))"
        case .frames(let count, let limit): "\(count) frames is over --max-frames \(limit)"
        case .pixels: "\(limit.message) (--max-pixels)"
        case .outputPixels(_, _, _, _, _, let maximum): "\(limit.excess ?? ""), over --max-pixels \(maximum)"
        case .decodeMemory: "\(limit.excess ?? ""), over --max-decode-memory \(limit.limitText)"
        case .renderTime: "rendering stopped after --max-render-time \(limit.limitText)"
        }
        return contentType.map { "\(text) (Content-Type \($0))" } ?? text
    }

    /// The option that names a column of `role`.
    static func option(naming role: ListColumnRole) -> String {
        switch role {
        case .url: "--url-column"
        case .name: "--name-column"
        case .kept: "--keep-columns"
        case .caption: "--caption-column"
        case .sha256: "--sha256-column"
        }
    }
}

/// Messages of the command line's own about what a run reported.
enum ErrorWording {
    /// `batch stopped: the output directory DIR takes no more (REASON); N lines not done, M not reached: free some
    /// space and run it again with --resume`: `notDone` lines started and not finished, `notReached` never started
    /// (nil when the list was not read whole: `later lines not reached`).
    static func outputFolderFull(_ directory: String, reason: String, notDone: Int, notReached: Int?) -> String {
        let reached = notReached.map { $0 == 0 ? "" : ", \($0) not reached" } ?? ", later lines not reached"
        return "batch stopped: the output directory \(directory) takes no more (\(reason)); "
            + "\(notDone) \(notDone == 1 ? "line" : "lines") not done\(reached): free some space and run it again with --resume"
    }
}

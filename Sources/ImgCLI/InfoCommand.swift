import Foundation
import ImgCore

/// `imgfetch info INPUT... [--json] [--facts]`: what each image is, from its header (`ImageInspector`); prints, and
/// keeps in the cache only an original it had to read whole.
enum InfoCommand {
    static func run(_ arguments: ScannedArguments, inputs: [String], environment: [String: String],
                    console: Console) -> Int32 {
        let settings: FetchSettings
        let sources: [ImageSource]
        do throws(ImgError) {
            // Only --facts decodes: without it, the fail-on level is not info's to judge.
            settings = try FetchSettings(arguments, environment: environment, console: console,
                                         decodes: arguments[Options.facts])
            guard !inputs.isEmpty else { throw .usage("info needs an input (try 'imgfetch help info')") }
            sources = try settings.sources(inputs)
        } catch {
            console.error(error.commandLineMessage)
            return error.exitCode
        }
        let reporter = Reporter(console: console, quiet: settings.quiet, verbose: settings.verbose, json: settings.json)
        let cancellation = Cancellation()
        let inspector = inspector(settings, cancellation: cancellation)
        let watch = SignalWatcher.watch(for: console) { cancellation.cancel(signal: $0) }
        defer { watch.end() }

        var worst: Int32 = 0
        var failures = 0
        for (given, source) in zip(inputs, sources) where !cancellation.isCancelled {
            let input = URLCredentials.maskingPassword(in: given)
            let record: Record
            do {
                let (info, notes) = try inspector.inspect(source)
                for note in notes { reporter.info("\(input): \(note)") }
                // As fetch warns: the answer may be another image's (FetchSettings' query-collision listener).
                if let recorded = info.recordedURL, case .remote(let url) = source {
                    console.error(QueryCollision.servedFromEntry(requested: URLCredentials.removingUserInfo(from: url),
                                                                 recorded: recorded).commandLineMessage)
                }
                record = Record(input: input, status: "ok", info: info)
            } catch {
                if cancellation.isCancelled { break }
                failures += 1
                worst = error.exitCode
                reporter.failure(input: input, error: error)
                record = Record(input: input, status: "error",
                                error: Reporter.ErrorRecord(kind: error.kind, exit: error.exitCode, message: error.commandLineMessage))
            }
            // Without stdout the reports of later inputs can't be given either: stop here.
            do throws(ImgError) {
                if settings.json {
                    try reporter.emit(record)
                } else if let info = record.info, !settings.quiet {
                    // -q: nothing but errors (and the exit status), as for cache inspect -q.
                    try console.printLine(text(input: input, info))
                }
            } catch {
                console.error(error.commandLineMessage)
                return error.exitCode
            }
        }
        if let status = Interruption.exitStatus(of: cancellation, console: console) { return status }
        if failures == 0 { return 0 }
        return inputs.count == 1 ? worst : 1
    }

    /// The inspector of `settings`: their network and decoding limits and cache, without a progress bar; with
    /// `--no-cache` nothing is looked up or kept.
    private static func inspector(_ settings: FetchSettings, cancellation: Cancellation) -> ImageInspector {
        var network = settings.configuration.network
        network.cancellation = cancellation
        network.progress = nil
        let cacheDirectory = settings.configuration.policy.noCache ? nil : settings.configuration.cacheDirectory
        var inspector = ImageInspector(network: network, decoding: settings.template.decoding,
                                       cacheDirectory: cacheDirectory, facts: settings.template.facts)
        if cacheDirectory != nil { inspector.cacheRoot = settings.configuration.cacheRoot }
        inspector.onlyFromCache = settings.configuration.policy.onlyFromCache
        inspector.ttl = settings.configuration.ttl
        inspector.sizeLimit = settings.configuration.sizeLimit
        inspector.query = settings.template.query
        inspector.cacheKey = settings.template.cacheKey
        return inspector
    }

    /// One `--json` record: `input` and `status`, then the `ImageInfo` fields, or `error`.
    struct Record: Encodable {
        var input: String
        var status: String
        var info: ImageInfo?
        var error: Reporter.ErrorRecord?

        private enum CodingKeys: String, CodingKey { case input, status, error }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(input, forKey: .input)
            try container.encode(status, forKey: .status)
            try container.encodeIfPresent(error, forKey: .error)
            try info?.encode(to: encoder)
        }
    }

    /// The report without `--json`: the input, then one `name: value` line a topic. Every field is escaped
    /// (`escapingControlCharacters`): a server's ETag, Content-Type or Last-Modified, the input and the ICC
    /// description reach the terminal as text, never as control sequences.
    static func text(input: String, _ info: ImageInfo) -> String {
        var lines = ["\(input):"]
        lines.append("  format: \(info.format ?? "unknown")")
        lines.append("  size: \(info.width)x\(info.height) (stored \(info.storedWidth)x\(info.storedHeight), orientation \(info.orientation))")
        var frames = "  frames: \(info.frames)"
        if let loop = info.loop { frames += ", loop \(loop == 0 ? "forever" : "\(loop) times")" }
        if let delays = info.delays { frames += ", delays \(delays.map(String.init).joined(separator: " ")) ms" }
        lines.append(frames)
        lines.append("  colour: \(info.colorSpace), \(info.bitsPerSample) bits per sample, \(info.bands) bands, "
                     + (info.hasAlpha ? "alpha" : "no alpha"))
        let profile = info.hasIccProfile ? (info.iccProfile.map { "\"\($0)\"" } ?? "(no description)") : "none"
        lines.append("  ICC profile: \(profile)")
        lines.append("  metadata: EXIF \(info.hasExif ? "yes" : "no"), XMP \(info.hasXmp ? "yes" : "no")")
        lines.append("  file size: \(info.fileSize.map { "\($0) bytes" } ?? "unknown")")
        if info.requests != nil || info.cacheState != nil {
            // A remote input: what was asked, and what the cache held (not read with --no-cache).
            let state = info.cacheState ?? "not read (--no-cache)"
            var http = "  http: " + (info.httpStatus.map(String.init) ?? "no request")
            if let type = info.contentType { http += ", \(type)" }
            if let etag = info.etag { http += ", ETag \(etag)" }
            if let date = info.lastModified { http += ", Last-Modified \(date)" }
            lines.append(http)
            let requests = info.requests ?? 0
            lines.append("  cache: \(state); \(info.bytesRead ?? 0) bytes read in \(requests) request\(requests == 1 ? "" : "s")")
        }
        if let facts = info.facts {
            lines.append("  facts: \(facts.text)")
        }
        return lines.map(\.escapingControlCharacters).joined(separator: "\n")
    }
}

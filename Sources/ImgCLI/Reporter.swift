import Foundation
import ImgCore

/// Prints what happened: errors and warnings on stderr, `-v` details on stderr, `--json` objects on stdout.
struct Reporter: Sendable {
    /// Where it prints.
    var console: Console
    var quiet = false
    var verbose = false
    var json = false

    /// One JSON object per input, as `--json` documents it.
    struct Record: Encodable {
        var input: String
        var output: String?
        /// `batch --output-format webdataset`: the image's name in the tar `output`.
        var member: String?
        var status: String
        var source: String?
        var bytes: Int?
        var width: Int?
        var height: Int?
        var format: String?
        /// `--quality auto` and `--format auto`: the quality chosen and the Butteraugli distance measured at it.
        var quality: Int?
        var distance: Double?
        var ms: Int
        var url: String?
        var variant: String?
        /// True (with `damage`, the decoder's message) for a result made under `--fail-on none` from a damaged input.
        var damaged: Bool?
        var damage: String?
        var error: ErrorRecord?
        /// `--facts`.
        var blurhash: String?
        var thumbhash: String?
        var dominantColor: String?
        var phash: String?
        /// `batch --facts`: the earlier line this one's phash is near, and `duplicate` when it was not written.
        var duplicateOf: String?
        var skipped: String?
        /// True, with the URL the entry records (`recordedURL`), when a cache entry recorded for a URL with another
        /// query served it (the key drops the query).
        var queryDiffers: Bool?
        var recordedURL: String?
        /// `batch`: why a line was `filtered`, `opted_out` or `robots_disallowed`.
        var reason: String?
        /// `batch`: the `X-Robots-Tag` directive that opted a line out.
        var directive: String?
        /// `batch --robots-txt`: the robots.txt rule that disallowed a line.
        var rule: String?
        /// `batch --output-format webdataset`: true on a `skipped` record of a line counted in a tar that could not be
        /// written (its sample or its record); the line's earlier record no longer counts.
        var withdrawsOK: Bool?
        /// `batch --keep-columns`: the row's kept columns.
        var columns: [String: ColumnValue]?
        /// `batch`: the item's line in the list (1-based, counting blank and comment lines), as in the manifest.
        var line: Int?
        /// `batch` with several lists: the item's list and its line there, as in the manifest.
        var list: String?
        var listLine: Int?

        /// The record of a success; `url` and `variant` are a batch's.
        static func ok(input: String, output: String?, response: ImageResponse, milliseconds: Int, url: String? = nil,
                       variant: String? = nil) -> Record {
            let facts = response.image.facts
            return Record(input: input, output: output, status: "ok", source: response.source.rawValue,
                          bytes: response.image.bytes.count, width: response.image.width, height: response.image.height,
                          format: response.image.format?.rawValue, quality: response.image.chosen?.quality,
                          distance: response.image.chosen?.distance, ms: milliseconds, url: url, variant: variant,
                          damaged: response.image.damage.map { _ in true }, damage: response.image.damage,
                          blurhash: facts?.blurhash, thumbhash: facts?.thumbhash, dominantColor: facts?.dominantColor,
                          phash: facts?.phash, queryDiffers: response.queryDiffers ? true : nil,
                          recordedURL: response.recordedURL)
        }

        /// The record of a failure; `url` and `variant` are a batch's.
        static func failed(input: String, error: ImgError, milliseconds: Int, url: String? = nil, variant: String? = nil) -> Record {
            Record(input: input, output: nil, status: "error", ms: milliseconds, url: url, variant: variant,
                   error: ErrorRecord(kind: error.kind, exit: error.exitCode, message: error.commandLineMessage))
        }
    }

    struct ErrorRecord: Encodable {
        var kind: String
        var exit: Int32
        var message: String
    }

    func warning(_ text: String) {
        guard !quiet else { return }
        console.standardError.writeIgnoringFailure("imgfetch: warning: \(text.escapingControlCharacters)\n")
    }

    func info(_ text: String) {
        guard verbose else { return }
        console.standardError.writeIgnoringFailure("\(text.escapingControlCharacters)\n")
    }

    /// Warnings, and with `-v` the details, of one success on stderr.
    func success(input: String, output: String?, response: ImageResponse, milliseconds: Int) {
        for warning in response.warnings { self.warning("\(input): \(warning)") }
        guard verbose else { return }
        var line = "\(input): \(response.source.rawValue), \(response.image.format?.rawValue ?? "?") "
        line += "\(response.image.width ?? 0)x\(response.image.height ?? 0), \(response.image.bytes.count) bytes, \(milliseconds) ms"
        if let output { line += " -> \(output)" }
        info(line)
        if let key = response.originalKey { info("  original key: \(key)") }
        if let key = response.variantKey { info("  variant key:  \(key)") }
        if let damage = response.image.damage { info("  damaged: \(damage) (decoded as far as it goes: --fail-on none)") }
        if let facts = response.image.facts {
            info("  facts: \(facts.text)")
        }
        if let chosen = response.image.chosen {
            info("  chosen: \(response.image.format?.rawValue ?? "?") q=\(chosen.quality), Butteraugli distance \(chosen.distance)")
        }
        for note in response.notes { info("  note: \(note)") }
        for ignored in response.ignoredSettings { info("  note: \(ignored.commandLineMessage)") }
        info("  libvips: \(VipsRuntime.wasStarted ? "started (vector path \(VipsRuntime.vectorPath.rawValue))" : "not started"), libcurl: \(HTTPLoader.wasLoaded ? "loaded" : "not loaded")")
    }

    /// One failure on stderr: `imgfetch: INPUT: MESSAGE [KIND, exit N]`.
    func failure(input: String, error: ImgError) {
        console.error("\(input): \(error.commandLineMessage) [\(error.kind), exit \(error.exitCode)]")
    }

    /// Writes one `--json` record on stdout.
    func emit<T: Encodable>(_ value: T) throws(ImgError) {
        guard let data = Reporter.jsonLine(value) else { return }
        do {
            try console.standardOutput.write(data)
        } catch {
            throw error.error
        }
    }

    /// One `--json` object and a newline: keys sorted, slashes not escaped.
    static func jsonLine<T: Encodable>(_ value: T) -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // What a terminal would act on (a C1 control, a right-to-left override in a URL or header) is escaped.
        guard var data = (try? encoder.encode(value))?.escapingTerminalControlsInJSON else { return nil }
        data.append(0x0A)
        return data
    }

    /// A progress callback that redraws one line on stderr, at most ten times a second, fitting the terminal.
    func progressBar(label: String) -> @Sendable (Int64, Int64?) -> Void {
        let line = ProgressLine(on: console.standardError)
        return { received, total in
            let elapsed = line.elapsed
            guard elapsed > 0.1 else { return }
            line.draw { ProgressLine.download(label: label, received: received, total: total, elapsed: elapsed, columns: $0) }
        }
    }

    func clearProgress() {
        console.standardError.writeIgnoringFailure("\r\u{1B}[K")
    }
}

extension ImageFacts {
    /// The facts as `-v` and `info` print them: `blurhash …, thumbhash …, dominant colour …, phash …`.
    var text: String { "blurhash \(blurhash), thumbhash \(thumbhash), dominant colour \(dominantColor), phash \(phash)" }
}

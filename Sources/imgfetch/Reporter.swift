import Foundation
import ImgCore

/// Prints what happened: errors and warnings on stderr, `-v` details on stderr, `--json` objects on stdout.
struct Reporter: Sendable {
    var quiet = false
    var verbose = false
    var json = false

    /// One JSON object per input, as `--json` documents it.
    struct Record: Encodable {
        var input: String
        var output: String?
        var status: String
        var source: String?
        var bytes: Int?
        var width: Int?
        var height: Int?
        var format: String?
        var ms: Int
        var url: String?
        var variant: String?
        var error: ErrorRecord?
    }

    struct ErrorRecord: Encodable {
        var kind: String
        var exit: Int32
        var message: String
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data("imgfetch: \(text)\n".utf8))
    }

    func warning(_ text: String) {
        guard !quiet else { return }
        FileHandle.standardError.write(Data("imgfetch: warning: \(text)\n".utf8))
    }

    func info(_ text: String) {
        guard verbose else { return }
        FileHandle.standardError.write(Data("\(text)\n".utf8))
    }

    func success(input: String, output: String?, response: ImageResponse, milliseconds: Int, variant: String? = nil,
                 json: Bool? = nil) {
        for warning in response.warnings { self.warning("\(input): \(warning)") }
        if verbose {
            var line = "\(input): \(response.source.rawValue), \(response.data.format?.rawValue ?? "?") "
            line += "\(response.data.width ?? 0)x\(response.data.height ?? 0), \(response.data.bytes.count) bytes, \(milliseconds) ms"
            if let output { line += " -> \(output)" }
            info(line)
            if let key = response.originalKey { info("  original key: \(key)") }
            if let key = response.variantKey { info("  variant key:  \(key)") }
            for note in response.notes { info("  note: \(note)") }
            info("  libvips: \(VipsRuntime.wasStarted ? "started" : "not started"), libcurl: \(HTTPLoader.wasLoaded ? "loaded" : "not loaded")")
        }
        if json ?? self.json {
            emit(Record(input: input, output: output, status: "ok", source: response.source.rawValue,
                        bytes: response.data.bytes.count, width: response.data.width, height: response.data.height,
                        format: response.data.format?.rawValue, ms: milliseconds, url: variant == nil ? nil : input, variant: variant))
        }
    }

    func failure(input: String, error: ImgError, milliseconds: Int, variant: String? = nil) {
        Reporter.error("\(input): \(error.message) [\(error.kind), exit \(error.exitCode)]")
        if json {
            emit(Record(input: input, output: nil, status: "error", ms: milliseconds, url: variant == nil ? nil : input, variant: variant,
                        error: ErrorRecord(kind: error.kind, exit: error.exitCode, message: error.message)))
        }
    }

    func emit<T: Encodable>(_ value: T) {
        guard let data = Reporter.jsonLine(value) else { return }
        FileHandle.standardOutput.write(data)
    }

    /// One `--json` object and a newline: keys sorted, slashes not escaped.
    static func jsonLine<T: Encodable>(_ value: T) -> Data? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var data = try? encoder.encode(value) else { return nil }
        data.append(0x0A)
        return data
    }

    /// A progress callback that redraws one line on stderr, at most ten times a second.
    static func progressBar(label: String) -> @Sendable (Int64, Int64?) -> Void {
        let start = Date()
        return { received, total in
            let elapsed = Date().timeIntervalSince(start)
            guard elapsed > 0.1 else { return }
            var line = "\r\u{1B}[K\(label) \(ByteSize.format(received))"
            if let total, total > 0 {
                let fraction = min(1, Double(received) / Double(total))
                let filled = Int(fraction * 20)
                line += " / \(ByteSize.format(total)) [" + String(repeating: "#", count: filled) + String(repeating: ".", count: 20 - filled) + "]"
            }
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    static func clearProgress() {
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
    }
}

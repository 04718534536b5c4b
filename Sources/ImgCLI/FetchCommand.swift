import Foundation
import ImgCore
import ImgRenderer

/// `imgfetch [fetch] INPUT... [options]`: one pipeline, each input in turn, outputs written whole.
enum FetchCommand {
    static func run(_ arguments: ScannedArguments, inputs: [String], environment: [String: String],
                    console: Console) -> Int32 {
        var settings: FetchSettings
        // The warm renderer: fetch's alone (batch renders in its own process, where libvips' start is paid once).
        let renderer: RendererSettings
        let sources: [ImageSource]
        // -O DIR, opened once: the names made up in it are resolved relative to it.
        let folder: OutputFolder?
        do throws(ImgError) {
            settings = try FetchSettings(arguments, environment: environment, console: console)
            renderer = try RendererSettings(arguments, environment: environment)
            guard !inputs.isEmpty else { throw .usage("no input given (try 'imgfetch --help')") }
            // One key for several inputs would give every output the first image.
            sources = try settings.sources(inputs)
            settings.leaveCacheAloneIfNothingCanBeRead(sources)
            folder = try checkOutputs(settings, inputCount: inputs.count)
        } catch {
            console.error(error.commandLineMessage)
            return error.exitCode
        }
        let reporter = Reporter(console: console, quiet: settings.quiet, verbose: settings.verbose, json: settings.json)
        let cancellation = Cancellation()
        settings.configuration.network.cancellation = cancellation
        if let client = renderer.client { settings.configuration.rendering = WarmRendering(client: client) }
        let watch = SignalWatcher.watch(for: console) { cancellation.cancel(signal: $0) }
        defer { watch.end() }
        let pipeline: ImagePipeline
        switch settings.openPipeline() {
        case .success(let opened): pipeline = opened
        case .failure(let error): return error.exitCode
        }
        // Inputs that differ only in the query their key drops are named before anything is downloaded.
        for source in sources {
            var request = settings.template
            request.source = source
            _ = try? pipeline.originalKey(for: request)
        }
        var naming = OutputNaming()
        var worst: Int32 = 0
        var failures = 0
        for (given, source) in zip(inputs, sources) where !cancellation.isCancelled {
            guard let outcome = fetch(given, source: source, pipeline: pipeline, settings: settings, folder: folder,
                                      naming: &naming, reporter: reporter, cancellation: cancellation) else { break }
            if let status = outcome.failure { (failures, worst) = (failures + 1, status) }
            if settings.json {
                // Without stdout the reports of later inputs can't be given either: stop here.
                do throws(ImgError) {
                    try reporter.emit(outcome.record)
                } catch {
                    console.error(error.commandLineMessage)
                    return error.exitCode
                }
            }
        }
        if let status = Interruption.exitStatus(of: cancellation, console: console) { return status }
        settings.cleanCacheIfDue()
        if let said = renderer.startIfUseful(saying: reporter.verbose) { reporter.info(said) }
        if failures == 0 { return 0 }
        return inputs.count == 1 ? worst : 1
    }

    /// One input made, written and reported: its `--json` record and, for a failure, its exit status. Nil when an
    /// interrupt came while it was being made: nothing more is written.
    private static func fetch(_ given: String, source: ImageSource, pipeline: ImagePipeline, settings: FetchSettings,
                              folder: OutputFolder?, naming: inout OutputNaming, reporter: Reporter,
                              cancellation: Cancellation) -> (record: Reporter.Record, failure: Int32?)? {
        let started = Date()
        // Messages, -v and --json name the input with its password hidden.
        let input = URLCredentials.maskingPassword(in: given)
        var request = settings.template
        request.source = source
        do {
            let response = try pipeline.image(for: request)
            if settings.showProgress { reporter.clearProgress() }
            let (output, name) = try destination(for: source, response: response, settings: settings, naming: &naming)
            // Interrupted while this one was being made: write nothing more.
            if cancellation.isCancelled { return nil }
            if let folder, let name {
                try folder.write(response.image.data, as: name, shownAs: output)
            } else {
                try OutputWriter.write(response.image.data, to: output, cancellation: cancellation,
                                      standardOutput: reporter.console.standardOutput)
            }
            reporter.success(input: input, output: output, response: response, milliseconds: milliseconds(since: started))
            return (.ok(input: input, output: output, response: response, milliseconds: milliseconds(since: started)), nil)
        } catch {
            if settings.showProgress { reporter.clearProgress() }
            if cancellation.isCancelled { return nil }
            reporter.failure(input: input, error: error)
            return (.failed(input: input, error: error, milliseconds: milliseconds(since: started)), error.exitCode)
        }
    }

    /// Refuses combinations that can't work before anything is fetched; opens -O DIR.
    private static func checkOutputs(_ settings: FetchSettings, inputCount: Int) throws(ImgError) -> OutputFolder? {
        if settings.outputFile != nil, settings.outputDirectory != nil { throw .usage("give -o FILE or -O DIR, not both") }
        if let file = settings.outputFile, inputCount > 1, file != "-" || settings.json {
            throw .usage("-o names one file but \(inputCount) inputs were given; use -O DIR")
        }
        if settings.json, settings.outputFile == nil || settings.outputFile == "-", settings.outputDirectory == nil {
            throw .usage("--json prints reports on stdout: the image needs -o FILE or -O DIR")
        }
        let standardOutput = settings.console.standardOutput
        if settings.json, let file = settings.outputFile, file != "-", standardOutput.isSameStream(as: file) {
            throw .usage("--json prints reports on stdout, which -o \(file) is too: the image needs another -o FILE or -O DIR")
        }
        if settings.outputFile == nil, settings.outputDirectory == nil, standardOutput.isTerminal {
            throw .usage("refusing to write an image to a terminal; use -o FILE or -O DIR")
        }
        let imageToStandardOutput = settings.outputDirectory == nil && (settings.outputFile ?? "-") == "-"
        if imageToStandardOutput, !standardOutput.isWritable {
            throw .io("cannot write to standard output: it is closed (or open for reading only); use -o FILE or -O DIR")
        }
        if let file = settings.outputFile { try OutputWriter.check(file) }
        return try settings.outputDirectory.map { directory throws(ImgError) in try OutputWriter.prepareDirectory(directory) }
    }

    private static func destination(for source: ImageSource, response: ImageResponse, settings: FetchSettings,
                                    naming: inout OutputNaming) throws(ImgError) -> (path: String, nameInFolder: String?) {
        if let file = settings.outputFile { return (file, nil) }
        guard let directory = settings.outputDirectory else { return ("-", nil) }
        let format = response.image.format ?? ImageFormat.sniff(response.image.data) ?? .png
        let name = naming.claim(stem: OutputNaming.baseName(for: source), fileExtension: format.fileExtension)
        return ("\(directory)/\(name)", name)
    }

    static func milliseconds(since start: Date) -> Int { Int(Date().timeIntervalSince(start) * 1000) }
}

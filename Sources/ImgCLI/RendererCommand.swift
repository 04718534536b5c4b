import Foundation
import ImgCore
import ImgRenderer

/// `imgfetch renderer serve|start|stop|status`: the warm renderer that keeps libvips loaded for one-off commands
/// (opt-in: nothing starts it unless asked).
enum RendererCommand {
    /// Its subcommands, as `CommandName` lists them.
    static var subcommands: [String] { CommandName.subcommands(of: CommandName.rendererServe.word) }

    static func run(_ arguments: ScannedArguments, words: [String], environment: [String: String],
                    console: Console) -> Int32 {
        do throws(ImgError) {
            let command = try Self.command(words)
            // Only what the command reads: a bad IMGFETCH_RENDERER or _IDLE must not stop a stop or a status.
            let address = RendererAddress.current(environment: environment)
            let client = RendererClient(address: address)
            let quiet = arguments[Options.quiet]
            switch command {
            case .rendererServe:
                let idleLimit = try RendererSettings.idleLimit(arguments, environment: environment)
                let server = RendererServer(address: address, idleLimit: idleLimit)
                // SIGTERM (systemctl stop) and SIGINT end it as `renderer stop` does: its socket file goes with it.
                let watch = SignalWatcher.watch(for: console) { _ in server.stop() }
                defer { watch.end() }
                if try !server.serve(), !quiet { try console.printLine("a renderer is already running at \(address)") }
            case .rendererStart:
                let idleLimit = try RendererSettings.idleLimit(arguments, environment: environment)
                let line = try RendererStart.start(client, idleLimit: idleLimit)
                if !quiet { try console.printLine(line) }
            case .rendererStop:
                try stop(client, quiet: quiet, console: console)
            default: // .rendererStatus
                try client.checkDirectory()
                let sightings = client.survey()
                if arguments[Options.json] {
                    try console.printLine(json(sightings))
                } else {
                    for sighting in sightings { try console.printLine(describe(sighting)) }
                    if sightings.isEmpty { try console.printLine("not running") }
                }
            }
            return 0
        } catch {
            console.error(error.commandLineMessage)
            return error.exitCode
        }
    }

    /// The subcommand `words` name, worded as `cache` words them: none, an unknown one (with the one meant, if
    /// near), or one given more words (every subcommand takes none) is a usage error.
    private static func command(_ words: [String]) throws(ImgError) -> CommandName {
        let command = try CommandName.named(CommandName.rendererServe.word, subcommandIn: words)
        if words.count > 1 {
            throw .usage("renderer \(words[0]) takes no arguments, got '\(words[1])'")
        }
        return command
    }

    /// `renderer stop`: stops every renderer of this user, and returns once they have exited.
    private static func stop(_ client: RendererClient, quiet: Bool, console: Console) throws(ImgError) {
        try client.checkDirectory()
        let stopped = client.stop()
        if !quiet {
            for sighting in stopped {
                try console.printLine("stopping: pid \(sighting.process)" + (sighting.isThisBuild ? "" : sighting.isOfThisPath ? " (an older build)" : " (at \(sighting.address))")
                                       + (sighting.status == nil ? ", sent SIGTERM: it did not answer" : ""))
            }
            if stopped.isEmpty { try console.printLine("not running") }
        }
        // It returns once they have exited, so that a `renderer start` or an upgrade right after finds none.
        let running = RendererClient.waitForExit(of: stopped.map(\.process))
        for sighting in stopped where !quiet && !running.contains(sighting.process) {
            try console.printLine("stopped: pid \(sighting.process)")
        }
        if !running.isEmpty {
            throw .internalFailure("still stopping after 10 s: pid "
                                   + running.map(String.init).joined(separator: ", ") + " ('renderer status' says when it ends)")
        }
    }

    private static func describe(_ sighting: RendererSighting) -> String {
        let build = sighting.isThisBuild ? "" : sighting.isOfThisPath ? "older build " : "other socket "
        guard let status = sighting.status else {
            return "\(build)running but not answering: pid \(sighting.process), at \(sighting.address)"
                + (sighting.listening ? "" : RendererStart.notListening(at: sighting.address))
        }
        return "\(build)running: pid \(status.process), version \(status.version), up \(Int(status.uptime)) s, "
            + "\(status.renderings) renderings, \(status.active - 1) other connections, "
            + "exits after \(status.idleLimit.canonicalText) s idle, at \(sighting.address)"
            + (sighting.isThisBuild ? "" : ", executable \(status.executable ?? "?")")
    }

    /// This build's renderer's status (`running`), and every renderer of the path under `renderers`.
    private static func json(_ sightings: [RendererSighting]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func object(_ status: RendererStatus?) -> String {
            (status.flatMap { try? encoder.encode($0) }).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        }
        func quoted(_ text: String) -> String {
            (try? encoder.encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
        }
        let renderers = sightings.map { sighting in
            "{\"address\":\(quoted(sighting.address.path)),\"answering\":\(sighting.status != nil),"
                + "\"listening\":\(sighting.listening),"
                + "\"process\":\(sighting.process),\"this_build\":\(sighting.isThisBuild)}"
        }.joined(separator: ",")
        let current = sightings.first { $0.isThisBuild }
        var fields = ["\"running\":\(current != nil)"]
        if let status = current?.status { fields.append(String(object(status).dropFirst().dropLast())) }
        fields.append("\"renderers\":[" + renderers + "]")
        return "{" + fields.joined(separator: ",") + "}"
    }
}

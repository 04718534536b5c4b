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
            guard words.count == 1, let subcommand = words.first,
                  let command = CommandName(word: CommandName.rendererServe.word, subcommand: subcommand) else {
                if words.count == 1, let meant = CommandName.nearest(to: words[0], among: subcommands) {
                    throw .usage("unknown renderer command '\(words[0])'; did you mean '\(meant)'?")
                }
                throw .usage("renderer needs one command: \(subcommands.joined(separator: ", "))")
            }
            let settings = try RendererSettings(arguments, environment: environment)
            let client = RendererClient(address: settings.address)
            let quiet = arguments[Options.quiet]
            switch command {
            case .rendererServe:
                let server = RendererServer(address: settings.address, idleLimit: settings.idleLimit)
                // SIGTERM (systemctl stop) and SIGINT end it as `renderer stop` does: its socket file goes with it.
                let watch = SignalWatcher.watch(for: console) { _ in server.stop() }
                defer { watch.end() }
                if try !server.serve(), !quiet { try console.printLine("a renderer is already running at \(settings.address)") }
            case .rendererStart:
                let line = try start(client, idleLimit: settings.idleLimit)
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

    /// `renderer start`: starts one unless one runs (holds the address's lock), then waits (5 s at most) until one
    /// holds it, so that of several starts at once only the one whose renderer won says `started`, the others
    /// `already running` with the winner's pid.
    private static func start(_ client: RendererClient, idleLimit: Double) throws(ImgError) -> String {
        try client.checkDirectory(create: true)
        if let running = client.runningProcess() { return alreadyRunning(running, client) }
        guard let process = RendererLauncher.startDetached(idleLimit: idleLimit) else {
            throw .internalFailure("cannot start the renderer")
        }
        let started = "started: pid \(process), exits after \(Int(idleLimit)) s idle"
        let alive = { !RendererClient.waitForExit(of: [process], within: 0).isEmpty }
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            // The winner may have just taken the lock and not be listening yet: its pid is the answer.
            if let holder = client.runningProcess(), holder > 0 {
                return holder == process ? started : "already running: pid \(holder)"
            }
            if !alive() { break }
            usleep(10_000)
        }
        if let holder = client.runningProcess(), holder > 0, holder != process { return "already running: pid \(holder)" }
        guard alive() else { throw .internalFailure("cannot start the renderer: pid \(process) exited at once") }
        return started
    }

    /// `already running: pid N`, and why it does not answer when it doesn't.
    private static func alreadyRunning(_ holder: Int32, _ client: RendererClient) -> String {
        if let status = client.status() { return "already running: pid \(status.process)" }
        let process = holder > 0 ? "pid \(holder)" : "starting"
        guard holder > 0, client.connect() == nil else { return "already running: \(process), not answering" }
        return "already running: \(process), not answering (its socket file is gone; 'renderer stop' ends it)"
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
                + (sighting.listening ? "" : " (its socket file is gone; 'renderer stop' ends it)")
        }
        return "\(build)running: pid \(status.process), version \(status.version), up \(Int(status.uptime)) s, "
            + "\(status.renderings) renderings, \(status.active - 1) other connections, "
            + "exits after \(Int(status.idleLimit)) s idle, at \(sighting.address)"
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

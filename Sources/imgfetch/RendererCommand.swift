import Foundation
import ImgCore

/// `imgfetch renderer serve|start|stop|status`: the warm renderer that keeps libvips loaded for one-off commands.
enum RendererCommand {
    static let subcommands = ["serve", "start", "stop", "status"]

    static func run(_ arguments: ScannedArguments, words: [String], environment: [String: String]) -> Int32 {
        do throws(ImgError) {
            guard words.count == 1, let subcommand = words.first, subcommands.contains(subcommand) else {
                if words.count == 1, let meant = CommandName.nearest(to: words[0], among: subcommands) {
                    throw .usage("unknown renderer command '\(words[0])'; did you mean '\(meant)'?")
                }
                throw .usage("renderer needs one command: \(subcommands.joined(separator: ", "))")
            }
            let settings = try RendererSettings(arguments, environment: environment)
            let client = RendererClient(address: settings.address)
            let quiet = arguments.has("quiet")
            switch subcommand {
            case "serve":
                let server = RendererServer(address: settings.address, idleLimit: settings.idleLimit)
                if try !server.serve(), !quiet { try Reporter.printLine("a renderer is already running at \(settings.address)") }
            case "start":
                if let status = client.status() {
                    if !quiet { try Reporter.printLine("already running: pid \(status.process)") }
                } else if let process = RendererLauncher.startDetached(idleLimit: settings.idleLimit) {
                    if !quiet { try Reporter.printLine("started: pid \(process), exits after \(Int(settings.idleLimit)) s idle") }
                } else {
                    throw .internalFailure("cannot start the renderer")
                }
            case "stop":
                if let process = client.stop() {
                    if !quiet { try Reporter.printLine("stopping: pid \(process)") }
                } else if !quiet {
                    try Reporter.printLine("not running")
                }
            default:
                if let status = client.status() {
                    try Reporter.printLine(arguments.has("json") ? json(status) : describe(status, address: settings.address))
                } else {
                    try Reporter.printLine(arguments.has("json") ? "{\"running\":false}" : "not running")
                }
            }
            return 0
        } catch {
            Reporter.error(error.message)
            return error.exitCode
        }
    }

    private static func describe(_ status: RendererStatus, address: RendererAddress) -> String {
        "running: pid \(status.process), version \(status.version), up \(Int(status.uptime)) s, "
            + "\(status.renderings) renderings, \(status.active - 1) other connections, "
            + "exits after \(Int(status.idleLimit)) s idle, at \(address)"
    }

    private static func json(_ status: RendererStatus) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let body = (try? encoder.encode(status)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "{\"running\":true," + body.dropFirst()
    }
}

import ImgCore
import ImgRenderer

/// Whether and how the warm renderer is used: `--renderer auto|off` (else `IMGFETCH_RENDERER`, else off) and
/// `--idle SECONDS` (else `IMGFETCH_RENDERER_IDLE`, else 300).
struct RendererSettings {
    /// auto (opt-in): use a running renderer, and start one after a command that had to load libvips itself.
    /// off (the default): always render in this process and never start a process.
    var enabled = false
    var idleLimit = RendererServer.defaultIdleLimit
    var address: RendererAddress

    init(_ arguments: ScannedArguments, environment: [String: String]) throws(ImgError) {
        address = RendererAddress.current(environment: environment)
        // An error names where the bad value came from: the option, else the variable.
        enabled = try Self.pick(Options.renderer, arguments, environment, "IMGFETCH_RENDERER") ?? enabled
        idleLimit = try Self.idleLimit(arguments, environment: environment)
        if !enabled, try arguments[Options.idle] != nil {
            throw .usage("--idle applies with --renderer auto (it would do nothing)")
        }
    }

    /// `--idle`, else `IMGFETCH_RENDERER_IDLE`, else 300 s: all `renderer start` and `serve` read.
    static func idleLimit(_ arguments: ScannedArguments, environment: [String: String]) throws(ImgError) -> Double {
        try pick(Options.idle, arguments, environment, "IMGFETCH_RENDERER_IDLE") ?? RendererServer.defaultIdleLimit
    }

    /// The option's value, else the variable's when not empty (read by the option's parser, an error naming the
    /// variable; an empty one is unset, as for the cache's variables), else nil.
    private static func pick<Value>(_ option: Option<Value>, _ arguments: ScannedArguments, _ environment: [String: String],
                                    _ variable: String) throws(ImgError) -> Value? {
        if let value = try arguments[option] { return value }
        guard let text = environment[variable], !text.isEmpty else { return nil }
        return try option.parser.parse(text, variable)
    }

    /// The client the pipeline hands renderings to; nil when off.
    var client: RendererClient? { enabled ? RendererClient(address: address) : nil }

    /// With auto only: starts a renderer in the background when this process had to load libvips (so the next
    /// command needn't), unless one runs already (whether or not it answers). With `saying`, waits as `renderer
    /// start` does until a renderer holds the address (moments), and returns what `-v` says became of it; without,
    /// returns nil at once. Nil too when none was to be started.
    func startIfUseful(saying: Bool) -> String? {
        guard enabled, VipsRuntime.wasStarted, let client, !client.isRunning() else { return nil }
        do throws(ImgError) {
            guard saying else {
                try client.checkDirectory(create: true)
                _ = RendererLauncher.startDetached(idleLimit: idleLimit)
                return nil
            }
            let outcome = try RendererStart.start(client, idleLimit: idleLimit)
            return "renderer (--renderer auto): \(outcome)"
                + (outcome.hasPrefix("started") ? ", or with 'imgfetch renderer stop'" : "")
        } catch {
            return saying ? "no renderer started (--renderer auto): \(error.message)" : nil
        }
    }
}

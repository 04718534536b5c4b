import ImgCore
import ImgRenderer

/// Whether and how the warm renderer is used: `--renderer auto|off` (else `IMGFETCH_RENDERER`, else off) and
/// `--idle SECONDS` (else `IMGFETCH_RENDERER_IDLE`, else 300).
struct RendererSettings {
    /// auto (opt-in): use a running renderer, and start one after a command that had to load libvips itself.
    /// off (the default): always render in this process and never start a process.
    var enabled = false
    var idleLimit = 300.0
    var address: RendererAddress

    init(_ arguments: ScannedArguments, environment: [String: String]) throws(ImgError) {
        address = RendererAddress.current(environment: environment)
        // An error names where the bad value came from: the option, else the variable.
        if let (mode, name) = Self.pick(arguments.value("renderer"), "--renderer", environment, "IMGFETCH_RENDERER") {
            switch mode {
            case "auto": enabled = true
            case "off": enabled = false
            default: throw .usage("bad \(name) '\(mode)': expected auto or off")
            }
        }
        if let (value, name) = Self.pick(arguments.value("idle"), "--idle", environment, "IMGFETCH_RENDERER_IDLE") {
            idleLimit = try FetchSettings.seconds(value, shownAs: name)
        }
    }

    /// The option's value and name, else the variable's, else nil.
    private static func pick(_ option: String?, _ optionName: String, _ environment: [String: String],
                             _ variable: String) -> (String, String)? {
        if let option { return (option, optionName) }
        return environment[variable].map { ($0, variable) }
    }

    /// The client the pipeline hands renderings to; nil when off.
    var client: RendererClient? { enabled ? RendererClient(address: address) : nil }

    /// With auto only: starts a renderer in the background when this process had to load libvips (so the next
    /// command needn't), unless one runs already (whether or not it answers).
    func startIfUseful() {
        guard enabled, VipsRuntime.wasStarted, let client, !client.isRunning() else { return }
        RendererLauncher.startDetached(idleLimit: idleLimit)
    }
}

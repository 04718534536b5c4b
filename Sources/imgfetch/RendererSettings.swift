import ImgCore

/// Whether and how the warm renderer is used: `--renderer auto|off` (else `IMGFETCH_RENDERER`, else auto) and
/// `--idle SECONDS` (else `IMGFETCH_RENDERER_IDLE`, else 300).
struct RendererSettings {
    /// auto: use a running renderer, and start one after a command that had to load libvips itself.
    /// off: always render in this process and never start one.
    var enabled = true
    var idleLimit = 300.0
    var address: RendererAddress

    init(_ arguments: ScannedArguments, environment: [String: String]) throws(ImgError) {
        address = RendererAddress.current(environment: environment)
        if let mode = arguments.value("renderer") ?? environment["IMGFETCH_RENDERER"] {
            switch mode {
            case "auto": enabled = true
            case "off": enabled = false
            default: throw .usage("bad --renderer '\(mode)': expected auto or off")
            }
        }
        if let value = arguments.value("idle") ?? environment["IMGFETCH_RENDERER_IDLE"] {
            idleLimit = try FetchSettings.seconds(value, option: "idle")
        }
    }

    /// The client the pipeline hands renderings to; nil when off.
    var client: RendererClient? { enabled ? RendererClient(address: address) : nil }

    /// Starts a renderer in the background when this process had to load libvips (so the next command needn't).
    /// One that is already running makes the new one exit at once.
    func startIfUseful() {
        guard enabled, VipsRuntime.wasStarted else { return }
        RendererLauncher.startDetached(idleLimit: idleLimit)
    }
}

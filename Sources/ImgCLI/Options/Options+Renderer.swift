import ImgCore
import ImgRenderer

extension OptionCatalog {
    static let renderer = OptionGroup(title: "Renderer", options: [
        Options.renderer,
        Options.idle,
    ])
}

extension Options {
    static let renderer = Option<Bool>("renderer", value: "auto|off", parser: .choice(["auto": true, "off": false]), default: false, statesDefault: false, for: [.fetch],
                         help: "auto opts in to the warm renderer (use it, start one)",
                         man: #"""
            .B off
            (the default, or
            .BR IMGFETCH_RENDERER ):
            always render in this process; no command starts a process by itself.
            .B auto
            (opt-in):
            .B fetch
            hands each rendering whose input is in memory (at most 8 MiB) to the warm
            renderer when one is running, and starts one in the background when it had to
            load libvips itself (unless one runs already);
            .B \-v
            then says so, with its pid, its idle time (see
            .BR \-\-idle )
            and that
            .B imgfetch renderer stop
            ends it.
            .B batch
            and
            .B prefetch
            always render in their own process.
            """#)
    static let idle = Option<Double>("idle", value: "SECONDS", parser: .seconds, default: RendererServer.defaultIdleLimit, statesDefault: false, for: [.fetch, .rendererServe, .rendererStart],
                         help: "a started renderer exits after this idle time",
                         man: #"""
            How long a renderer started by this command (or by
            .BR "renderer start" / serve )
            waits without a rendering before it exits, over 0 and at most 86400;
            default 300, or
            .BR IMGFETCH_RENDERER_IDLE .
            On a fetch without
            .B \-\-renderer auto
            (or
            .BR IMGFETCH_RENDERER=auto ),
            which starts none, it is a usage error (exit 2).
            """#)
}

/// Stops a rendering from outside while it runs (the warm renderer's, when the client that asked for it has
/// gone): `stop()` marks every image of the rendering killed (`vips_image_set_kill`), as `--max-render-time`
/// does when its time runs out, so libvips stops at the next region it computes and the rendering fails at once,
/// with nothing encoded. Renderings made after `stop()` with the same token are killed as they start.
public final class RenderStop: Sendable {
    private let state = Locked<(clocks: [RenderClock], stopped: Bool)>(([], false))

    public init() {}

    /// Whether `stop()` was called.
    public var isStopped: Bool { state.withLock { $0.stopped } }

    /// Stops the rendering (and its reruns): what it returns or throws from then on is to be dropped.
    public func stop() {
        state.withLock { state in
            state.stopped = true
            for clock in state.clocks { clock.kill() }
        }
    }

    /// Takes `clock` (one run of the rendering) under this token: killed at once when stopped already.
    func join(_ clock: RenderClock) {
        state.withLock { state in
            if state.stopped { clock.kill() }
            state.clocks.append(clock)
        }
    }
}

import CVips
import Foundation

/// Bounds one rendering's time (`--max-render-time`): when it runs out, every image of the rendering is marked
/// killed (`vips_image_set_kill`), so libvips stops at the next region it computes and the rendering fails with
/// `expiredError`. The images register themselves as they are made (`DecodedImage` carries its clock). A
/// `RenderStop` kills them the same way, from outside, at any time (`kill()`).
final class RenderClock: Sendable {
    let seconds: Double
    private let state = Locked<(images: [DecodedImage], expired: Bool, killed: Bool, ended: Bool)>(([], false, false, false))
    /// The alarm, cancelled when the rendering ends: a batch's finished renderings leave no timer pending for the
    /// rest of `seconds` (with `asyncAfter`, 60 s of renderings' timers were pending at any time of a long batch).
    private let alarm: Alarm

    /// Starts the clock, under `stop` when given.
    init(seconds: Double, stop: RenderStop? = nil) {
        self.seconds = seconds
        let state = self.state
        alarm = Alarm(after: min(seconds, 86_400)) {
            state.withLock { state in
                guard !state.ended else { return }
                state.expired = true
                for image in state.images { imgf_set_kill(image.pointer, 1) }
            }
        }
        stop?.join(self)
    }

    deinit { alarm.cancel() }

    /// Kills the rendering now, whatever its time (its `RenderStop` was stopped).
    func kill() {
        state.withLock { state in
            guard !state.ended else { return }
            state.killed = true
            for image in state.images { imgf_set_kill(image.pointer, 1) }
        }
    }

    /// Whether the time ran out.
    var expired: Bool { state.withLock { $0.expired } }

    /// Whether the alarm is cancelled (the rendering ended): for tests.
    var alarmCancelled: Bool { alarm.isCancelled }

    /// Takes `image` into the rendering: killed at once when the time has run out already.
    func watch(_ image: DecodedImage) {
        state.withLock { state in
            guard !state.ended else { return }
            if state.expired || state.killed { imgf_set_kill(image.pointer, 1) }
            state.images.append(image)
        }
    }

    /// Stops the clock and lets the images go; call when the rendering ends, however it ends.
    func end() {
        state.withLock { state in
            state.ended = true
            state.images.removeAll()
        }
        alarm.cancel()
    }

    /// What a rendering that ran out of time fails with (exit 5).
    var expiredError: ImgError {
        .overLimit(.renderTime(seconds: seconds))
    }

    /// Whether `error` is a rendering that ran out of time: run again, it would only take as long again.
    static func isExpiry(_ error: ImgError) -> Bool {
        if case .overLimit(.renderTime, _) = error { true } else { false }
    }
}

/// A one-shot timer on a global queue that can be cancelled before it fires, which frees it at once.
private final class Alarm: @unchecked Sendable { // wraps a libdispatch timer source (a C dispatch_source_t), whose cancel is thread-safe
    private let source: any DispatchSourceTimer

    init(after seconds: Double, _ handler: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .now() + seconds)
        source.setEventHandler(handler: handler)
        source.resume()
    }

    func cancel() { source.cancel() }

    var isCancelled: Bool { source.isCancelled }
}

/// Seconds as the user wrote them: 60 as "60s", 0.5 as "0.5s".
enum NumberText {
    static func seconds(_ value: Double) -> String {
        value == value.rounded() && value < 1e15 ? "\(Int(value))s" : "\(value)s"
    }
}

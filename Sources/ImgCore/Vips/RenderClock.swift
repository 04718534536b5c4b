import CVips
import Foundation

/// Bounds one rendering's time (`--max-render-time`): when it runs out, every image of the rendering is marked
/// killed (`vips_image_set_kill`), so libvips stops at the next region it computes and the rendering fails with
/// `expiredError`. The images register themselves as they are made (`DecodedImage` carries its clock). A
/// `RenderStop` kills them the same way, from outside, at any time (`kill()`).
final class RenderClock: Sendable {
    let seconds: Double
    private let state = Locked<(images: [DecodedImage], expired: Bool, killed: Bool, ended: Bool)>(([], false, false, false))

    /// Starts the clock, under `stop` when given. (The alarm only holds the small state, emptied when the rendering
    /// ends.)
    init(seconds: Double, stop: RenderStop? = nil) {
        self.seconds = seconds
        let state = self.state
        DispatchQueue.global().asyncAfter(deadline: .now() + min(seconds, 86_400)) {
            state.withLock { state in
                guard !state.ended else { return }
                state.expired = true
                for image in state.images { imgf_set_kill(image.pointer, 1) }
            }
        }
        stop?.join(self)
    }

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

/// Seconds as the user wrote them: 60 as "60s", 0.5 as "0.5s".
enum NumberText {
    static func seconds(_ value: Double) -> String {
        value == value.rounded() && value < 1e15 ? "\(Int(value))s" : "\(value)s"
    }
}

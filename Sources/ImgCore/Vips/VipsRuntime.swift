import CVips
import Foundation
import Synchronization

/// Starts libvips once per process, on first use only, so that work that decodes nothing never pays for it.
public enum VipsRuntime {
    private static let startRequested = Atomic<Bool>(false)

    /// Whether anything in this process has needed libvips so far (`-v` reports it: a cache hit must not).
    public static var wasStarted: Bool { startRequested.load(ordering: .relaxed) }

    /// Runs `vips_init` exactly once (a `static let` is initialised once, thread-safely); false when it failed.
    private static let started: Bool = {
        startRequested.store(true, ordering: .relaxed)
        guard vips_init("imgfetch") == 0 else { return false }
        vips_cache_set_max(0)
        vips_leak_set(0)
        return true
    }()

    /// Makes sure libvips is running before any image call.
    static func start() throws(ImgError) {
        guard started else { throw .internalFailure("libvips failed to start: \(takeError())") }
    }

    /// The text of libvips' error buffer, cleared afterwards; trimmed to one line.
    static func takeError() -> String {
        let text = String(cString: vips_error_buffer())
        vips_error_clear()
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return lines.isEmpty ? "unknown libvips error" : lines.joined(separator: "; ")
    }
}

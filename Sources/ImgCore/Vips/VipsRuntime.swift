import CVips
import Foundation
import Synchronization

/// Starts libvips once per process, on first use only, so that work that decodes nothing never pays for it.
public enum VipsRuntime {
    private static let startRequested = Atomic<Bool>(false)

    /// Whether anything in this process has needed libvips so far (`-v` reports it: a cache hit must not).
    public static var wasStarted: Bool { startRequested.load(ordering: .relaxed) }

    /// How libvips' vector (liborc) path is kept safe beside concurrent renderings.
    public enum VectorPath: String, Sendable {
        /// libvips' calls that compile and free orc programs run under one lock (the default in imgfetch's programs).
        case serialised
        /// The program does not export that lock's entry points, so libvips runs without its vector path.
        case disabled
        /// libvips was built without liborc, or has not started.
        case absent
    }

    /// The vector path this process's libvips uses (`absent` until libvips starts). liborc 0.4.33 corrupts the heap
    /// when two threads compile or free programs at once (see `Sources/CVips/orc_guard.c`).
    public static var vectorPath: VectorPath {
        switch imgf_vips_orc_guard() {
        case IMGF_ORC_SERIALISED: return .serialised
        case IMGF_ORC_DISABLED: return .disabled
        default: return .absent
        }
    }

    /// How many orc compile and free calls went through the lock so far.
    static var guardedVectorCalls: Int { imgf_orc_guarded_calls() }

    /// Runs `vips_init` exactly once (a `static let` is initialised once, thread-safely); false when it failed.
    private static let started: Bool = {
        startRequested.store(true, ordering: .relaxed)
        var error = [CChar](repeating: 0, count: 512)
        guard imgf_vips_start("imgfetch", &error, error.count) == 0 else {
            failure.withLock { $0 = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
            return false
        }
        return true
    }()
    private static let failure = Locked("")

    /// libvips' optional modules (HEIF/AVIF, JPEG XL, PDF, ImageMagick, OpenSlide), loaded on first need only.
    private static let modulesLoaded: Int32 = imgf_vips_load_modules()

    /// Loads libvips' modules once, for formats the core library lacks.
    static func loadModules() throws(ImgError) {
        try start()
        _ = modulesLoaded
    }

    /// Prepares the environment so that libvips can later start on any thread, even in the background, and
    /// limits glibc's malloc to 1 arena (unless `MALLOC_ARENA_MAX` is set): with one arena per thread, a batch's
    /// freed decode buffers stay scattered over many arenas and peak RSS grows with the thread count and the list's
    /// length (400 real photos, 2 cores: 151 MiB with 2 arenas, 118 MiB with 1, CPU time no higher; 2,000 lines:
    /// 166 -> 118 MiB).
    /// Call first thing in `main`, while the process has a single thread (it sets `VIPSHOME` for this process).
    public static func prepareProcess() {
        imgf_limit_malloc_arenas(1)
        imgf_vips_prepare_environment()
    }

    /// Starts libvips on another thread, once, so that loading its ~118 libraries overlaps a download and
    /// cache I/O; the first image call then waits for it.
    static func startInBackground() { _ = backgroundStart }
    private static let backgroundStart: Bool = {
        backgroundFinished.enter()
        Thread.detachNewThread {
            _ = started
            backgroundFinished.leave()
        }
        return true
    }()
    private static let backgroundFinished = DispatchGroup()

    /// Waits for a start begun by `startInBackground` to finish; returns at once when none was. Call before the
    /// process exits: `exit` runs the loaded libraries' exit handlers, which must not race the loading and
    /// initialising of libvips on another thread (that corrupted the heap of a command that failed early).
    public static func waitForBackgroundStart() { backgroundFinished.wait() }

    /// Makes sure libvips is running before any image call.
    public static func start() throws(ImgError) {
        guard started else { throw .internalFailure("libvips failed to start: \(failure.withLock { $0 })") }
    }

    /// The text of libvips' error buffer, cleared afterwards (in one step, under libvips' lock); made one line that
    /// says each thing once. Within `VipsErrorScope.run` it is the rendering's own.
    static func takeError() -> String {
        var text = ""
        if let copy = imgf_error_take() {
            text = String(cString: copy)
            g_free(copy)
        }
        return VipsErrorText.oneLine(text)
    }
}

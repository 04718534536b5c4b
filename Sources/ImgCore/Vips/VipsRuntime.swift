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

    /// Prepares the environment so that libvips can later start on any thread, even in the background, and sets
    /// glibc's malloc for a batch (`mallocArenas`, `mallocMappedBlockBytes`, `mallocKeptFreeBytes`; the environment's
    /// own malloc settings win). Call first thing in `main`, while the process has a single thread (it sets
    /// `VIPSHOME` for this process).
    public static func prepareProcess() {
        imgf_tune_malloc(Int32(mallocArenas), Int32(mallocMappedBlockBytes), Int32(mallocKeptFreeBytes))
        imgf_vips_prepare_environment()
    }

    /// How many malloc arenas the threads share: four a core, at most 8 (glibc's default is 8 a core). Fewer arenas
    /// than threads make threads wait for an arena's lock (about a third of a small image's futex calls with one); a
    /// batch's threads that allocate at once (its renderings, one more than the cores, the sink helpers, one a
    /// rendering, and its workers' transfers) are four a core or more. On 2 cores, 8 arenas against 2: 7 % less CPU on
    /// small images to 200 px, 2 MiB more memory.
    static var mallocArenas: Int { mallocArenas(cores: ProcessInfo.processInfo.activeProcessorCount) }

    /// `mallocArenas` on `cores` cores.
    static func mallocArenas(cores: Int) -> Int { min(max(cores, 1) * 4, 8) }

    /// A block of this many bytes or more (default 1 MiB) that an arena has no free room for gets a mapping of its own,
    /// returned to the system when freed, instead of growing the arena. By default glibc raises this threshold to the
    /// largest block freed so far (up to 32 MiB), so a photo's decode buffers stay in an arena once freed, scattered
    /// over the arenas and kept: 400 real photos peaked at 151 MiB with 2 arenas and 118 MiB with one. With the
    /// threshold fixed and 2 arenas (2 cores) they peak at 93 MiB (111 MiB with one arena and glibc's moving threshold,
    /// the same day).
    static let mallocMappedBlockBytes = 1 << 20

    /// How much memory freed at the top of an arena it keeps for the next blocks before giving it back to the
    /// system: glibc's 128 KiB, which fixing the mapping threshold also fixes (glibc would have raised it with the
    /// mapping threshold), until the process measures a Butteraugli distance (`keepFreedMemoryForMeasuring`).
    static let mallocKeptFreeBytes = 128 << 10

    /// The trim threshold of a process that measures Butteraugli distances (a quality or format chosen by them):
    /// 8 MiB, the least that keeps a call's images for the next. With 128 KiB they were given back and came again as
    /// fresh pages that the kernel faults in and clears (page faults of 80 JPEG photos whose quality is searched:
    /// 82,000-134,000 against 9,000-14,000 with 8 MiB; 9 % more CPU). It costs up to 8 MiB an arena of resident
    /// memory, which other runs don't pay: to them it saved no CPU that rounds could show, and it let a batch's
    /// peak grow with its length (small images to 64 px: 68.6 MiB at 10,000 lines and 69.9 MiB at 40,000 with it,
    /// 65.9 and 66.4 MiB without).
    static let mallocKeptFreeBytesMeasuring = 8 << 20

    /// Raises the trim threshold to `mallocKeptFreeBytesMeasuring`, once a process (unless the environment sets it):
    /// call it when a run will measure distances, before its work starts (a Butteraugli reference calls it too).
    public static func keepFreedMemoryForMeasuring() {
        keepsFreedMemory.withLock { raised in
            guard !raised else { return }
            imgf_tune_malloc_trim(Int32(mallocKeptFreeBytesMeasuring))
            raised = true
        }
    }

    /// Whether `keepFreedMemoryForMeasuring` raised the trim threshold in this process; mirrors malloc's own
    /// process-wide setting.
    static var keepsFreedMemoryForMeasuring: Bool { keepsFreedMemory.withLock { $0 } }
    private static let keepsFreedMemory = Locked(false)

    /// Starts libvips on another thread, once, so that loading its ~118 libraries overlaps a download and
    /// cache I/O; the first image call then waits for it, and joins the thread.
    static func startInBackground() {
        backgroundStart.withLock { state in
            // No thread to be had: libvips starts on the first image call instead.
            guard case .none = state, let thread = JoinableThread(stackSize: 8 << 20, { _ = started }) else { return }
            state = .running(thread)
            backgroundRunning.store(true, ordering: .releasing)
        }
    }
    private enum BackgroundStart { case none, running(JoinableThread), joined }
    private static let backgroundStart = Locked(BackgroundStart.none)
    /// Whether `backgroundStart` is `.running`: read without its lock on every image call.
    private static let backgroundRunning = Atomic<Bool>(false)

    /// Waits for a start begun by `startInBackground` to finish, its thread ended; returns at once when none was.
    /// Call before the process exits: `exit` runs the loaded libraries' exit handlers, which must not race the
    /// loading and initialising of libvips on another thread (that corrupted the heap of a command that failed
    /// early), nor that thread's end (the destructors of its thread-specific data: `JoinableThread`).
    public static func waitForBackgroundStart() {
        backgroundStart.withLock { state in
            guard case .running(let thread) = state else { return }
            thread.join()
            state = .joined
            backgroundRunning.store(false, ordering: .releasing)
        }
    }

    /// Makes sure libvips is running before any image call (a start begun in the background: its thread joined).
    public static func start() throws(ImgError) {
        guard started else { throw .internalFailure("libvips failed to start: \(failure.withLock { $0 })") }
        if backgroundRunning.load(ordering: .acquiring) { waitForBackgroundStart() }
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

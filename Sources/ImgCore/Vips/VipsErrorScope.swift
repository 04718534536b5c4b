import CVips
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Gives each rendering libvips' messages of its own. libvips keeps one error buffer for the whole process, which
/// every thread (libvips' workers too) appends to, so a rendering that fails while another runs may read the
/// other's message. Renderings run side by side, each noting whether another ran during it; the buffer is
/// cleared when one starts alone. One that fails while another ran is run again alone (the others finish first,
/// new ones wait), with an empty buffer: its failure and message are then what they are with nothing beside it.
/// A failure is rare, so renderings keep running side by side.
enum VipsErrorScope {
    private static let gate = ReadersWriterLock()
    private static let state = Locked<(running: Int, started: UInt64)>((0, 0))

    /// Runs `body` (one rendering, which may call libvips from this thread) so that the libvips messages in the
    /// error it throws are its own. `body` must be safe to run twice; `rerunnable(error)` says whether a failure
    /// is worth running again alone (not a failure of ours that names no libvips message).
    static func run<T>(_ body: () throws(ImgError) -> T, rerunnable: (ImgError) -> Bool = { _ in true }) throws(ImgError) -> T {
        try VipsRuntime.start()
        gate.lockShared()
        let (alone, ticket) = state.withLock { state in
            let alone = state.running == 0
            // Nothing else is running: what the buffer holds is stale, and from now on it is ours.
            if alone { imgf_error_clear() }
            state.running += 1
            state.started &+= 1
            return (alone, state.started)
        }
        let outcome = Result { () throws(ImgError) -> T in try body() }
        let overlapped = state.withLock { state in
            state.running -= 1
            return !alone || state.started != ticket
        }
        gate.unlockShared()
        guard case .failure(let error) = outcome, overlapped, rerunnable(error) else { return try outcome.get() }
        gate.lockExclusive()
        defer { gate.unlockExclusive() }
        imgf_error_clear()
        return try body()
    }
}

/// A pthread readers-writer lock that prefers writers: once one waits, new readers wait behind it.
final class ReadersWriterLock: @unchecked Sendable { // owns a C pthread_rwlock_t, used only through pthread calls
    private let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)

    init() {
        var attributes = pthread_rwlockattr_t()
        pthread_rwlockattr_init(&attributes)
        pthread_rwlockattr_setkind_np(&attributes, Int32(PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP))
        pthread_rwlock_init(lock, &attributes)
        pthread_rwlockattr_destroy(&attributes)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    func lockShared() { pthread_rwlock_rdlock(lock) }
    func unlockShared() { pthread_rwlock_unlock(lock) }
    func lockExclusive() { pthread_rwlock_wrlock(lock) }
    func unlockExclusive() { pthread_rwlock_unlock(lock) }
}

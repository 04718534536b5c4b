#if canImport(Glibc)
import Glibc
#endif

/// A value guarded by a pthread mutex: `withLock` gives exclusive access to it.
///
/// Used instead of `Synchronization.Mutex`, whose Linux implementation locks with raw futex system calls that
/// ThreadSanitizer can't see, so every access made under it is reported as a race (and CI runs the concurrency tests
/// with `halt_on_error=1`). ThreadSanitizer intercepts pthread mutexes, so under it our locking is checked, not flagged.
public final class Locked<Value: Sendable>: @unchecked Sendable { // owns a C pthread_mutex_t; `value` is touched only while it is held
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    public init(_ value: Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the lock held; never call `withLock` of the same instance from inside `body`.
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

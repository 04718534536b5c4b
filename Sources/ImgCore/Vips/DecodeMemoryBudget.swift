import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Admits decodes by their estimated memory (`DecodeMemory`), so that renderings at once (`batch -j`) together
/// stay within one `--max-decode-memory`: a decode waits while those running and it would pass the limit. One
/// decode is always admitted when none runs (it was checked against the limit alone already).
public final class DecodeMemoryBudget: @unchecked Sendable { // owns a C pthread mutex and condition; `used` is touched only under the mutex
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let released = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var used: Int64 = 0

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(released, nil)
    }

    deinit {
        pthread_cond_destroy(released)
        pthread_mutex_destroy(mutex)
        released.deallocate()
        mutex.deallocate()
    }

    /// Bytes admitted and not yet released (for tests).
    var inUse: Int64 {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return used
    }

    /// Runs `body` once `bytes` fit beside the decodes running, within `limit`.
    func admitting<T>(_ bytes: Int64, limit: Int64, _ body: () throws(ImgError) -> T) throws(ImgError) -> T {
        pthread_mutex_lock(mutex)
        while used > 0, used + bytes > limit { pthread_cond_wait(released, mutex) }
        used += bytes
        pthread_mutex_unlock(mutex)
        defer {
            pthread_mutex_lock(mutex)
            used -= bytes
            pthread_cond_broadcast(released)
            pthread_mutex_unlock(mutex)
        }
        return try body()
    }
}

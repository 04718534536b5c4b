#if canImport(Glibc)
import Glibc
#endif

/// A thread its starter joins: `join` returns once the thread has ended completely, the destructors of its
/// thread-specific data included (OpenSSL's per-thread state, GLib's and libvips' per-thread buffers). A Foundation
/// `Thread` is detached: a group it leaves at the end of its body lets the waiter go on while those destructors still
/// run, and a process that then returns from `main` runs `exit`'s handlers beside them. OpenSSL's (`OPENSSL_cleanup`,
/// registered when libcurl initialises it, which a batch's first download does on a worker) frees the lock and the
/// list that an ending worker's OpenSSL destructor uses: glibc's "malloc_consolidate(): invalid chunk size" after a
/// batch's summary, or under ThreadSanitizer a SEGV in `pthread_rwlock_unlock` from `CRYPTO_THREAD_unlock` in
/// `__nptl_deallocate_tsd`.
public final class JoinableThread: Sendable {
    private let thread: pthread_t

    /// The body's closure, handed to the new thread through its one pointer argument.
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts `body` on a new thread with a stack of `stackSize` bytes; nil when no thread can be started (the
    /// process's or the system's limit on threads), `body` not run.
    public init?(stackSize: Int, _ body: @escaping @Sendable () -> Void) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
        self.thread = thread
    }

    /// Waits until the thread has ended, its thread-specific data's destructors run. Call once.
    public func join() {
        pthread_join(thread, nil)
    }
}

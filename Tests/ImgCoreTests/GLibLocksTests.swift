import CVips
import Foundation
import Testing
@testable import ImgCore

/// GLib's mutex lock and condition variable as the programs that start libvips export them
/// (`Sources/CVips/glib_locks.c`): a signal that no thread waits for makes no system call, a contended lock spins
/// before it sleeps, and both keep GLib's protocol, so that GLib's own `g_mutex_unlock` and these work together. The
/// test runner exports them as imgfetch does.
@Suite("GLib locks")
struct GLibLocksTests {
    /// A mutex, two conditions and the counts they guard, shared between the test's threads. `@unchecked Sendable`:
    /// it holds C pointers to GLib's synchronisation objects, which are made to be shared between threads; the counts
    /// are read and written under the mutex only.
    final class Shared: @unchecked Sendable {
        let mutex = UnsafeMutablePointer<GMutex>.allocate(capacity: 1)
        let notEmpty = UnsafeMutablePointer<GCond>.allocate(capacity: 1)
        let notFull = UnsafeMutablePointer<GCond>.allocate(capacity: 1)
        var queued = 0
        var total = 0
        var timedOut = false

        init() {
            g_mutex_init(mutex)
            g_cond_init(notEmpty)
            g_cond_init(notFull)
        }

        deinit {
            g_mutex_clear(mutex)
            mutex.deallocate()
            notEmpty.deallocate()
            notFull.deallocate()
        }
    }

    /// Runs `body` on `count` threads of their own (not Swift's cooperative pool, where a thread that waits for
    /// another could starve it) and waits for them all.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread.detachNewThread {
                body(index)
                group.leave()
            }
        }
        group.wait()
    }

    @Test func aSignalNoThreadWaitsForMakesNoSystemCall() {
        let shared = Shared()
        let before = imgf_glib_wakes_skipped()
        g_cond_signal(shared.notEmpty)
        g_cond_broadcast(shared.notEmpty)
        #expect(imgf_glib_wakes_skipped() - before >= 2)
    }

    /// Two producers and two consumers pass 20,000 items through a queue of at most 4: every waiter is woken by a
    /// signal (a lost wake-up would end a consumer's wait at its deadline, 20 seconds on).
    @Test func everyWaiterIsWokenBySignals() {
        let shared = Shared()
        let items = 10_000
        Self.onThreads(4) { index in
            let deadline = g_get_monotonic_time() + 20_000_000
            g_mutex_lock(shared.mutex)
            defer { g_mutex_unlock(shared.mutex) }
            for item in 1...items {
                if index < 2 {
                    while shared.queued == 4 && !shared.timedOut {
                        if g_cond_wait_until(shared.notFull, shared.mutex, deadline) == 0 { shared.timedOut = true }
                    }
                    shared.queued += 1
                    g_cond_signal(shared.notEmpty)
                } else {
                    while shared.queued == 0 && !shared.timedOut {
                        if g_cond_wait_until(shared.notEmpty, shared.mutex, deadline) == 0 { shared.timedOut = true }
                    }
                    if shared.timedOut { return }
                    shared.queued -= 1
                    shared.total += item
                    g_cond_signal(shared.notFull)
                }
            }
        }
        #expect(!shared.timedOut)
        #expect(shared.queued == 0 && shared.total == 2 * items * (items + 1) / 2)
    }

    /// A wait with a deadline and no signal ends at the deadline and says so.
    @Test func aWaitWithoutASignalEndsAtItsDeadline() {
        let shared = Shared()
        let start = g_get_monotonic_time()
        g_mutex_lock(shared.mutex)
        let woken = g_cond_wait_until(shared.notEmpty, shared.mutex, start + 30_000)
        g_mutex_unlock(shared.mutex)
        #expect(woken == 0)
        #expect(g_get_monotonic_time() - start >= 30_000)
    }

    /// Two threads take one lock 100,000 times each, with some work between (as GObject's locks are taken), and count
    /// under it: the count is exact, and on two cores or more some contended locks are taken while their holder runs
    /// (tried again, up to 30 times, while the machine's other work keeps the two threads from running at once).
    @Test func aContendedLockCountsExactlyAndIsTakenWhileSpinning() {
        let before = imgf_glib_locks_after_spinning()
        for _ in 0..<30 {
            let shared = Shared()
            Self.onThreads(2) { index in
                var work = UInt64(index + 1)
                for _ in 0..<100_000 {
                    for _ in 0..<50 { work = work &* 6364136223846793005 &+ 1442695040888963407 }
                    g_mutex_lock(shared.mutex)
                    shared.total += 1
                    g_mutex_unlock(shared.mutex)
                }
                #expect(work != 0)
            }
            #expect(shared.total == 200_000)
            if imgf_glib_locks_after_spinning() > before { break }
        }
        if ProcessInfo.processInfo.activeProcessorCount >= 2 {
            #expect(imgf_glib_locks_after_spinning() > before)
        }
    }

    /// libvips' calls reach the stand-ins: a thumbnail's line cache signals once a tile, and nobody waits.
    @Test func aRenderingsLineCacheSignalsWithoutASystemCall() throws {
        try VipsRuntime.start()
        let data = try RenderingOverheadTests.sample()
        let before = imgf_glib_wakes_skipped()
        let image = try RenderingOverheadTests.render(data, size: 200, format: .jpeg, threads: 1)
        #expect(image.width == 200 || image.height == 200)
        #expect(imgf_glib_wakes_skipped() - before >= 4)
    }
}

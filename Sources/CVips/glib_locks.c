/* GLib's mutex lock and condition variable, without the system calls nobody needs.
 *
 * libvips and GObject take GLib's GMutex and signal GLib's GCond for every object they build and free and every tile
 * a line cache computes. GLib 2.74's (the futex implementation GLib has used on Linux since 2.36) makes a system call
 * where none is needed, twice:
 * - g_cond_signal and g_cond_broadcast always call futex(FUTEX_WAKE), waiter or not: libvips' line cache broadcasts
 *   once for every tile it computes (tilecache.c), and in a batch nobody ever waits on it, so half of a small line's
 *   futex calls woke no one;
 * - g_mutex_lock sleeps in the kernel at once when the lock is taken, and the locks GObject takes (its signal lock,
 *   its property look-ups) are held for a few hundred cycles: with two renderings at once, each acquisition that met
 *   the other thread's cost two system calls and two context switches.
 * These definitions take GLib's names, so that libvips' and GObject's calls reach them (the programs that start libvips
 * export them, as operation_build.c's), and keep GLib's own protocol on the same words, so that GLib's functions and
 * these work together on one mutex or condition: a mutex's word is 0 (free), 1 (taken) or 2 (taken, maybe with
 * sleepers), and g_mutex_unlock (GLib's own, not replaced) wakes one sleeper when it was 2; a condition's first word
 * is a sequence number, bumped by every signal, that a waiter sleeps on.
 * - g_mutex_lock tries the free word again for a while (IMGF_GLIB_LOCK_SPINS rounds of the processor's pause) before
 *   it sleeps as GLib's does. A lock taken while spinning is taken as GLib's fast path takes it; a sleeper that wakes
 *   and finds it taken marks it 2 again, so no wake-up is lost.
 * - The condition counts its waiters in its second word, which GLib's futex implementation leaves unused: a waiter
 *   adds itself before it reads the sequence number, a signal bumps the sequence number before it reads the count
 *   (both sequentially consistent), so either the signal sees the waiter and wakes it, or the waiter sees the new
 *   number and does not sleep. g_cond_init clears both words; a static condition is zero already.
 * What this cannot serve: a condition that GLib's own code waits on (inside libglib, which calls its own functions)
 * and other code signals, since GLib's waiters are not counted. GLib keeps its conditions (its thread pools, queues,
 * once-initialisations, main contexts) to itself; only the deprecated g_main_context_wait waits on a caller's, and
 * nothing here calls it. IMGFETCH_GLIB_LOCKS=glib in the environment (or imgf_glib_locks_set(0)) makes every signal
 * wake and every lock sleep at once, as GLib's do, for comparison. */
#include "imgf_vips.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Rounds of the processor's pause a contended g_mutex_lock tries the lock for before it sleeps: about 3 µs, as
 * glibc's adaptive mutexes spin at most 100 times. */
#define IMGF_GLIB_LOCK_SPINS 100

/* Nonzero: GLib's behaviour (no spinning, every signal wakes). Read on every call, so relaxed and process-wide. */
static atomic_int as_glib;
/* Statistics for the tests, process-wide: each is counted where a system call was saved, which costs far more. */
static atomic_long wakes_skipped;
static atomic_long locks_after_spinning;

static inline void pause_processor(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static inline _Atomic guint *word(guint *address) { return (_Atomic guint *)address; }

static long futex(_Atomic guint *address, int operation, guint value, const struct timespec *timeout) {
    return syscall(SYS_futex, address, operation, value, timeout);
}

static int take_if_free(_Atomic guint *lock) {
    guint free = 0;
    return atomic_compare_exchange_strong_explicit(lock, &free, 1, memory_order_acquire, memory_order_relaxed);
}

void g_mutex_lock(GMutex *mutex) {
    _Atomic guint *lock = word(&mutex->i[0]);
    if (take_if_free(lock)) return;
    if (!atomic_load_explicit(&as_glib, memory_order_relaxed))
        for (int round = 0; round < IMGF_GLIB_LOCK_SPINS; round++) {
            pause_processor();
            if (atomic_load_explicit(lock, memory_order_relaxed) == 0 && take_if_free(lock)) {
                atomic_fetch_add_explicit(&locks_after_spinning, 1, memory_order_relaxed);
                return;
            }
        }
    while (atomic_exchange_explicit(lock, 2, memory_order_acquire) != 0)
        futex(lock, FUTEX_WAIT_PRIVATE, 2, NULL);
}

void g_cond_init(GCond *cond) {
    atomic_store_explicit(word(&cond->i[0]), 0, memory_order_relaxed);
    atomic_store_explicit(word(&cond->i[1]), 0, memory_order_relaxed);
}

/* Sleeps on `cond` until a signal or `timeout` (relative; NULL: none) with `mutex` released, as GLib does. Whether the
 * sleep ended otherwise than by the timeout. */
static int wait_counted(GCond *cond, GMutex *mutex, const struct timespec *timeout) {
    _Atomic guint *sequence = word(&cond->i[0]), *waiters = word(&cond->i[1]);
    atomic_fetch_add(waiters, 1);
    guint sampled = atomic_load(sequence);
    g_mutex_unlock(mutex);
    long result = futex(sequence, FUTEX_WAIT_PRIVATE, sampled, timeout);
    int timed_out = result < 0 && errno == ETIMEDOUT;
    atomic_fetch_sub(waiters, 1);
    g_mutex_lock(mutex);
    return !timed_out;
}

void g_cond_wait(GCond *cond, GMutex *mutex) { wait_counted(cond, mutex, NULL); }

gboolean g_cond_wait_until(GCond *cond, GMutex *mutex, gint64 end_time) {
    if (end_time < 0) return FALSE;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    struct timespec span = { end_time / 1000000 - now.tv_sec, (end_time % 1000000) * 1000 - now.tv_nsec };
    if (span.tv_nsec < 0) {
        span.tv_nsec += 1000000000;
        span.tv_sec--;
    }
    if (span.tv_sec < 0) return FALSE;
    return wait_counted(cond, mutex, &span) ? TRUE : FALSE;
}

static void wake(GCond *cond, guint sleepers) {
    _Atomic guint *sequence = word(&cond->i[0]);
    atomic_fetch_add(sequence, 1);
    if (atomic_load(word(&cond->i[1])) == 0 && !atomic_load_explicit(&as_glib, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&wakes_skipped, 1, memory_order_relaxed);
        return;
    }
    futex(sequence, FUTEX_WAKE_PRIVATE, sleepers, NULL);
}

void g_cond_signal(GCond *cond) { wake(cond, 1); }

void g_cond_broadcast(GCond *cond) { wake(cond, INT_MAX); }

long imgf_glib_wakes_skipped(void) { return atomic_load_explicit(&wakes_skipped, memory_order_relaxed); }

long imgf_glib_locks_after_spinning(void) {
    return atomic_load_explicit(&locks_after_spinning, memory_order_relaxed);
}

void imgf_glib_locks_set(int on) { atomic_store_explicit(&as_glib, !on, memory_order_relaxed); }

void imgf_glib_locks_read_environment(void) {
    const char *locks = getenv("IMGFETCH_GLIB_LOCKS");
    if (locks && strcmp(locks, "glib") == 0) imgf_glib_locks_set(0);
}

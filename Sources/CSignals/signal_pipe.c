#define _GNU_SOURCE /* pipe2 */
#include "imgf_signals.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/* The pipe a caught signal is written to: process-wide state, because a signal handler has nothing else to read;
 * atomic, because it is set by the watching thread and read in the handler on any thread. -1: none. */
static atomic_int signal_write_end = -1;

/* Async-signal-safe: an atomic load and a write(2); errno is kept for the interrupted code. */
static void write_signal(int number) {
    int saved = errno;
    int descriptor = atomic_load_explicit(&signal_write_end, memory_order_acquire);
    if (descriptor >= 0) {
        unsigned char byte = (unsigned char)number;
        (void)!write(descriptor, &byte, 1); /* a full pipe holds the signal already */
    }
    errno = saved;
}

int imgf_signal_pipe_open(int ends[2]) { return pipe2(ends, O_CLOEXEC | O_NONBLOCK); }

int imgf_signal_pipe_catch(int number, int write_end, struct sigaction *previous) {
    atomic_store_explicit(&signal_write_end, write_end, memory_order_release);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = write_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(number, &action, previous);
}

void imgf_signal_pipe_forget(int write_end) {
    int expected = write_end;
    atomic_compare_exchange_strong(&signal_write_end, &expected, -1);
}

#define _GNU_SOURCE /* pipe2 */
#include "imgf_signals.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

/* The pipe a caught signal is written to: process-wide state, because a signal handler has nothing else to read;
 * atomic, because it is set by the watching thread and read in the handler on any thread. -1: none. */
static atomic_int signal_write_end = -1;
/* Handlers between their load of signal_write_end and the end of their write: forget waits for none. */
static atomic_int writers_in_flight;

/* Async-signal-safe: an atomic load and a write(2); errno is kept for the interrupted code. */
static void write_signal(int number) {
    int saved = errno;
    atomic_fetch_add(&writers_in_flight, 1);
    int descriptor = atomic_load(&signal_write_end);
    if (descriptor >= 0) {
        unsigned char byte = (unsigned char)number;
        (void)!write(descriptor, &byte, 1); /* a full pipe holds the signal already */
    }
    atomic_fetch_sub(&writers_in_flight, 1);
    errno = saved;
}

int imgf_signal_pipe_open(int ends[2]) { return pipe2(ends, O_CLOEXEC | O_NONBLOCK); }

int imgf_signal_pipe_use(int write_end) { return atomic_exchange(&signal_write_end, write_end); }

int imgf_signal_pipe_catch(int number, struct sigaction *previous) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = write_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    return sigaction(number, &action, previous);
}

void imgf_signal_pipe_forget(int write_end, int replaced) {
    int expected = write_end;
    atomic_compare_exchange_strong(&signal_write_end, &expected, replaced);
    while (atomic_load(&writers_in_flight) > 0) sched_yield();
}

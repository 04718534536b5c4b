#ifndef IMGF_SIGNALS_H
#define IMGF_SIGNALS_H

#include <signal.h>

/* Opens the pipe signals are written to, both ends non-blocking and closed on exec: `ends[0]` to read, `ends[1]` to
 * write. Returns pipe2's result. */
int imgf_signal_pipe_open(int ends[2]);

/* Makes `write_end` (a non-blocking pipe whose other end the caller watches) the descriptor caught signals are
 * written to; returns the one it replaces (-1: none), for imgf_signal_pipe_forget. */
int imgf_signal_pipe_use(int write_end);

/* Catches `number` with a handler that writes the signal's number, as one byte, to the descriptor in use, and puts
 * what it did before in `*previous`. A signal that comes before the caller watches the pipe waits there: none is lost
 * (a libdispatch signal source arms itself later, on its manager thread, and a signal in between found the action
 * the caller had set to stop the default end). Returns sigaction's result. */
int imgf_signal_pipe_catch(int number, struct sigaction *previous);

/* Puts `replaced` back in use when `write_end` still is, and returns once no handler is writing to `write_end`, so
 * that the caller may close it (call after the signals' previous actions are back). */
void imgf_signal_pipe_forget(int write_end, int replaced);

#endif

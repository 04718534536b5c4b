/* Process and socket helpers of the warm renderer (target ImgRenderer) that need _GNU_SOURCE or fork: its Unix
 * socket file (reached through a directory descriptor), peer credentials, and starting it detached. */
#ifndef IMGFETCH_RENDERER_H
#define IMGFETCH_RENDERER_H

#include <sys/types.h>
#include <stddef.h>

/* A listening SOCK_STREAM socket bound to the file `name` in the directory open as `directory` (reached as
 * /proc/self/fd/N/name, so the directory's path may be of any length and is resolved once). A file already there
 * is removed first: the caller holds the lock that makes the name its own. Returns the descriptor (close-on-exec,
 * non-blocking), or -1 with errno set. */
int imgf_listen_unix(int directory, const char *name, int backlog);

/* The next connection on a listening socket, close-on-exec and non-blocking; -1 with errno set (EAGAIN when none
 * is waiting). */
int imgf_accept(int listener);

/* A socket connected to the file `name` in `directory`, without waiting: non-blocking from the start, so a
 * listener that never accepts (a full backlog) is EAGAIN at once. Returns the descriptor (close-on-exec,
 * non-blocking), or -1 with errno set (ENOENT or ECONNREFUSED when nobody listens). */
int imgf_connect_unix(int directory, const char *name);

/* The user and process at the other end of a connected Unix socket (SO_PEERCRED, as of connect or listen).
 * Returns 0, or -1 with errno set. */
int imgf_peer_credentials(int fd, uid_t *uid, pid_t *pid);

/* Opens `path` as a directory to reach files through (O_PATH|O_DIRECTORY|O_NOFOLLOW|O_CLOEXEC): a symbolic link
 * is refused. Returns the descriptor, or -1 with errno set. */
int imgf_open_directory(const char *path);

/* 1 when the other end of a connected socket has closed it or gone away (POLLRDHUP, looked at without waiting),
 * else 0. */
int imgf_peer_has_gone(int fd);

/* An eventfd (close-on-exec, non-blocking) that one thread signals and another waits on beside a socket; -1 with
 * errno set. */
int imgf_wake_open(void);

/* Signals `wake` (from `imgf_wake_open`): it stays readable from then on. */
void imgf_wake_signal(int wake);

/* Waits up to `timeout_ms` for the other end of the connected socket `peer` to close it or go away (POLLRDHUP,
 * POLLHUP, POLLERR; a negative `peer` is not watched) or for `wake` to be signalled. Returns 1 when the peer has
 * gone, 2 when woken, 3 for both, 0 when the time ran out (or a signal interrupted the wait), -1 with errno set. */
int imgf_wait_peer_or_wake(int peer, int wake, int timeout_ms);

/* Returns freed heap memory to the system (glibc's malloc_trim). */
void imgf_release_free_memory(void);

/* Starts `path` with `argv` detached: through an intermediate child that this call reaps at once (a double
 * fork), so the started process is never this process's child and leaves no zombie under a parent that does
 * not reap; as a new session (no controlling terminal), in the root directory (so that it keeps no directory
 * busy), its standard input, output and error on /dev/null, no other descriptor inherited, default signal
 * dispositions and an empty signal mask. Returns its pid, or -1 with errno set. */
pid_t imgf_spawn_detached(const char *path, char *const argv[]);

#endif

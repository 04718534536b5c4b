/* Process and socket helpers that need _GNU_SOURCE or variadic calls: the renderer's Unix socket (Linux abstract
 * namespace, peer credentials) and starting it detached. */
#ifndef IMGFETCH_SYSTEM_H
#define IMGFETCH_SYSTEM_H

#include <sys/types.h>
#include <stddef.h>

/* A listening SOCK_STREAM socket bound to the abstract address `name` (no file is created; the name disappears
 * with the last descriptor). Returns the descriptor (close-on-exec), or -1 with errno set: EADDRINUSE when another
 * process already listens there. */
int imgf_listen_abstract(const char *name, int backlog);

/* The next connection on a listening socket, close-on-exec; -1 with errno set. */
int imgf_accept(int listener);

/* A socket connected to the abstract address `name`. Returns the descriptor (close-on-exec), or -1 with errno set
 * (ECONNREFUSED when nobody listens). */
int imgf_connect_abstract(const char *name);

/* The user and process at the other end of a connected Unix socket (SO_PEERCRED, as of connect or listen).
 * Returns 0, or -1 with errno set. */
int imgf_peer_credentials(int fd, uid_t *uid, pid_t *pid);

/* Sets a receive and send timeout on a socket, in milliseconds (0 for none). Returns 0, or -1 with errno set. */
int imgf_socket_timeouts(int fd, int milliseconds);

/* Returns freed heap memory to the system (glibc's malloc_trim). */
void imgf_release_free_memory(void);

/* Starts `path` with `argv` as a new session (no controlling terminal) in the root directory (so that it keeps no
 * directory busy), its standard input, output and error on /dev/null and no other descriptor inherited, and does
 * not wait for it. Returns its pid, or -1 with errno set. */
pid_t imgf_spawn_detached(const char *path, char *const argv[]);

#endif

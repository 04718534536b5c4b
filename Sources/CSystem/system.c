#define _GNU_SOURCE
#include "imgf_system.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

extern char **environ;

/* Fills an abstract address: a leading NUL, then the name (not NUL-terminated). Returns its length, or 0 when the
 * name is empty or too long. */
static socklen_t abstract_address(const char *name, struct sockaddr_un *address) {
    size_t length = strlen(name);
    if (length == 0 || length + 1 > sizeof(address->sun_path)) return 0;
    memset(address, 0, sizeof(*address));
    address->sun_family = AF_UNIX;
    memcpy(address->sun_path + 1, name, length);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + length);
}

int imgf_listen_abstract(const char *name, int backlog) {
    struct sockaddr_un address;
    socklen_t length = abstract_address(name, &address);
    if (length == 0) { errno = ENAMETOOLONG; return -1; }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (bind(fd, (struct sockaddr *)&address, length) != 0 || listen(fd, backlog) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int imgf_accept(int listener) {
    int fd;
    do { fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC); } while (fd < 0 && errno == EINTR);
    return fd;
}

int imgf_connect_abstract(const char *name) {
    struct sockaddr_un address;
    socklen_t length = abstract_address(name, &address);
    if (length == 0) { errno = ENAMETOOLONG; return -1; }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int result;
    do { result = connect(fd, (struct sockaddr *)&address, length); } while (result != 0 && errno == EINTR);
    if (result != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int imgf_peer_credentials(int fd, uid_t *uid, pid_t *pid) {
    struct ucred credentials;
    socklen_t length = sizeof(credentials);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *uid = credentials.uid;
    *pid = credentials.pid;
    return 0;
}

int imgf_socket_timeouts(int fd, int milliseconds) {
    struct timeval timeout = { .tv_sec = milliseconds / 1000, .tv_usec = (milliseconds % 1000) * 1000 };
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)) != 0) return -1;
    return setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
}

void imgf_release_free_memory(void) { malloc_trim(0); }

pid_t imgf_spawn_detached(const char *path, char *const argv[]) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    if (posix_spawn_file_actions_init(&actions) != 0) return -1;
    if (posix_spawnattr_init(&attributes) != 0) { posix_spawn_file_actions_destroy(&actions); return -1; }
    int failed = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        || posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        || posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        || posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        || posix_spawn_file_actions_addchdir_np(&actions, "/")
        || posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    failed = failed || posix_spawnattr_setsigmask(&attributes, &none) || posix_spawnattr_setsigdefault(&attributes, &all);
    pid_t pid = -1;
    int result = failed ? EINVAL : posix_spawn(&pid, path, &actions, &attributes, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (result != 0) { errno = result; return -1; }
    return pid;
}

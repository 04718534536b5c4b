#define _GNU_SOURCE
#include "imgf_renderer.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Fills the address /proc/self/fd/DIRECTORY/NAME. Returns its length, or 0 when the name is empty, has a slash
 * or is too long. */
static socklen_t file_address(int directory, const char *name, struct sockaddr_un *address) {
    if (name[0] == 0 || strchr(name, '/') != NULL) return 0;
    memset(address, 0, sizeof(*address));
    address->sun_family = AF_UNIX;
    int length = snprintf(address->sun_path, sizeof(address->sun_path), "/proc/self/fd/%d/%s", directory, name);
    if (length <= 0 || (size_t)length >= sizeof(address->sun_path)) return 0;
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)length + 1);
}

int imgf_listen_unix(int directory, const char *name, int backlog) {
    struct sockaddr_un address;
    socklen_t length = file_address(directory, name, &address);
    if (length == 0) { errno = ENAMETOOLONG; return -1; }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return -1;
    if (unlinkat(directory, name, 0) != 0 && errno != ENOENT) { int saved = errno; close(fd); errno = saved; return -1; }
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
    do { fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK); } while (fd < 0 && errno == EINTR);
    return fd;
}

int imgf_connect_unix(int directory, const char *name) {
    struct sockaddr_un address;
    socklen_t length = file_address(directory, name, &address);
    if (length == 0) { errno = ENAMETOOLONG; return -1; }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return -1;
    /* A Unix stream connect completes at once or fails at once (EAGAIN when the backlog is full); an EINTR is
     * not retried: the caller treats it as "no renderer". */
    if (connect(fd, (struct sockaddr *)&address, length) != 0) {
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

int imgf_open_directory(const char *path) { return open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC); }

int imgf_peer_has_gone(int fd) {
    struct pollfd poller = { .fd = fd, .events = POLLRDHUP, .revents = 0 };
    return poll(&poller, 1, 0) > 0 && (poller.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

int imgf_wake_open(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

void imgf_wake_signal(int wake) {
    uint64_t one = 1;
    ssize_t ignored;
    do { ignored = write(wake, &one, sizeof(one)); } while (ignored < 0 && errno == EINTR);
}

int imgf_wait_peer_or_wake(int peer, int wake, int timeout_ms) {
    struct pollfd pollers[2] = {
        { .fd = peer, .events = POLLRDHUP, .revents = 0 },
        { .fd = wake, .events = POLLIN, .revents = 0 },
    };
    int ready = poll(pollers, 2, timeout_ms);
    if (ready < 0) return errno == EINTR ? 0 : -1;
    int result = 0;
    if (pollers[0].revents & (POLLRDHUP | POLLHUP | POLLERR)) result |= 1;
    if (pollers[1].revents & POLLIN) result |= 2;
    return result;
}

void imgf_release_free_memory(void) { malloc_trim(0); }

pid_t imgf_spawn_detached(const char *path, char *const argv[]) {
    /* Everything that allocates happens here, before the fork: the intermediate child only spawns, writes the
     * pid and exits. */
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    if (posix_spawn_file_actions_init(&actions) != 0) return -1;
    if (posix_spawnattr_init(&attributes) != 0) { posix_spawn_file_actions_destroy(&actions); return -1; }
    int report[2] = { -1, -1 };
    int failed = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        || posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        || posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        || posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        || posix_spawn_file_actions_addchdir_np(&actions, "/")
        || posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    sigset_t none, all, saved;
    sigemptyset(&none);
    sigfillset(&all);
    failed = failed || posix_spawnattr_setsigmask(&attributes, &none) || posix_spawnattr_setsigdefault(&attributes, &all)
        || pipe2(report, O_CLOEXEC) != 0;
    pid_t pid = -1;
    int result = EINVAL;
    if (!failed) {
        /* No signal handler may run in the intermediate child. */
        pthread_sigmask(SIG_SETMASK, &all, &saved);
        pid_t middle = fork();
        if (middle == 0) {
            pid_t started = -1;
            int spawned = posix_spawn(&started, path, &actions, &attributes, argv, environ);
            if (spawned != 0) started = -spawned;
            ssize_t ignored = write(report[1], &started, sizeof(started));
            (void)ignored;
            _exit(0);
        }
        int forked = errno;
        pthread_sigmask(SIG_SETMASK, &saved, NULL);
        close(report[1]);
        report[1] = -1;
        if (middle < 0) {
            result = forked;
        } else {
            int status;
            while (waitpid(middle, &status, 0) < 0 && errno == EINTR) {}
            pid_t started = 0;
            ssize_t got;
            do { got = read(report[0], &started, sizeof(started)); } while (got < 0 && errno == EINTR);
            if (got == (ssize_t)sizeof(started) && started > 0) { pid = started; result = 0; }
            else result = got == (ssize_t)sizeof(started) ? -started : ECHILD;
        }
    }
    if (report[0] >= 0) close(report[0]);
    if (report[1] >= 0) close(report[1]);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (result != 0) { errno = result; return -1; }
    return pid;
}

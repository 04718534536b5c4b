/* See imgf_files.h. */
#define _GNU_SOURCE
#include "imgf_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int imgf_open_anonymous(const char *directory) {
    int descriptor = open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (descriptor >= 0) return descriptor;
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT) return -1;
    for (int attempt = 0; attempt < 8; attempt++) {
        char path[4096];
        unsigned long long nonce = ((unsigned long long)random() << 32) ^ (unsigned long long)random();
        snprintf(path, sizeof path, "%s/%d-%llu.tmp", directory, (int)getpid(), nonce);
        descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (descriptor >= 0) {
            unlink(path);
            return descriptor;
        }
        if (errno != EEXIST) return -1;
    }
    return -1;
}

/* The fallback copy: a 1 MiB buffer at a time. */
static int copy_by_reading(int source, int64_t offset, int target, int64_t count) {
    enum { size = 1 << 20 };
    char *buffer = malloc(size);
    if (!buffer) return -1;
    int result = 0;
    while (count > 0) {
        ssize_t got = pread(source, buffer, count < size ? (size_t)count : size, (off_t)offset);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {
            if (got == 0) errno = EIO;
            result = -1;
            break;
        }
        for (ssize_t done = 0; done < got;) {
            ssize_t put = write(target, buffer + done, (size_t)(got - done));
            if (put < 0 && errno == EINTR) continue;
            if (put <= 0) {
                free(buffer);
                return -1;
            }
            done += put;
        }
        offset += got;
        count -= got;
    }
    free(buffer);
    return result;
}

int imgf_copy_range(int source, int64_t offset, int target, int64_t count) {
    loff_t from = (loff_t)offset;
    while (count > 0) {
        ssize_t copied = copy_file_range(source, &from, target, NULL, (size_t)(count < (1 << 30) ? count : (1 << 30)), 0);
        if (copied < 0 && errno == EINTR) continue;
        if (copied < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP || errno == EBADF)) {
            return copy_by_reading(source, (int64_t)from, target, count);
        }
        if (copied < 0) return -1;
        if (copied == 0) {
            errno = EIO;
            return -1;
        }
        count -= copied;
    }
    return 0;
}

int imgf_open_unnamed_at(int folder, unsigned int mode) {
    return openat(folder, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, (mode_t)mode);
}

int imgf_link_unnamed_at(int descriptor, int folder, const char *name) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", descriptor);
    return linkat(AT_FDCWD, path, folder, name, AT_SYMLINK_FOLLOW);
}

int imgf_rename_new_at(int folder, const char *from, const char *to) {
    if (renameat2(folder, from, folder, to, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP) return -1;
    if (linkat(folder, from, folder, to, 0) != 0) return -1;
    unlinkat(folder, from, 0);
    return 0;
}

int imgf_release_written_pages(int descriptor) {
    int flags = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER;
    if (sync_file_range(descriptor, 0, 0, flags) != 0) return -1;
    int failed = posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED);
    if (failed) { errno = failed; return -1; }
    return 0;
}

int imgf_try_lock_byte(int descriptor, long long offset) {
    struct flock lock = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = offset, .l_len = 1, .l_pid = 0 };
    return fcntl(descriptor, F_OFD_SETLK, &lock);
}

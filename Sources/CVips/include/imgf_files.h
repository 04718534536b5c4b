/* File helpers for bodies too large to hold in memory: unnamed spool files and in-kernel copies. */
#ifndef IMGFETCH_FILES_H
#define IMGFETCH_FILES_H

#include <stdint.h>

/* Opens a new unnamed temporary file in `directory` for reading and writing, mode 0600: O_TMPFILE where the file
 * system has it, else a `PID-RANDOM.tmp` file unlinked at once. Either way nothing is left behind, even by a killed
 * process. Returns the descriptor, or -1 with errno set. */
int imgf_open_anonymous(const char *directory);

/* Appends `count` bytes of `source` from `offset` to `target` at its file position (copy_file_range, falling back to
 * pread and write). Returns 0, or -1 with errno set (a source shorter than `count` is EIO). */
int imgf_copy_range(int source, int64_t offset, int target, int64_t count);

/* Opens a new unnamed file (O_TMPFILE) in the open directory `folder` for writing, with `mode`. Returns the
 * descriptor, or -1 with errno set (EOPNOTSUPP, EISDIR or EINVAL where the file system has no unnamed files). */
int imgf_open_unnamed_at(int folder, unsigned int mode);

/* Gives the unnamed file `descriptor` the name `name` in the open directory `folder` (linkat through
 * /proc/self/fd). Returns 0, or -1 with errno set (EEXIST when the name is taken). */
int imgf_link_unnamed_at(int descriptor, int folder, const char *name);

/* Renames `from` to `to` in the open directory `folder` only when nothing has the name `to`: renameat2 with
 * RENAME_NOREPLACE, or where the file system has no such rename, a hard link to `to` and the unlink of `from`.
 * Returns 0, or -1 with errno set (EEXIST when `to` is taken; `from` then keeps its name). */
int imgf_rename_new_at(int folder, const char *from, const char *to);

/* Writes the file's dirty pages to the disk and waits for them (sync_file_range), then drops its pages from the
 * page cache (posix_fadvise POSIX_FADV_DONTNEED): for large files written once and not read again soon. Advisory:
 * returns 0, or -1 with errno set, and the file is whole either way. */
int imgf_release_written_pages(int descriptor);

/* Takes an exclusive lock on the one byte at `offset` of the open file `descriptor` without waiting: an open file
 * description's own lock (F_OFD_SETLK), which conflicts with any other open of the file, in this process or another,
 * and is dropped when the description is closed or its holder dies. Returns 0, or -1 with errno set (EAGAIN or
 * EACCES while another holds it). */
int imgf_try_lock_byte(int descriptor, long long offset);

#endif

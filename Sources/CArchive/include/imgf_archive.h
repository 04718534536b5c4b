/* libarchive's tar writer (Debian's libarchive-dev), opened with dlopen on first use: a run that writes no
 * WebDataset shard (every fetch, every batch of files) never loads libarchive and the nine libraries it brings
 * (libxml2, ICU, nettle, the compressors). archive.h is included for its types only: a direct call would not link.
 * Every call goes through the shim functions below, which Swift calls. */
#ifndef IMGFETCH_ARCHIVE_H
#define IMGFETCH_ARCHIVE_H

#include <archive.h>
#include <archive_entry.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define IMGF_ARCHIVE_SYMBOLS(X) \
    X(archive_write_new) \
    X(archive_write_set_format_pax_restricted) \
    X(archive_write_open_fd) \
    X(archive_write_header) \
    X(archive_write_data) \
    X(archive_write_finish_entry) \
    X(archive_write_close) \
    X(archive_write_free) \
    X(archive_error_string) \
    X(archive_errno) \
    X(archive_entry_new) \
    X(archive_entry_free) \
    X(archive_entry_set_pathname) \
    X(archive_entry_set_size) \
    X(archive_entry_set_filetype) \
    X(archive_entry_set_perm) \
    X(archive_entry_set_mtime)

#define IMGF_ARCHIVE_FIELD(name) __typeof__(name) *name;
typedef struct { IMGF_ARCHIVE_SYMBOLS(IMGF_ARCHIVE_FIELD) } imgf_archive_table;
#undef IMGF_ARCHIVE_FIELD

/* Opens libarchive.so.13 once (thread-safe) and returns its table, or NULL with the reason in imgf_archive_error(). */
const imgf_archive_table *imgf_archive(void);

/* Why the table could not be had; empty after a successful imgf_archive(). */
const char *imgf_archive_load_error(void);

/* A tar writer (pax restricted: ustar unless a name or size needs a pax header) onto `fd`, which stays the
 * caller's; NULL when libarchive can't be opened or the writer can't be made. */
struct archive *imgf_tar_open(int fd);

/* Begins a regular file member `name` of `size` bytes, mode 0644, modified at `mtime`; ARCHIVE_OK or an error. */
int imgf_tar_begin(struct archive *tar, const char *name, int64_t size, time_t mtime);

/* Writes `count` bytes of the member begun; the bytes written, or -1. */
ssize_t imgf_tar_data(struct archive *tar, const void *bytes, size_t count);

/* Ends the member begun (pads it to its block); ARCHIVE_OK or an error. */
int imgf_tar_end(struct archive *tar);

/* Writes the end of the archive and frees the writer; ARCHIVE_OK or an error. */
int imgf_tar_close(struct archive *tar);

/* Frees the writer without ending the archive (what was written is abandoned). */
void imgf_tar_abandon(struct archive *tar);

/* The writer's last error ("" when none), and its errno (0 when none). */
const char *imgf_tar_error(struct archive *tar);
int imgf_tar_errno(struct archive *tar);

#endif

/* Opens libarchive at run time and writes tar members through it (see imgf_archive.h). */
#include "imgf_archive.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>

static imgf_archive_table table;
static char error[256];
static int loaded;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libarchive.so.13", RTLD_LAZY | RTLD_LOCAL);
    if (!library) {
        snprintf(error, sizeof error, "cannot open libarchive: %s", dlerror());
        return;
    }
#define IMGF_ARCHIVE_RESOLVE(name) \
    table.name = (__typeof__(name) *)dlsym(library, #name); \
    if (!table.name) { snprintf(error, sizeof error, "libarchive lacks %s", #name); return; }
    IMGF_ARCHIVE_SYMBOLS(IMGF_ARCHIVE_RESOLVE)
#undef IMGF_ARCHIVE_RESOLVE
    loaded = 1;
}

const imgf_archive_table *imgf_archive(void) {
    pthread_once(&once, load);
    return loaded ? &table : NULL;
}

const char *imgf_archive_load_error(void) {
    pthread_once(&once, load);
    return error;
}

struct archive *imgf_tar_open(int fd) {
    const imgf_archive_table *a = imgf_archive();
    if (!a) return NULL;
    struct archive *tar = a->archive_write_new();
    if (!tar) return NULL;
    if (a->archive_write_set_format_pax_restricted(tar) != ARCHIVE_OK || a->archive_write_open_fd(tar, fd) != ARCHIVE_OK) {
        a->archive_write_free(tar);
        return NULL;
    }
    return tar;
}

int imgf_tar_begin(struct archive *tar, const char *name, int64_t size, time_t mtime) {
    const imgf_archive_table *a = imgf_archive();
    struct archive_entry *entry = a->archive_entry_new();
    if (!entry) return ARCHIVE_FATAL;
    a->archive_entry_set_pathname(entry, name);
    a->archive_entry_set_size(entry, size);
    a->archive_entry_set_filetype(entry, AE_IFREG);
    a->archive_entry_set_perm(entry, 0644);
    a->archive_entry_set_mtime(entry, mtime, 0);
    int status = a->archive_write_header(tar, entry);
    a->archive_entry_free(entry);
    return status;
}

ssize_t imgf_tar_data(struct archive *tar, const void *bytes, size_t count) {
    return imgf_archive()->archive_write_data(tar, bytes, count);
}

int imgf_tar_end(struct archive *tar) { return imgf_archive()->archive_write_finish_entry(tar); }

int imgf_tar_close(struct archive *tar) {
    const imgf_archive_table *a = imgf_archive();
    int status = a->archive_write_close(tar);
    a->archive_write_free(tar);
    return status;
}

void imgf_tar_abandon(struct archive *tar) {
    const imgf_archive_table *a = imgf_archive();
    /* archive_write_free would write the end of the archive first; a torn tar is discarded anyway. */
    a->archive_write_free(tar);
}

const char *imgf_tar_error(struct archive *tar) {
    const char *message = imgf_archive()->archive_error_string(tar);
    return message ? message : "";
}

int imgf_tar_errno(struct archive *tar) { return imgf_archive()->archive_errno(tar); }

/* A VipsSource over part of a file; see imgf_source_new_region in imgf_vips.h. */
#define _GNU_SOURCE
#include "imgf_vips.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* The window of the file the source shows, and where in it the next read starts. */
typedef struct {
    int descriptor;
    gint64 offset;
    gint64 length;
    gint64 position;
} imgf_region;

static gint64 region_read(VipsSourceCustom *source, void *buffer, gint64 length, gpointer user) {
    (void)source;
    imgf_region *region = user;
    gint64 available = region->length - region->position;
    if (length > available) length = available;
    if (length <= 0) return 0;
    ssize_t got;
    do {
        got = pread(region->descriptor, buffer, (size_t)length, (off_t)(region->offset + region->position));
    } while (got < 0 && errno == EINTR);
    if (got < 0) return -1;
    region->position += got;
    return got;
}

static gint64 region_seek(VipsSourceCustom *source, gint64 offset, int whence, gpointer user) {
    (void)source;
    imgf_region *region = user;
    gint64 base;
    switch (whence) {
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = region->position; break;
    case SEEK_END: base = region->length; break;
    default: return -1;
    }
    gint64 target = base + offset;
    if (target < 0 || target > region->length) return -1;
    region->position = target;
    return target;
}

static void region_free(gpointer data) {
    imgf_region *region = data;
    close(region->descriptor);
    g_free(region);
}

VipsSource *imgf_source_new_region(int descriptor, gint64 offset, gint64 length) {
    int copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0);
    if (copy < 0) return NULL;
    VipsSourceCustom *source = imgf_vips()->vips_source_custom_new();
    if (!source) {
        close(copy);
        return NULL;
    }
    imgf_region *region = g_new0(imgf_region, 1);
    region->descriptor = copy;
    region->offset = offset;
    region->length = length;
    /* Casts, not VIPS_SOURCE()/G_OBJECT() checks: those would call libvips' get_type functions, and libvips
     * is reached only through the table. */
    g_object_set_data_full((GObject *)source, "imgf-region", region, region_free);
    g_signal_connect_data(source, "read", G_CALLBACK(region_read), region, NULL, 0);
    g_signal_connect_data(source, "seek", G_CALLBACK(region_seek), region, NULL, 0);
    return (VipsSource *)source;
}

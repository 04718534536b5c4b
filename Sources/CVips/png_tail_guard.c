/* Stops libpng inflating a PNG's image data far past its last row (see imgf_vips.h, imgf_png_guard_install).
 *
 * After the last row, libpng (1.6, which libvips 8.14 reads PNG with) inflates whatever is left of the IDAT stream in
 * one loop that nothing stops: 10 MB of crafted data inflate to 10 GiB in about 20 s. So PNGCheck used to inflate
 * every large PNG's image data before the decode to find such data, which cost a PNG photo its inflating twice.
 *
 * These definitions take libpng's names for the two calls libvips makes around a read: png_set_read_fn, which gives
 * libpng libvips' reader, and png_destroy_read_struct. The executables that start libvips export them (Package.swift
 * passes --export-dynamic-symbol), so libvips' calls bind here first. The reader libpng gets is ours: it calls
 * libvips' and follows the chunks in the bytes it hands on; IDAT bytes asked for once libpng's last row is read
 * (png_get_current_row_number at the image's height, or pass 7 of an interlaced one) are counted, and past
 * IMGF_PNG_TAIL_BYTES the read fails with png_error, which ends the decode. The inflating past the last row is then
 * at most what those bytes and libpng's buffer of at most 8 KiB inflate to (1032 times as much): about the 64 MiB
 * past the image that PNGCheck allows. libvips lets such a decode through when it does not fail on truncation (its
 * rows are all read by then), so the guard also counts its stops: a rendering in whose time the count moved, or that
 * failed, checks its PNG whole (PNGTailGuard.swift), to refuse a decompression bomb as the check would have. */
#define _GNU_SOURCE
#include "imgf_vips.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef void *png_ptr_t;
typedef void (*png_reader)(png_ptr_t png, unsigned char *data, size_t length);

/* libpng's own functions, found once by imgf_png_guard_install (before libvips can call ours). */
static void (*libpng_set_read_fn)(png_ptr_t png, void *io, png_reader reader);
static void (*libpng_destroy_read_struct)(png_ptr_t *png, void **info, void **end_info);
static uint32_t (*libpng_current_row)(png_ptr_t png);
static unsigned char (*libpng_current_pass)(png_ptr_t png);
static void (*libpng_error)(png_ptr_t png, const char *message);
/* Where libvips is loaded: libpng's other users in the process (FreeType, gdk-pixbuf) reach the stand-ins too, and
 * are guarded alike, but only a call from libvips shows that libvips reads PNG with libpng. */
static void *libvips_base;
/* Whether libvips has given libpng a reader through ours: only then does a decode run under the guard. */
static atomic_int guard_seen;
/* How many decodes the guard has ended: libvips may let such a decode through (its rows are all read by then). */
static atomic_long guard_trips;

/* Where a read is in the PNG's bytes, for one libpng read struct. */
typedef struct {
    png_ptr_t png;
    png_reader inner;
    uint64_t offset;           /* bytes handed on so far */
    uint64_t chunk_start;      /* offset of the current chunk's data */
    uint64_t chunk_end;        /* offset where the current chunk's data ends (its CRC follows) */
    uint64_t next_chunk;       /* offset of the next chunk's header */
    unsigned char header[8];   /* the chunk header being read */
    unsigned char ihdr[13];    /* IHDR's data as it is read */
    uint32_t height;           /* IHDR's */
    int interlaced;
    uint64_t tail;             /* IDAT bytes asked for after the last row */
} guarded_read;

/* Process-wide by nature, as libpng's read structs and the reader libvips gives them are: one entry a struct between
 * png_set_read_fn and png_destroy_read_struct. */
static pthread_mutex_t reads_lock = PTHREAD_MUTEX_INITIALIZER;
static guarded_read *reads;
static size_t read_count, read_capacity;

/* The entry of `png`, or NULL; under reads_lock. */
static guarded_read *find(png_ptr_t png) {
    for (size_t i = 0; i < read_count; i++)
        if (reads[i].png == png) return &reads[i];
    return NULL;
}

/* A new entry for `png` (its old one if it has one), or NULL without memory; under reads_lock. */
static guarded_read *entry_for(png_ptr_t png) {
    guarded_read *entry = find(png);
    if (!entry && read_count == read_capacity) {
        size_t capacity = read_capacity ? read_capacity * 2 : 16;
        guarded_read *grown = realloc(reads, capacity * sizeof *reads);
        if (!grown) return NULL;
        reads = grown;
        read_capacity = capacity;
    }
    if (!entry) entry = &reads[read_count++];
    return entry;
}

static void forget(png_ptr_t png) {
    pthread_mutex_lock(&reads_lock);
    guarded_read *entry = find(png);
    if (entry) *entry = reads[--read_count];
    pthread_mutex_unlock(&reads_lock);
}

static int is_type(const guarded_read *entry, const char *type) { return memcmp(entry->header + 4, type, 4) == 0; }

static uint32_t big_endian32(const unsigned char *bytes) {
    return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 | bytes[3];
}

/* Follows the chunk structure over `length` bytes just read at entry->offset: the 8-byte signature, then chunks of
 * a 4-byte length, a 4-byte type, the data and a 4-byte CRC. Data and CRCs are passed over in one step. */
static void follow(guarded_read *entry, const unsigned char *data, size_t length) {
    while (length > 0) {
        uint64_t at = entry->offset;
        size_t step;
        if (at < 8) {
            step = (size_t)(8 - at) < length ? (size_t)(8 - at) : length;
        } else if (at >= entry->next_chunk) {
            step = 1;
            entry->header[at - entry->next_chunk] = data[0];
            if (at == entry->next_chunk + 7) {
                entry->chunk_start = at + 1;
                entry->chunk_end = entry->chunk_start + big_endian32(entry->header);
                entry->next_chunk = entry->chunk_end + 4;
            }
        } else if (is_type(entry, "IHDR") && at < entry->chunk_start + 13 && at < entry->chunk_end) {
            step = 1;
            entry->ihdr[at - entry->chunk_start] = data[0];
            if (at == entry->chunk_start + 12) {
                entry->height = big_endian32(entry->ihdr + 4);
                entry->interlaced = entry->ihdr[12] != 0;
            }
        } else {
            uint64_t left = entry->next_chunk - at;
            step = left < length ? (size_t)left : length;
        }
        entry->offset += step;
        data += step;
        length -= step;
    }
}

/* Whether libpng has read its last row (pass 7 is past the last of an interlaced image's 7 passes). */
static int rows_done(const guarded_read *entry) {
    if (entry->height == 0) return 0;
    if (entry->interlaced) return libpng_current_pass(entry->png) >= 7;
    return libpng_current_row(entry->png) >= entry->height;
}

static void guarded_reader(png_ptr_t png, unsigned char *data, size_t length) {
    pthread_mutex_lock(&reads_lock);
    guarded_read *entry = find(png);
    png_reader inner = entry ? entry->inner : NULL;
    pthread_mutex_unlock(&reads_lock);
    if (!inner) libpng_error(png, "imgfetch: no reader for this PNG");
    inner(png, data, length); /* may end the read itself with png_error */
    int over = 0;
    pthread_mutex_lock(&reads_lock);
    entry = find(png);
    if (entry) {
        uint64_t start = entry->offset;
        int image_data = is_type(entry, "IDAT") && start >= entry->chunk_start && start < entry->chunk_end;
        follow(entry, data, length);
        if (image_data && rows_done(entry)) entry->tail += length;
        over = entry->tail > IMGF_PNG_TAIL_BYTES;
    }
    pthread_mutex_unlock(&reads_lock);
    if (!over) return;
    atomic_fetch_add_explicit(&guard_trips, 1, memory_order_relaxed);
    libpng_error(png, "imgfetch: the image data goes on past the image's last row");
}

void png_set_read_fn(png_ptr_t png, void *io, png_reader reader) {
    if (!libpng_set_read_fn) { /* libvips has not started through imgf_vips_start: libpng's own, unguarded */
        void (*own)(png_ptr_t, void *, png_reader) =
            (void (*)(png_ptr_t, void *, png_reader))dlsym(RTLD_NEXT, "png_set_read_fn");
        if (own) own(png, io, reader);
        return;
    }
    if (!(png && reader && libpng_current_row && libpng_current_pass && libpng_error)) {
        libpng_set_read_fn(png, io, reader); /* unguarded (no reader, or libpng lacks a function): not counted as seen */
        return;
    }
    /* Without memory for the entry the guarded reader finds none and fails the read: once a guard was seen, the
     * integrity check leaves the tail's bound to it, so an unguarded read would be unbounded. */
    pthread_mutex_lock(&reads_lock);
    guarded_read *entry = entry_for(png);
    if (entry) *entry = (guarded_read){.png = png, .inner = reader, .next_chunk = 8};
    pthread_mutex_unlock(&reads_lock);
    Dl_info caller;
    if (libvips_base && dladdr(__builtin_return_address(0), &caller) && caller.dli_fbase == libvips_base)
        atomic_store_explicit(&guard_seen, 1, memory_order_relaxed);
    libpng_set_read_fn(png, io, guarded_reader);
}

void png_destroy_read_struct(png_ptr_t *png, void **info, void **end_info) {
    if (png && *png) forget(*png);
    void (*own)(png_ptr_t *, void **, void **) = libpng_destroy_read_struct;
    if (!own) own = (void (*)(png_ptr_t *, void **, void **))dlsym(RTLD_NEXT, "png_destroy_read_struct");
    if (own) own(png, info, end_info);
}

void imgf_png_guard_install(void) {
    if (libpng_set_read_fn) return;
    void *libpng = dlopen("libpng16.so.16", RTLD_LAZY | RTLD_NOLOAD);
    if (!libpng) return;
    libpng_set_read_fn = dlsym(libpng, "png_set_read_fn");
    libpng_destroy_read_struct = dlsym(libpng, "png_destroy_read_struct");
    libpng_current_row = dlsym(libpng, "png_get_current_row_number");
    libpng_current_pass = dlsym(libpng, "png_get_current_pass_number");
    libpng_error = dlsym(libpng, "png_error");
    dlclose(libpng); /* NOLOAD took a reference; libvips holds the library open */
    Dl_info libvips;
    if (dladdr((void *)imgf_vips()->vips_init, &libvips)) libvips_base = libvips.dli_fbase;
}

int imgf_png_guard_seen(void) { return atomic_load_explicit(&guard_seen, memory_order_relaxed); }

long imgf_png_guard_trips(void) { return atomic_load_explicit(&guard_trips, memory_order_relaxed); }

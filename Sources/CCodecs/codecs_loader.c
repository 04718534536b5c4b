/* Opens snappy and zstd at run time and decompresses Parquet pages through them and zlib, and compresses with
 * snappy (see imgf_codecs.h). */
#include "imgf_codecs.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#define IMGF_CODEC_FIELD(name) __typeof__(name) *name;
static struct { IMGF_SNAPPY_SYMBOLS(IMGF_CODEC_FIELD) } snappy;
static struct { IMGF_ZSTD_SYMBOLS(IMGF_CODEC_FIELD) } zstd;
#undef IMGF_CODEC_FIELD

static char error[256];
static int snappy_loaded, zstd_loaded;
static pthread_once_t snappy_once = PTHREAD_ONCE_INIT, zstd_once = PTHREAD_ONCE_INIT;

#define IMGF_CODEC_RESOLVE(table, library, soname, name) \
    table.name = (__typeof__(name) *)dlsym(library, #name); \
    if (!table.name) { snprintf(error, sizeof error, "%s lacks %s", soname, #name); return; }

static void load_snappy(void) {
    void *library = dlopen("libsnappy.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!library) { snprintf(error, sizeof error, "cannot open libsnappy: %s", dlerror()); return; }
#define IMGF_SNAPPY_RESOLVE(name) IMGF_CODEC_RESOLVE(snappy, library, "libsnappy", name)
    IMGF_SNAPPY_SYMBOLS(IMGF_SNAPPY_RESOLVE)
#undef IMGF_SNAPPY_RESOLVE
    snappy_loaded = 1;
}

static void load_zstd(void) {
    void *library = dlopen("libzstd.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!library) { snprintf(error, sizeof error, "cannot open libzstd: %s", dlerror()); return; }
#define IMGF_ZSTD_RESOLVE(name) IMGF_CODEC_RESOLVE(zstd, library, "libzstd", name)
    IMGF_ZSTD_SYMBOLS(IMGF_ZSTD_RESOLVE)
#undef IMGF_ZSTD_RESOLVE
    zstd_loaded = 1;
}

imgf_codec_status imgf_snappy_decompress(const void *in, size_t count, void *out, size_t capacity) {
    pthread_once(&snappy_once, load_snappy);
    if (!snappy_loaded) return IMGF_CODEC_UNAVAILABLE;
    size_t length = 0;
    if (snappy.snappy_uncompressed_length(in, count, &length) != SNAPPY_OK || length != capacity) return IMGF_CODEC_CORRUPT;
    if (snappy.snappy_uncompress(in, count, out, &length) != SNAPPY_OK || length != capacity) return IMGF_CODEC_CORRUPT;
    return IMGF_CODEC_OK;
}

imgf_codec_status imgf_snappy_compress(const void *in, size_t count, void *out, size_t *length) {
    pthread_once(&snappy_once, load_snappy);
    if (!snappy_loaded) return IMGF_CODEC_UNAVAILABLE;
    *length = snappy.snappy_max_compressed_length(count);
    return snappy.snappy_compress(in, count, out, length) == SNAPPY_OK ? IMGF_CODEC_OK : IMGF_CODEC_CORRUPT;
}

size_t imgf_snappy_bound(size_t count) {
    pthread_once(&snappy_once, load_snappy);
    return snappy_loaded ? snappy.snappy_max_compressed_length(count) : 0;
}

imgf_codec_status imgf_zstd_decompress(const void *in, size_t count, void *out, size_t capacity) {
    pthread_once(&zstd_once, load_zstd);
    if (!zstd_loaded) return IMGF_CODEC_UNAVAILABLE;
    size_t length = zstd.ZSTD_decompress(out, capacity, in, count);
    if (zstd.ZSTD_isError(length) || length != capacity) return IMGF_CODEC_CORRUPT;
    return IMGF_CODEC_OK;
}

imgf_codec_status imgf_gzip_decompress(const void *in, size_t count, void *out, size_t capacity) {
    if (count > UINT32_MAX || capacity > UINT32_MAX) return IMGF_CODEC_CORRUPT;
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    /* 32 + 15: a gzip or a zlib header, whichever is there. */
    if (inflateInit2(&stream, 32 + MAX_WBITS) != Z_OK) return IMGF_CODEC_CORRUPT;
    stream.next_in = (Bytef *)in;
    stream.avail_in = (uInt)count;
    stream.next_out = (Bytef *)out;
    stream.avail_out = (uInt)capacity;
    int status;
    for (;;) {
        status = inflate(&stream, Z_NO_FLUSH);
        if (status == Z_STREAM_END && stream.avail_in > 0 && inflateReset(&stream) == Z_OK) continue;  /* next member */
        if (status != Z_OK) break;  /* the end, an error, or no progress possible (Z_BUF_ERROR) */
    }
    int complete = status == Z_STREAM_END && stream.avail_in == 0 && stream.avail_out == 0;
    inflateEnd(&stream);
    return complete ? IMGF_CODEC_OK : IMGF_CODEC_CORRUPT;
}

const char *imgf_codec_load_error(void) {
    return error;
}

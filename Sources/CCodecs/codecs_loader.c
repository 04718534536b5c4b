/* Opens snappy, zstd, LZ4 and Brotli at run time and decompresses Parquet pages through them and zlib, and
 * compresses with snappy (see imgf_codecs.h). */
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
static struct { IMGF_LZ4_SYMBOLS(IMGF_CODEC_FIELD) } lz4;
static struct { IMGF_BROTLI_SYMBOLS(IMGF_CODEC_FIELD) } brotli;
#undef IMGF_CODEC_FIELD

static char snappy_error[256], zstd_error[256], lz4_error[256], brotli_error[256];
static int snappy_loaded, zstd_loaded, lz4_loaded, brotli_loaded;
static pthread_once_t snappy_once = PTHREAD_ONCE_INIT, zstd_once = PTHREAD_ONCE_INIT;
static pthread_once_t lz4_once = PTHREAD_ONCE_INIT, brotli_once = PTHREAD_ONCE_INIT;

/* Defines load_CODEC: opens SONAME (NAME in messages), resolves every function SYMBOLS lists into CODEC's table and
 * sets CODEC_loaded; when the library or a function is missing, `CODEC_error` says which and CODEC_loaded stays 0. */
#define IMGF_RESOLVE_INTO_TABLE(function) \
    table->function = (__typeof__(function) *)dlsym(library, #function); \
    if (!table->function) { snprintf(error, error_size, "%s lacks %s", name, #function); return; }
#define IMGF_DEFINE_LOADER(codec, soname, shown_name, SYMBOLS) \
    static void load_##codec(void) { \
        const char *name = shown_name; \
        __typeof__(codec) *table = &codec; \
        char *error = codec##_error; \
        size_t error_size = sizeof codec##_error; \
        void *library = dlopen(soname, RTLD_LAZY | RTLD_LOCAL); \
        if (!library) { snprintf(error, error_size, "cannot open %s: %s", name, dlerror()); return; } \
        SYMBOLS(IMGF_RESOLVE_INTO_TABLE) \
        codec##_loaded = 1; \
    }

IMGF_DEFINE_LOADER(snappy, "libsnappy.so.1", "libsnappy", IMGF_SNAPPY_SYMBOLS)
IMGF_DEFINE_LOADER(zstd, "libzstd.so.1", "libzstd", IMGF_ZSTD_SYMBOLS)
IMGF_DEFINE_LOADER(lz4, "liblz4.so.1", "liblz4", IMGF_LZ4_SYMBOLS)
IMGF_DEFINE_LOADER(brotli, "libbrotlidec.so.1", "libbrotlidec", IMGF_BROTLI_SYMBOLS)

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

/* One LZ4 block of `count` bytes into exactly `capacity` bytes (both within an int, as LZ4's API takes them). */
static int lz4_block(const char *in, size_t count, char *out, size_t capacity) {
    if (count > INT32_MAX || capacity > INT32_MAX) return 0;
    return lz4.LZ4_decompress_safe(in, out, (int)count, (int)capacity) == (int)capacity;
}

imgf_codec_status imgf_lz4_raw_decompress(const void *in, size_t count, void *out, size_t capacity) {
    pthread_once(&lz4_once, load_lz4);
    if (!lz4_loaded) return IMGF_CODEC_UNAVAILABLE;
    return lz4_block(in, count, out, capacity) ? IMGF_CODEC_OK : IMGF_CODEC_CORRUPT;
}

static uint32_t big_endian_32(const unsigned char *bytes) {
    return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 | bytes[3];
}

/* Hadoop's framing: blocks, each after its decompressed and compressed sizes, filling `capacity` exactly. */
static int lz4_hadoop_frames(const unsigned char *in, size_t count, char *out, size_t capacity) {
    size_t read = 0, written = 0;
    while (count - read >= 8) {
        size_t expanded = big_endian_32(in + read), stored = big_endian_32(in + read + 4);
        read += 8;
        if (stored > count - read || expanded > capacity - written) return 0;
        if (!lz4_block((const char *)in + read, stored, out + written, expanded)) return 0;
        read += stored;
        written += expanded;
    }
    return read == count && written == capacity;
}

imgf_codec_status imgf_lz4_hadoop_decompress(const void *in, size_t count, void *out, size_t capacity) {
    pthread_once(&lz4_once, load_lz4);
    if (!lz4_loaded) return IMGF_CODEC_UNAVAILABLE;
    if (lz4_hadoop_frames(in, count, out, capacity)) return IMGF_CODEC_OK;
    return lz4_block(in, count, out, capacity) ? IMGF_CODEC_OK : IMGF_CODEC_CORRUPT;
}

imgf_codec_status imgf_brotli_decompress(const void *in, size_t count, void *out, size_t capacity) {
    pthread_once(&brotli_once, load_brotli);
    if (!brotli_loaded) return IMGF_CODEC_UNAVAILABLE;
    size_t length = capacity;
    if (brotli.BrotliDecoderDecompress(count, in, &length, out) != BROTLI_DECODER_RESULT_SUCCESS) return IMGF_CODEC_CORRUPT;
    return length == capacity ? IMGF_CODEC_OK : IMGF_CODEC_CORRUPT;
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

const char *imgf_codec_load_error(imgf_codec_library library) {
    switch (library) {
    case IMGF_CODEC_SNAPPY: pthread_once(&snappy_once, load_snappy); return snappy_error;
    case IMGF_CODEC_ZSTD: pthread_once(&zstd_once, load_zstd); return zstd_error;
    case IMGF_CODEC_LZ4: pthread_once(&lz4_once, load_lz4); return lz4_error;
    case IMGF_CODEC_BROTLI: pthread_once(&brotli_once, load_brotli); return brotli_error;
    }
    return "";
}

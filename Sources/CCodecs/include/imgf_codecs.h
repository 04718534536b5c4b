/* The codecs of Parquet pages: the decompressors of a list read with --input-format parquet, snappy (Debian's
 * libsnappy-dev, snappy-c.h) and zstd (libzstd-dev, zstd.h), opened with dlopen on the first page that needs one, so
 * a run that reads no compressed Parquet list never loads them, and gzip through zlib, which the binary links
 * already; snappy's compressor for the tables written beside WebDataset tars (--parquet). The headers are included
 * for their types only: a direct call to snappy or zstd would not link. */
#ifndef IMGFETCH_CODECS_H
#define IMGFETCH_CODECS_H

#include <snappy-c.h>
#include <stddef.h>
#include <zstd.h>

#define IMGF_SNAPPY_SYMBOLS(X) \
    X(snappy_uncompress) \
    X(snappy_uncompressed_length) \
    X(snappy_compress) \
    X(snappy_max_compressed_length)

#define IMGF_ZSTD_SYMBOLS(X) \
    X(ZSTD_decompress) \
    X(ZSTD_isError) \
    X(ZSTD_getErrorName)

/* What a decompression ended with. */
typedef enum {
    IMGF_CODEC_OK = 0,
    /* The library could not be opened: imgf_codec_load_error() says why. */
    IMGF_CODEC_UNAVAILABLE = 1,
    /* The bytes are not a valid stream of the codec, or do not make exactly the size expected. */
    IMGF_CODEC_CORRUPT = 2,
} imgf_codec_status;

/* Decompresses `count` bytes of snappy's raw format into exactly `capacity` bytes at `out`. */
imgf_codec_status imgf_snappy_decompress(const void *in, size_t count, void *out, size_t capacity);

/* Compresses `count` bytes into snappy's raw format in a buffer of `imgf_snappy_bound(count)` bytes at `out`;
 * `*length` is set to the bytes written. */
imgf_codec_status imgf_snappy_compress(const void *in, size_t count, void *out, size_t *length);

/* The most bytes snappy's raw format takes for `count` bytes; 0 when libsnappy can't be opened. */
size_t imgf_snappy_bound(size_t count);

/* Decompresses one or more zstd frames into exactly `capacity` bytes at `out`. */
imgf_codec_status imgf_zstd_decompress(const void *in, size_t count, void *out, size_t capacity);

/* Decompresses gzip members (RFC 1952; zlib and raw deflate are also accepted) into exactly `capacity` bytes. */
imgf_codec_status imgf_gzip_decompress(const void *in, size_t count, void *out, size_t capacity);

/* Why the last library that could not be opened could not be (snappy's or zstd's); empty when both opened. */
const char *imgf_codec_load_error(void);

#endif

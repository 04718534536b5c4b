/* The codecs of Parquet pages: the decompressors of a list read with --input-format parquet, snappy (Debian's
 * libsnappy-dev, snappy-c.h), zstd (libzstd-dev, zstd.h), LZ4 (liblz4-dev, lz4.h) and Brotli (libbrotli-dev,
 * brotli/decode.h), opened with dlopen on the first page that needs one, so a run that reads no compressed Parquet
 * list never loads them, and gzip through zlib, which the binary links already; snappy's compressor for the tables
 * written beside WebDataset tars (--parquet). The headers are included for their types only: a direct call to
 * snappy, zstd, LZ4 or Brotli would not link. */
#ifndef IMGFETCH_CODECS_H
#define IMGFETCH_CODECS_H

#include <brotli/decode.h>
#include <lz4.h>
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

#define IMGF_LZ4_SYMBOLS(X) \
    X(LZ4_decompress_safe)

#define IMGF_BROTLI_SYMBOLS(X) \
    X(BrotliDecoderDecompress)

/* What a decompression ended with. */
typedef enum {
    IMGF_CODEC_OK = 0,
    /* The library could not be opened: imgf_codec_load_error(library) says why. */
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

/* Decompresses an LZ4 block (Parquet's LZ4_RAW) into exactly `capacity` bytes at `out`. */
imgf_codec_status imgf_lz4_raw_decompress(const void *in, size_t count, void *out, size_t capacity);

/* Decompresses Parquet's older LZ4 codec into exactly `capacity` bytes: Hadoop's framing (each block after its
 * decompressed and compressed sizes, 4 bytes big-endian each), or, as Arrow reads it, one bare LZ4 block when the
 * bytes are not so framed. */
imgf_codec_status imgf_lz4_hadoop_decompress(const void *in, size_t count, void *out, size_t capacity);

/* Decompresses a Brotli stream into exactly `capacity` bytes at `out`. */
imgf_codec_status imgf_brotli_decompress(const void *in, size_t count, void *out, size_t capacity);

/* Decompresses gzip members (RFC 1952; zlib and raw deflate are also accepted) into exactly `capacity` bytes. */
imgf_codec_status imgf_gzip_decompress(const void *in, size_t count, void *out, size_t capacity);

/* The libraries the codecs are opened from, each on first use. */
typedef enum { IMGF_CODEC_SNAPPY, IMGF_CODEC_ZSTD, IMGF_CODEC_LZ4, IMGF_CODEC_BROTLI } imgf_codec_library;

/* Why `library` could not be opened (each has its own text, written once, before its first use returns); empty
 * when it opened or was not asked for yet. */
const char *imgf_codec_load_error(imgf_codec_library library);

#endif

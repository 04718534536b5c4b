#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "imgf_integrity.h"

#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <jpeglib.h>
#include <jerror.h>

struct imgf_inflater {
    z_stream stream;
    unsigned char scratch[65536];
};

imgf_inflater *imgf_inflater_new(void) {
    imgf_inflater *inflater = calloc(1, sizeof *inflater);
    if (inflater && inflateInit(&inflater->stream) != Z_OK) {
        free(inflater);
        return NULL;
    }
    return inflater;
}

/* One inflate call into the scratch buffer (at most its 64 KiB out): 1 at the stream's end, 0 when it wants more
 * input or has more output pending (`*pending`), -1 on a data error, 2 past `limit`. */
static int inflate_step(imgf_inflater *inflater, uint64_t limit, int *pending) {
    z_stream *stream = &inflater->stream;
    stream->next_out = inflater->scratch;
    stream->avail_out = sizeof inflater->scratch;
    int status = inflate(stream, Z_NO_FLUSH);
    if (status == Z_STREAM_END) return 1;
    if (stream->total_out > limit) return 2;
    *pending = status == Z_OK && stream->avail_out == 0;
    if (status == Z_BUF_ERROR || status == Z_OK) return 0;
    return -1;
}

int imgf_inflater_feed(imgf_inflater *inflater, const void *data, size_t length, uint64_t limit) {
    z_stream *stream = &inflater->stream;
    stream->next_in = (Bytef *)data;
    stream->avail_in = (uInt)length;
    int pending = 1;
    while (stream->avail_in > 0) {
        int status = inflate_step(inflater, limit, &pending);
        if (status != 0) return status;
        if (!pending && stream->avail_in > 0 && stream->avail_out > 0) return 0; /* Z_BUF_ERROR: no progress */
    }
    /* The input is used up, but output may still be pending in zlib's window. */
    while (pending) {
        int status = inflate_step(inflater, limit, &pending);
        if (status != 0) return status;
    }
    return 0;
}

uint64_t imgf_inflater_total(const imgf_inflater *inflater) { return inflater->stream.total_out; }

void imgf_inflater_free(imgf_inflater *inflater) {
    if (!inflater) return;
    inflateEnd(&inflater->stream);
    free(inflater);
}

/* libjpeg's functions, looked up in the copy libvips loaded (imgfetch links neither), under a lock: threads checking
 * JPEGs at once all wait for the look-up (a flag set before it finished let a second thread see "looked, nothing
 * found" and skip the check). Only a complete look-up is kept: one made before libvips was loaded is made again. */
static struct {
    __typeof__(jpeg_std_error) *std_error;
    __typeof__(jpeg_CreateDecompress) *create;
    __typeof__(jpeg_read_header) *read_header;
    __typeof__(jpeg_start_decompress) *start;
    __typeof__(jpeg_read_scanlines) *read_scanlines;
    __typeof__(jpeg_destroy_decompress) *destroy;
    __typeof__(jpeg_resync_to_restart) *resync;
} jpeg;
static pthread_mutex_t jpeg_lock = PTHREAD_MUTEX_INITIALIZER;

static void find_jpeg(void) {
    /* libvips is opened RTLD_GLOBAL, so its libjpeg's symbols are global whatever that library's file name. */
    void *library = dlopen("libjpeg.so.62", RTLD_LAZY | RTLD_NOLOAD);
    if (!library) library = RTLD_DEFAULT;
#define LOOK(field, name) jpeg.field = (__typeof__(jpeg.field))dlsym(library, #name); if (!jpeg.field) return;
    LOOK(create, jpeg_CreateDecompress) LOOK(read_header, jpeg_read_header) LOOK(start, jpeg_start_decompress)
    LOOK(read_scanlines, jpeg_read_scanlines) LOOK(destroy, jpeg_destroy_decompress) LOOK(resync, jpeg_resync_to_restart)
    LOOK(std_error, jpeg_std_error)
#undef LOOK
}

/* Whether every function was found (std_error, looked up last, is set only then). */
static int look_up_jpeg(void) {
    pthread_mutex_lock(&jpeg_lock);
    if (!jpeg.std_error) find_jpeg();
    int found = jpeg.std_error != NULL;
    pthread_mutex_unlock(&jpeg_lock);
    return found;
}

typedef struct {
    struct jpeg_source_mgr manager;
    const unsigned char *memory;
    size_t length, position;
    int descriptor;
    int64_t offset;
    unsigned char buffer[65536];
    int ended;            /* the data ran out (a fake end-of-image marker follows) */
    int short_of_data;    /* the entropy decoder needed bits past the end: pixel data is missing */
    unsigned rows_at_end; /* iMCU rows of the current scan complete when it first did */
} source_state;

typedef struct {
    struct jpeg_error_mgr manager;
    jmp_buf escape;
} error_state;

static const JOCTET fake_end[2] = { 0xFF, JPEG_EOI };

static void init_source(j_decompress_ptr cinfo) { (void)cinfo; }
static void term_source(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean fill_input(j_decompress_ptr cinfo) {
    source_state *source = (source_state *)cinfo->src;
    size_t got = 0;
    if (source->position < source->length) {
        if (source->memory) {
            got = source->length - source->position;
            source->manager.next_input_byte = source->memory + source->position;
        } else {
            size_t wanted = source->length - source->position;
            if (wanted > sizeof source->buffer) wanted = sizeof source->buffer;
            ssize_t read = pread(source->descriptor, source->buffer, wanted, (off_t)(source->offset + (int64_t)source->position));
            got = read > 0 ? (size_t)read : 0;
            source->manager.next_input_byte = source->buffer;
        }
    }
    if (got == 0) {
        source->ended = 1;
        source->manager.next_input_byte = fake_end;
        source->manager.bytes_in_buffer = 2;
        return TRUE;
    }
    source->position += got;
    source->manager.bytes_in_buffer = got;
    return TRUE;
}

static void skip_input(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *manager = cinfo->src;
    while (count > (long)manager->bytes_in_buffer) {
        count -= (long)manager->bytes_in_buffer;
        fill_input(cinfo);
        if (((source_state *)manager)->ended) return;
    }
    manager->next_input_byte += count;
    manager->bytes_in_buffer -= (size_t)count;
}

static void escape_on_error(j_common_ptr cinfo) { longjmp(((error_state *)cinfo->err)->escape, 1); }
/* The entropy decoders warn JWRN_HIT_MARKER when a marker cuts their data short and they stuff zeros: after the
 * data has run out that marker is our fake end, so rows are missing (a missing EOI after complete data never
 * gets here: the decoder only reads ahead there, it needs no more bits). */
static void note_message(j_common_ptr common, int level) {
    j_decompress_ptr cinfo = (j_decompress_ptr)common;
    source_state *source = (source_state *)cinfo->src;
    if (level < 0 && common->err->msg_code == JWRN_HIT_MARKER && source && source->ended && !source->short_of_data) {
        source->short_of_data = 1;
        source->rows_at_end = cinfo->input_iMCU_row;
    }
}
static void ignore_output(j_common_ptr cinfo) { (void)cinfo; }

/* The check's source: `length` bytes from `memory`, else from `descriptor` at `offset`. */
static void set_up_source(source_state *source, const unsigned char *memory, size_t length, int descriptor,
                          int64_t offset) {
    source->memory = memory;
    source->length = length;
    source->descriptor = descriptor;
    source->offset = offset;
    source->manager.init_source = init_source;
    source->manager.fill_input_buffer = fill_input;
    source->manager.skip_input_data = skip_input;
    source->manager.resync_to_restart = jpeg.resync;
    source->manager.term_source = term_source;
}

int imgf_jpeg_rows(const unsigned char *memory, size_t length, int descriptor, int64_t offset, long max_memory,
                   int *rows, int *height) {
    *rows = 0;
    *height = 0;
    if (!look_up_jpeg()) return -2;
    struct jpeg_decompress_struct cinfo;
    error_state errors;
    source_state *source = calloc(1, sizeof *source);
    JSAMPLE *volatile line = NULL;
    if (!source) return -2; /* no verdict must not pass a torn image */
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = jpeg.std_error(&errors.manager);
    errors.manager.error_exit = escape_on_error;
    errors.manager.emit_message = note_message;
    errors.manager.output_message = ignore_output;
    volatile int result = -1;
    volatile int created = 0;
    if (setjmp(errors.escape)) {
        if (!created) { result = -2; goto done; } /* another libjpeg version's structures */
        /* libjpeg gave up: truncated only if the data had run out by then (before any scan: no rows at all). */
        if (source->ended && !source->short_of_data) source->rows_at_end = cinfo.total_iMCU_rows > 0 ? cinfo.input_iMCU_row : 0;
        result = source->ended ? 1 : -1;
        goto done;
    }
    jpeg.create(&cinfo, JPEG_LIB_VERSION, sizeof cinfo);
    created = 1;
    /* Over this, libjpeg asks for backing store, which this build has none of: an error, not an allocation. */
    if (max_memory > 0) cinfo.mem->max_memory_to_use = max_memory;
    set_up_source(source, memory, length, descriptor, offset);
    cinfo.src = &source->manager;
    jpeg.read_header(&cinfo, TRUE);
    *height = (int)cinfo.image_height;
    cinfo.scale_num = 1;
    cinfo.scale_denom = 8;
    cinfo.dct_method = JDCT_IFAST;
    cinfo.do_fancy_upsampling = FALSE;
    cinfo.do_block_smoothing = FALSE;
    if (cinfo.jpeg_color_space == JCS_YCbCr || cinfo.jpeg_color_space == JCS_GRAYSCALE) cinfo.out_color_space = JCS_GRAYSCALE;
    jpeg.start(&cinfo);
    line = malloc((size_t)cinfo.output_width * (size_t)cinfo.output_components + 16);
    if (!line) {
        result = -2;
        goto done;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = line;
        if (jpeg.read_scanlines(&cinfo, &row, 1) != 1) break;
    }
    result = source->short_of_data ? 1 : 0;
done:
    if (result == 1) {
        unsigned reached = source->rows_at_end * (unsigned)(cinfo.max_v_samp_factor > 0 ? cinfo.max_v_samp_factor : 1) * DCTSIZE;
        *rows = (int)(reached < cinfo.image_height ? reached : cinfo.image_height);
    }
    free(line);
    jpeg.destroy(&cinfo);
    free(source);
    return result;
}

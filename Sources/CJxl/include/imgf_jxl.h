/* libjxl's Butteraugli API (Debian's libjxl-dev, jxl/butteraugli.h), opened with dlopen on first use: a run that
 * measures no distance (every run without --quality auto) never loads libjxl and the five libraries it brings
 * (highway, brotli, lcms2). butteraugli.h is included for its types only: a direct call would not link. */
#ifndef IMGFETCH_JXL_H
#define IMGFETCH_JXL_H

#include <jxl/butteraugli.h>
#include <stddef.h>

#define IMGF_JXL_SYMBOLS(X) \
    X(JxlButteraugliApiCreate) \
    X(JxlButteraugliApiDestroy) \
    X(JxlButteraugliCompute) \
    X(JxlButteraugliResultGetDistance) \
    X(JxlButteraugliResultDestroy)

#define IMGF_JXL_FIELD(name) __typeof__(name) *name;
typedef struct { IMGF_JXL_SYMBOLS(IMGF_JXL_FIELD) } imgf_jxl_table;
#undef IMGF_JXL_FIELD

/* Opens libjxl.so.0.7 once (thread-safe) and returns its table, or NULL with the reason in imgf_jxl_error(). */
const imgf_jxl_table *imgf_jxl(void);

/* Why the table could not be had; empty after a successful imgf_jxl(). */
const char *imgf_jxl_error(void);

#endif

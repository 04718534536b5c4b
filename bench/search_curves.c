/* The curves `--quality auto` JPEG searches over, for each photo: its 200 px thumbnail (vips_thumbnail to fit
 * 200x200, flattened onto white, as `imgfetch --resize 200x200` renders it) encoded at every quality from 10 to 100 in
 * the searched coding (optimised Huffman tables, no chroma subsampling, metadata stripped), each result's size in
 * bytes and its Butteraugli distance (libjxl's 3-norm, linear-light floats) from the thumbnail. One line a quality:
 *
 *   PATH QUALITY BYTES DISTANCE
 *
 * bench/search_sim.py replays the search over these lines. 91 Butteraugli calls a photo, about 1.5 s of CPU each:
 * split a long list over the cores.
 *
 *   gcc -O2 bench/search_curves.c -o search_curves $(pkg-config --cflags --libs vips libjxl) -lm
 *   ls bench/work/www-r1/photos/photo-* | ./search_curves > curves.txt
 */
#include <jxl/butteraugli.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <vips/vips.h>

static float to_linear[256];

/* The image as 8-bit sRGB without alpha (flattened onto white), in linear light, 3 floats a pixel. */
static float *linear_pixels(VipsImage *image, int *width, int *height) {
    VipsImage *steps[4] = {NULL, NULL, NULL, NULL};
    VipsImage *current = image;
    if (vips_image_get_interpretation(current) != VIPS_INTERPRETATION_sRGB || current->Bands < 3) {
        if (vips_colourspace(current, &steps[0], VIPS_INTERPRETATION_sRGB, NULL)) return NULL;
        current = steps[0];
    }
    if (vips_image_hasalpha(current)) {
        VipsArrayDouble *white = vips_array_double_newv(3, 255.0, 255.0, 255.0);
        int failed = vips_flatten(current, &steps[1], "background", white, NULL);
        vips_area_unref(VIPS_AREA(white));
        if (failed) return NULL;
        current = steps[1];
    }
    if (vips_cast_uchar(current, &steps[2], NULL)) return NULL;
    current = steps[2];
    if (current->Bands > 3) {
        if (vips_extract_band(current, &steps[3], 0, "n", 3, NULL)) return NULL;
        current = steps[3];
    }
    size_t count;
    unsigned char *bytes = vips_image_write_to_memory(current, &count);
    *width = current->Xsize;
    *height = current->Ysize;
    for (int i = 0; i < 4; i++)
        if (steps[i]) g_object_unref(steps[i]);
    if (!bytes) return NULL;
    float *linear = g_new(float, count);
    for (size_t i = 0; i < count; i++) linear[i] = to_linear[bytes[i]];
    g_free(bytes);
    return linear;
}

static double butteraugli(const float *reference, const float *distorted, int width, int height) {
    JxlPixelFormat format = {3, JXL_TYPE_FLOAT, JXL_NATIVE_ENDIAN, 0};
    size_t size = (size_t)width * height * 3 * sizeof(float);
    JxlButteraugliApi *api = JxlButteraugliApiCreate(NULL);
    JxlButteraugliResult *result =
        JxlButteraugliCompute(api, width, height, &format, reference, size, &format, distorted, size);
    double distance = result ? JxlButteraugliResultGetDistance(result, 3) : -1;
    JxlButteraugliResultDestroy(result);
    JxlButteraugliApiDestroy(api);
    return distance;
}

/* Prints the 91 lines of one photo; returns 0, or -1 when it could not be read. */
static int curve(const char *path) {
    VipsImage *thumbnail, *flat = NULL;
    if (vips_thumbnail(path, &thumbnail, 200, "height", 200, NULL)) return -1;
    VipsImage *image = vips_image_copy_memory(thumbnail);
    g_object_unref(thumbnail);
    int width, height;
    float *reference = image ? linear_pixels(image, &width, &height) : NULL;
    if (reference && vips_image_hasalpha(image)) {
        VipsArrayDouble *white = vips_array_double_newv(3, 255.0, 255.0, 255.0);
        if (vips_flatten(image, &flat, "background", white, NULL)) flat = NULL;
        vips_area_unref(VIPS_AREA(white));
    }
    VipsImage *source = flat ? flat : image;
    for (int quality = 10; reference && quality <= 100; quality++) {
        void *encoded;
        size_t length;
        if (vips_jpegsave_buffer(source, &encoded, &length, "Q", quality, "optimize_coding", TRUE, "subsample_mode",
                                 VIPS_FOREIGN_SUBSAMPLE_OFF, "strip", TRUE, NULL))
            break;
        VipsImage *decoded = vips_image_new_from_buffer(encoded, length, "", NULL);
        int decoded_width, decoded_height;
        float *distorted = decoded ? linear_pixels(decoded, &decoded_width, &decoded_height) : NULL;
        if (distorted)
            printf("%s %d %zu %.5f\n", path, quality, length, butteraugli(reference, distorted, width, height));
        g_free(distorted);
        if (decoded) g_object_unref(decoded);
        g_free(encoded);
    }
    g_free(reference);
    if (flat) g_object_unref(flat);
    if (image) g_object_unref(image);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1) {
        fprintf(stderr, "usage: %s < LIST (one photo path a line)\n", argv[0]);
        return 2;
    }
    if (VIPS_INIT(argv[0])) return 2;
    vips_concurrency_set(1);
    vips_cache_set_max(0);
    for (int i = 0; i < 256; i++) {
        double encoded = i / 255.0;
        to_linear[i] = encoded <= 0.04045 ? encoded / 12.92 : pow((encoded + 0.055) / 1.055, 2.4);
    }
    char path[4096];
    while (fgets(path, sizeof path, stdin)) {
        path[strcspn(path, "\n")] = 0;
        if (path[0] && curve(path)) {
            fprintf(stderr, "search_curves: %s: %s", path, vips_error_buffer());
            vips_error_clear();
        }
    }
    return 0;
}

/* What libvips 8.14 itself costs a small thumbnail, without imgfetch: each file read into memory, then
 * vips_thumbnail_buffer to fit SIZE x SIZE and vips_image_write_to_buffer as JPEG, one image at a time in one
 * thread, libvips' operation cache off and one libvips thread (as a batch's renderings run). Prints the CPU time
 * (user + system) an image, from the first file to the last.
 *
 *   gcc -O2 bench/vips_floor.c -o vips_floor $(pkg-config --cflags --libs vips)
 *   ./vips_floor 200 bench/work/www-r1/small/0000*.*            (or any list of files)
 */
#include <vips/vips.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv) {
    if (argc < 3 || VIPS_INIT(argv[0])) {
        fprintf(stderr, "usage: %s SIZE FILE...\n", argv[0]);
        return 2;
    }
    int size = atoi(argv[1]);
    vips_cache_set_max(0);
    vips_concurrency_set(1);
    double start = cpu_seconds();
    int done = 0;
    for (int i = 2; i < argc; i++) {
        gchar *bytes;
        gsize length;
        if (!g_file_get_contents(argv[i], &bytes, &length, NULL)) continue;
        VipsImage *thumbnail;
        if (vips_thumbnail_buffer(bytes, length, &thumbnail, size, "height", size, NULL) == 0) {
            void *encoded;
            size_t encoded_length;
            if (vips_image_write_to_buffer(thumbnail, ".jpg", &encoded, &encoded_length, NULL) == 0) {
                g_free(encoded);
                done++;
            }
            g_object_unref(thumbnail);
        }
        vips_error_clear();
        g_free(bytes);
    }
    if (done == 0) return 1;
    printf("%d images to %d px: %.2f ms of CPU an image\n", done, size, 1000 * (cpu_seconds() - start) / done);
    return 0;
}

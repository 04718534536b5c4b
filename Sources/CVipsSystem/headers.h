/* libvips' headers only: the library itself is opened with dlopen by the CVips target, so that runs which
 * decode nothing (cache hits, cache commands) never load its ~118 shared libraries. */
#include <vips/vips.h>
#include <gmodule.h>

/* xxHash (Debian's libxxhash-dev): XXH3-128 for the integrity digests of cache entries. */
#ifndef IMGF_XXHASH_SHIM_H
#define IMGF_XXHASH_SHIM_H
#include <xxhash.h>
#endif

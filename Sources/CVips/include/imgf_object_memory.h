/* Memory libvips allocates for an object, freed with the object through one record rather than a signal handler
 * for each block (object_memory.c). */
#ifndef IMGFETCH_CVIPS_OBJECT_MEMORY_H
#define IMGFETCH_CVIPS_OBJECT_MEMORY_H

/* How many blocks vips_malloc gave objects through their records on the calling thread. */
long imgf_object_blocks_given(void);
/* How many such blocks were freed with their objects on the calling thread. */
long imgf_object_blocks_freed(void);
/* Whether vips_malloc records an object's blocks (1, the default) or connects a handler for each, as libvips' own
 * does (0). */
void imgf_object_memory_set(int on);
/* Sends every allocation to libvips' own vips_malloc when the environment says IMGFETCH_OBJECT_MEMORY=libvips;
 * called by imgf_vips_start. */
void imgf_object_memory_read_environment(void);

#endif

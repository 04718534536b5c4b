/* Compiled liborc programs reused for programs of the same content (orc_code_cache.c), behind orc_guard.c's
 * compile and free. Both are called with orc_guard.c's lock held. */
#ifndef IMGFETCH_ORC_CODE_CACHE_H
#define IMGFETCH_ORC_CODE_CACHE_H

/* Gives `program` (an OrcProgram) the code compiled for an earlier program of the same instructions and variables,
 * or compiles it with `compile` (liborc's orc_program_compile) and keeps its code for later ones. Returns the
 * compile's result (an OrcCompileResult). */
int imgf_orc_compile_cached(void *program, int (*compile)(void *program));

/* Detaches kept code from `program` before liborc frees it (the code stays for the programs that share it). */
void imgf_orc_release_cached(void *program);

#endif

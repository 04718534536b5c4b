/* Compiled liborc programs kept for the programs libvips builds again with the same content (see orc_code_cache.h).
 *
 * libvips compiles its vector programs each time it builds an operation that has them: a reducev compiles one
 * program per five rows of its kernel, about 180 microseconds each, 3 per small thumbnail, for programs that differ
 * from the last image's only in their parameters' values (given when they run, not compiled in). liborc compiles a
 * program from its instructions and variables alone (orc_program_compile_full copies those, the target's and its
 * flags), so two programs whose instructions and variables are the same get the same machine code: the second is
 * given the first's, and it runs the same instructions on the same values. The program's name (libvips numbers
 * every one) only names the code in its assembly listing, which a program given cached code has not.
 *
 * The code stays as long as the process: the table is small (distinct programs are few: a reducev's depend on its
 * kernel's size) and bounded; past it, programs are compiled as before. Called with orc_guard.c's lock held. */
#include "orc_code_cache.h"

#include <orc/orcprogram.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* How many distinct programs keep their code; later ones are compiled each time (a batch's stay far below). */
#define IMGF_ORC_CACHE_SLOTS 512

typedef struct {
    unsigned char *key;
    size_t key_length;
    uint64_t hash;
    OrcCode *code;
    void *exec;
    int result;
} imgf_orc_cached;

/* Process-wide by nature, like the code memory it points into; only touched under orc_guard.c's lock. */
static imgf_orc_cached cache[IMGF_ORC_CACHE_SLOTS];
static int cached_count;
static atomic_long reused_count;

/* What liborc compiles a program from, as bytes: its instructions, its variables (their names' pointers left out,
 * the names appended) and its shape. NULL when it can't be allocated. Free with free(). */
static unsigned char *program_key(const OrcProgram *program, size_t *length) {
    size_t names = 0;
    for (int i = 0; i < ORC_N_VARIABLES; i++) {
        const OrcVariable *var = &program->vars[i];
        names += (var->name ? strlen(var->name) : 0) + (var->type_name ? strlen(var->type_name) : 0) + 2;
    }
    int shape[] = { program->n_insns, program->n_src_vars, program->n_dest_vars, program->n_param_vars,
                    program->n_const_vars, program->n_temp_vars, program->n_accum_vars, program->is_2d,
                    program->constant_n, program->n_multiple, program->n_minimum, program->n_maximum,
                    program->constant_m };
    size_t insns = (size_t)program->n_insns * sizeof(OrcInstruction);
    size_t total = sizeof shape + sizeof program->backup_func + insns + sizeof program->vars + names;
    unsigned char *key = calloc(1, total), *at = key;
    if (!key) return NULL;
    memcpy(at, shape, sizeof shape), at += sizeof shape;
    memcpy(at, &program->backup_func, sizeof program->backup_func), at += sizeof program->backup_func;
    memcpy(at, program->insns, insns), at += insns;
    OrcVariable *vars = (OrcVariable *)at;
    memcpy(vars, program->vars, sizeof program->vars), at += sizeof program->vars;
    for (int i = 0; i < ORC_N_VARIABLES; i++) {
        vars[i].name = NULL;
        vars[i].type_name = NULL;
        const OrcVariable *var = &program->vars[i];
        size_t n = var->name ? strlen(var->name) : 0;
        memcpy(at, var->name ? var->name : "", n), at += n + 1;
        n = var->type_name ? strlen(var->type_name) : 0;
        memcpy(at, var->type_name ? var->type_name : "", n), at += n + 1;
    }
    *length = total;
    return key;
}

/* FNV-1a over 8-byte words (the key is mostly zeros: a byte at a time would cost more than the look-up saves). */
static uint64_t key_hash(const unsigned char *bytes, size_t length) {
    uint64_t hash = 14695981039346656037ull;
    size_t i = 0;
    for (; i + 8 <= length; i += 8) {
        uint64_t word;
        memcpy(&word, bytes + i, 8);
        hash = (hash ^ word) * 1099511628211ull;
    }
    for (; i < length; i++) hash = (hash ^ bytes[i]) * 1099511628211ull;
    return hash;
}

int imgf_orc_compile_cached(void *pointer, int (*compile)(void *program)) {
    OrcProgram *program = pointer;
    /* Compiled again: liborc frees the code a program has before compiling, which must not be shared code. */
    imgf_orc_release_cached(program);
    if ((program->error_msg && *program->error_msg) || program->orccode) return compile(program);
    size_t length = 0;
    unsigned char *key = program_key(program, &length);
    if (!key) return compile(program);
    uint64_t hash = key_hash(key, length);
    for (int i = 0; i < cached_count; i++) {
        imgf_orc_cached *slot = &cache[i];
        if (slot->hash == hash && slot->key_length == length && !memcmp(slot->key, key, length)) {
            free(key);
            program->orccode = slot->code;
            program->code_exec = slot->exec;
            atomic_fetch_add_explicit(&reused_count, 1, memory_order_relaxed);
            return slot->result;
        }
    }
    int result = compile(program);
    if (ORC_COMPILE_RESULT_IS_SUCCESSFUL(result) && program->orccode && program->code_exec &&
        program->code_exec == program->orccode->exec && cached_count < IMGF_ORC_CACHE_SLOTS) {
        cache[cached_count++] = (imgf_orc_cached){ key, length, hash, program->orccode, program->code_exec, result };
        return result;
    }
    free(key);
    return result;
}

void imgf_orc_release_cached(void *pointer) {
    OrcProgram *program = pointer;
    if (!program->orccode) return;
    for (int i = 0; i < cached_count; i++) {
        if (cache[i].code == program->orccode) {
            program->orccode = NULL;
            return;
        }
    }
}

long imgf_orc_reused_compiles(void) { return atomic_load_explicit(&reused_count, memory_order_relaxed); }

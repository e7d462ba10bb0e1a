/* GPU kernel sources shared by the CUDA and OpenCL backends. */
#ifndef TALLY_GPU_SOURCES_H
#define TALLY_GPU_SOURCES_H

#include <stddef.h>
#include <stdint.h>

/* The kernel sources built into the library (generated from src/gpu/ by CMake). */
typedef struct { const char *name; const char *text; } tally__gpu_source;
extern const tally__gpu_source tally__gpu_sources[];

/* A source by name: $TALLY_KERNEL_DIR/name when that is set, else the built-in copy.
 * Returns a malloc'd string or NULL (why[] says why). */
char *tally__gpu_source_text(const char *name, char *why, size_t len);

/* The prelude (dialect_cuda.h or dialect_opencl.h) and the NULL-terminated sources, each
 * after a #line naming its file, so compiler messages point at the file and line a
 * developer edits. malloc'd; NULL with why[] on failure. */
char *tally__gpu_assemble(const char *prelude, const char *const *srcs, char *why, size_t len);

/* The -D definitions of reduce_part.clh / reduce_best.clh for a problem: the family and
 * flags, the layout (contig: 16-byte loads of contiguous runs), the block size. The same
 * for every GPU backend, so both compile the same specialisations. */
void tally__gpu_defs(const void *problem, int fam, int contig, int block, char *defs, size_t len);

/* The element span [lo, hi] (offsets from element 0, in elements; lo <= 0 <= hi) that
 * input `which` (0: in, 1: in2) of a problem touches: what a GPU backend copies. */
void tally__input_span(const void *problem, int which, int64_t *lo, int64_t *hi);

#endif

/* GPU kernel sources shared by the CUDA and OpenCL backends. */
#ifndef TALLY_GPU_SOURCES_H
#define TALLY_GPU_SOURCES_H

#include <stddef.h>

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

/* A compiler log that names lines of the assembled text ("<kernel>:499:1: error": NVIDIA's
 * OpenCL ignores #line) rewritten in place to name the source file and its line
 * ("reduce_best.clh:1:1: error"). Lines the log already names by file stay. */
void tally__gpu_map_log(const char *text, char *log, size_t len);

/* $TALLY_KERNEL_DEFS ("-DNAME=V ..."), for measuring a kernel's switches (bench --scan,
 * --hist; e.g. -DXSWZ=0 in scan.clh), appended to defs
 * (capacity cap) when it fits whole; ignored unless it is only -DNAME[=VALUE] words
 * (letters, digits, _ ; values also -) naming nothing defs already defines. */
void tally__gpu_defs_extra(char *defs, size_t cap);

#endif

/* The OpenCL backend's private declarations. */
#ifndef TALLY_OPENCL_H
#define TALLY_OPENCL_H

#include "cl_api.h"
#include "core/internal.h"
#include "core/part.h"

/* A built kernel, kept for the context's life (in-memory cache). */
typedef struct tally__ocl_kernel {
  struct tally__ocl_kernel *next;
  char *key; /* source set + options + entry */
  cl_program prog;
  cl_kernel kernel;
} tally__ocl_kernel;

typedef struct {
  tally_context base; /* must be first */
  const tally__cl_api *cl;
  int platform, index; /* "opencl:P:D" */
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue queue; /* in order: every call ends with the queue drained */
  char name[128], vendor[64], driver[64], version[64];
  cl_uint compute_units;
  cl_bitfield type;
  size_t max_wg;
  cl_ulong mem_bytes, local_bytes, max_alloc;
  int has_fp64;
  int has_atomic64; /* cl_khr_int64_base_atomics: the ladder's atomic rungs */
  int is_cpu; /* a CPU device: contiguous runs per work-item (RUNS in reduce_best.clh) */
  int block;   /* work-group size of the reduce kernel (a power of two) */
  int block_settled; /* block asked for (local=N), or set from the kernel's preferred multiple */
  size_t preferred_multiple; /* CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE (0: not asked yet) */
  int64_t gmax; /* work-groups per slice at most */
  tally__ocl_kernel *kernels;
  /* Scratch, grown on demand and kept. */
  cl_mem partials; size_t partials_bytes;
  cl_mem results; size_t results_bytes;
  cl_mem staging[2]; size_t staging_bytes[2]; /* host inputs */
  cl_mem offsets; size_t offsets_bytes;
  cl_mem ladder_buf[2]; size_t ladder_bytes; /* the ladder's part buffers (ladder.c) */
  cl_mem ladder_counter, ladder_result;
  tally_context *cpu; /* host threads (user reductions), opened when needed */
  /* Scans (scan.c): tile totals and carries, segment heads, a result for host outputs. */
  cl_mem scan_tiles, scan_carry; size_t scan_tiles_bytes, scan_carry_bytes;
  cl_mem scan_heads; size_t scan_heads_bytes;
  cl_mem scan_out; size_t scan_out_bytes;
  /* Histograms (hist.c). */
  cl_mem hist_edges, hist_rows, hist_counts, hist_tot;
  size_t hist_edges_bytes, hist_rows_bytes, hist_counts_bytes, hist_tot_bytes;
} tally__ocl_ctx;

/* Set the reduce kernel's work-group size and the grid cap that follows from it. */
void tally__ocl_set_block(tally__ocl_ctx *c, int block);

/* Record a failed OpenCL call: TALLY_ENOMEM for allocation failures, else TALLY_EBACKEND;
 * the message names the call and the error code. */
tally_status tally__ocl_fail(tally__ocl_ctx *c, cl_int e, const char *what);

/* The kernel `entry` of the dialect sources `srcs` built with `defs` for this device: from
 * the context's cache or clBuildProgram (TALLY_ECOMPILE carries the build log). */
tally_status tally__ocl_kernel_get(tally__ocl_ctx *c, const char *const *srcs, const char *defs,
                                   const char *entry, cl_kernel *k);
void tally__ocl_kernels_free(tally__ocl_ctx *c);

/* A kernel argument (clSetKernelArg's size and value; value NULL: a NULL cl_mem). */
typedef struct { size_t size; const void *value; } tally__ocl_arg;
/* Set arguments 0 .. nargs-1 of k; on failure the message names `what`. */
tally_status tally__ocl_set_args(tally__ocl_ctx *c, cl_kernel k, const tally__ocl_arg *args,
                                 int nargs, const char *what);

/* A scratch buffer *buf of at least need bytes (grown, never shrunk; contents lost). */
tally_status tally__ocl_grow(tally__ocl_ctx *c, cl_mem *buf, size_t *have, size_t need,
                             const char *what);

/* tally_scan of built-in ops (scan.c). */
tally_status tally__ocl_scan(tally_context *ctx, const tally__scan_problem *p, const void *in,
                             const void *in2, void *out);

/* tally_histogram (hist.c). */
tally_status tally__ocl_histogram(tally_context *ctx, const tally__hist_problem *p, const void *in,
                                  const void *weights, void *counts, void *weight_sums,
                                  tally_hist_stats *st);

/* tally_reduce on an OpenCL context (reduce.c). */
tally_status tally__ocl_reduce(tally_context *ctx, const tally__problem *p, const void *in,
                               const void *in2, void *out, int64_t s0, int64_t s1, void *ws);

/* The ladder variants this device can run (TALLY__LADDER_NEEDS_* it has). */
int tally__ocl_ladder_caps(const tally__ocl_ctx *c);

struct tally__ladder_variant;
/* Reduce slices [k0, k1) of p with ladder variant v; the inputs are buffers x, y (y may be
 * NULL) with element 0 at element offsets x0, y0. */
tally_status tally__ocl_ladder_run(tally__ocl_ctx *c, const tally__problem *p,
                                   const struct tally__ladder_variant *v, cl_mem x, int64_t x0,
                                   cl_mem y, int64_t y0, int64_t k0, int64_t k1, tally__part *parts);

/* Build the dialect sources srcs (NULL-terminated names) with -D definitions defs for
 * device D of platform P. On failure log[] holds the reason or the compiler's log. */
tally_status tally__opencl_build_only(int platform, int device, const char *const *srcs,
                                      const char *defs, char *log, size_t loglen);

#endif

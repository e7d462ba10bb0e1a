/* Host-side work shared by the GPU backends (gpu_host.c). */
#ifndef TALLY_GPU_HOST_H
#define TALLY_GPU_HOST_H

#include "gpu_part.h"
#include "internal.h"
#include "part.h"

#include <stddef.h>
#include <stdint.h>

/* The -D definitions of reduce_part.clh / reduce_best.clh for a problem: the family and
 * flags, the layout (contig: 16-byte loads of contiguous runs), the block size. The same
 * for every GPU backend, so both compile the same specialisations. */
void tally__gpu_defs(const tally__problem *p, tally__family fam, int contig, int block, char *defs,
                     size_t len);
/* The values those definitions hold, in their order: two problems with equal keys get the
 * same kernel (a backend may remember its kernels by key, not by the -D text). */
#define TALLY__GPU_KEY_N 11
typedef struct {
  int v[TALLY__GPU_KEY_N];
} tally__gpu_key;
void tally__gpu_defs_key(const tally__problem *p, tally__family fam, int contig, int block,
                         tally__gpu_key *k);

/* The element span [lo, hi] (offsets from element 0, in elements; lo <= 0 <= hi) that
 * input `which` (0: in, 1: in2) of a problem touches: what a GPU backend copies. */
void tally__input_span(const tally__problem *p, int which, int64_t *lo, int64_t *hi);

/* The same for the output, whose slices are s0 apart and values s1 apart. */
void tally__out_span(const tally__problem *p, int64_t s0, int64_t s1, int64_t *lo, int64_t *hi);

/* Reduce slice k of the backend's job with family fam, every element times scale (DOT),
 * into *out. */
typedef tally_status (*tally__gpu_launch_fn)(void *job, tally__family fam, int64_t k, double scale,
                                             tally__gpu_part *out);

/* NORM2 of f64 for slice k whose plain sum of squares is ss (tally__finalize's callback,
 * env a tally__gpu_norm2_env): sqrt(ss), or when that overflowed or lost bits to
 * underflow, a MINMAX pass for max|x|, then the sum again scaled by a power of two that
 * brings max|x| near 1. A failed launch sets st. */
typedef struct {
  const tally__problem *p;
  int64_t k;
  tally__gpu_launch_fn launch;
  void *job;
  tally_status st;
} tally__gpu_norm2_env;
double tally__gpu_norm2_rescue(void *env, double ss);

/* Finalize slices [k0, k1) from parts[0 .. k1 - k0) into out (slices s0 apart, values s1
 * apart), with the NORM2 rescue through `launch` on `job`, then report progress. */
tally_status tally__gpu_finalize_slices(tally_context *ctx, const tally__problem *p, int64_t k0,
                                        int64_t k1, const tally__part *parts, void *out, int64_t s0,
                                        int64_t s1, tally__gpu_launch_fn launch, void *job);

/* The CPU context kept in *slot (opened on first use): host-side work of a GPU backend. */
tally_status tally__host_cpu(tally_context *owner, tally_context **slot, tally_context **cpu);

/* A user reduction's combine function is host code: it runs on the host's threads. */
tally_status tally__host_reduce_user(tally_context *owner, tally_context **slot,
                                     const tally_user_op *uop, const void *data, int64_t n,
                                     int64_t stride, void *out);

#endif

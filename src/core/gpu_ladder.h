/* The ladder variants' host side, shared by the GPU backends (gpu_ladder.c): for each
 * slice, the launches each seed algorithm makes (one, two, or a shrinking series) and the
 * final fold on the host where the seed copies partial results out. Kernels:
 * src/gpu/ladder.clh. A backend supplies a tally__ladder_dev: how to launch one of those
 * kernels and move parts, on its own buffers. */
#ifndef TALLY_GPU_LADDER_H
#define TALLY_GPU_LADDER_H

#include "gpu_part.h"
#include "internal.h"
#include "part.h"

#include <stdint.h>

#define TALLY__LADDER_BLOCK 256 /* threads per block of every ladder kernel */
#define TALLY__LADDER_WORDS 9   /* 64-bit words per part (tally__gpu_part) */

/* What a variant needs beyond the portable dialect. */
enum {
  TALLY__LADDER_NEEDS_WARPS = 1,    /* warp shuffles, __syncwarp (CUDA) */
  TALLY__LADDER_NEEDS_GUARD = 2,    /* a last-block guard: a device-wide fence, __syncthreads_or */
  TALLY__LADDER_NEEDS_ATOMIC64 = 4  /* 64-bit atomics (OpenCL: cl_khr_int64_base_atomics) */
};

/* One slice as the kernels see it: element offsets of its element 0 from the inputs'
 * element 0, its length and its layout. */
typedef struct {
  int64_t o0, o1;
  int64_t len, cols, rs0, rs1, cs0, cs1;
} tally__lslice;

/* Part buffers are named 0 and 1; TALLY__LADDER_NONE: the slice's elements (as input) or
 * no buffer (as output). Word i of part j of a buffer is at word i * cap + j. */
#define TALLY__LADDER_NONE (-1)

typedef struct {
  void *self;
  int units; /* multiprocessors or compute units: grids of the seeds' "#SM x k" */
  /* Two part buffers of at least cap parts, a ticket counter (zero) and a result part. */
  tally_status (*scratch)(void *self, int64_t cap);
  /* One launch of kernel `entry` over grid blocks: m items from the slice's elements
   * (in == NONE) or from part buffer in, pass parameter s, parts out to buffer out. */
  tally_status (*launch)(void *self, const tally__lslice *sl, const char *entry, int64_t grid,
                         int in, int64_t m, int64_t s, int out);
  /* Parts 0 .. m - 1 of buffer b, word-major: word i of part j at w[i * m + j]. */
  tally_status (*read_parts)(void *self, int b, int64_t m, uint64_t *w);
  tally_status (*read_result)(void *self, tally__gpu_part *g);
  tally_status (*zero_result)(void *self);
} tally__ladder_dev;

typedef struct tally__ladder_variant tally__ladder_variant;

/* The i-th ladder variant a backend with capabilities caps (TALLY__LADDER_NEEDS_*) has, in
 * ladder order; NULL past the end. */
const tally__ladder_variant *tally__ladder_at(int caps, int i);
const char *tally__ladder_name(const tally__ladder_variant *v);

/* The variant named `name` (NULL or "best": *v = NULL). TALLY_EINVAL naming the backend's
 * variants when unknown; TALLY_EUNSUPPORTED when the backend cannot run it or it does not
 * compute (op, dtype). */
tally_status tally__ladder_find(tally_context *ctx, const char *backend, int caps, const char *name,
                                tally_op op, tally_dtype dt, const tally__ladder_variant **v);

/* The name of the i-th variant of the backend, "best" after the ladder; NULL past it. */
const char *tally__ladder_variant_name(int caps, int i);

/* Reduce slices [k0, k1) of p into parts[0 .. k1 - k0) with variant v on dev. */
tally_status tally__ladder_run(tally_context *ctx, const tally__ladder_dev *dev,
                               const tally__problem *p, const tally__ladder_variant *v, int64_t k0,
                               int64_t k1, tally__part *parts);

#endif

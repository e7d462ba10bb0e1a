/* Host-side work shared by the GPU backends' histograms (src/gpu/hist.clh; gpu_hist.c). */
#ifndef TALLY_GPU_HIST_H
#define TALLY_GPU_HIST_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

/* Bins a block keeps in local memory: up to 256 (f16/bf16: 32 copies, 32 KiB, see
 * hist.clh's COPIES), up to 1024 (4 KiB), else up to 8192 (32 KiB). */
#define TALLY__HIST_LBINS_TINY 256
#define TALLY__HIST_LBINS_SMALL 1024
#define TALLY__HIST_LBINS_LARGE 8192

/* A launch of hist_blocks and hist_merge, worked out once for a validated problem. */
typedef struct {
  int block;
  int lbins;           /* local bins (0: GLOBAL_BINS, 64-bit atomics into the counts) */
  int64_t nblocks, per_block;
  double step, scale;  /* even bins */
  size_t row_words;    /* u32 per block in `parts` */
  int merge_atomic;    /* blocks add into zeroed u64 counts and totals; no hist_merge */
  const char *entry;   /* the counting kernel: hist_blocks, or hist_simple (the ladder rung) */
  char defs[224];
} tally__gpu_hist_plan;

/* Whether a GPU backend can run the hist_simple rung on p (64-bit global atomics: has_atomic64,
 * named by `atomics` in the refusal; contiguous counts when they are device memory):
 * TALLY_OK, or TALLY_EUNSUPPORTED saying what is missing. */
tally_status tally__gpu_hist_simple_check(tally_context *ctx, const tally__hist_problem *p,
                                          int has_atomic64, const char *atomics);

/* Whether the GPU kernels count p: no weights (weight sums run on the host's threads),
 * and bins in local memory, or 64-bit atomics (has_atomic64) for more. */
int tally__gpu_hist_supported(const tally__hist_problem *p, int has_atomic64);

/* Plan p: blocks of `block` threads, at most max_blocks of them; merge_atomic: the blocks
 * add their counts into zeroed u64 counts (contiguous) and three zeroed u64 totals (at
 * `parts`) with 64-bit atomics instead of writing rows for hist_merge. */
void tally__gpu_hist_plan_make(const tally__hist_problem *p, int block, int64_t max_blocks,
                               int merge_atomic, tally__gpu_hist_plan *pl);

/* The stats of a run from the three totals (below, above, NaN). */
void tally__gpu_hist_stats(const tally__hist_problem *p, const uint64_t tot[3], tally_hist_stats *st);

/* p on the host's CPU threads (cpu: the backend's CPU context), device arrays copied to the
 * host and the results copied back with the backend's mem_copy: what the GPU kernels do
 * not cover (weights, or too many bins for the device). */
tally_status tally__gpu_hist_on_host(tally_context *ctx, tally_context *cpu,
                                     const tally__hist_problem *p, const void *in,
                                     const void *weights, void *counts, void *weight_sums,
                                     tally_hist_stats *st);

#endif

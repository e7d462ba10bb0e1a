/* See gpu_hist.h. */
#include "gpu_hist.h"
#include "gpu_sources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tally__gpu_hist_supported(const tally__hist_problem *p, int has_atomic64) {
  if (p->has_weights) return 0;
  return p->nbins <= TALLY__HIST_LBINS_LARGE || (has_atomic64 && p->cs == 1);
}

tally_status tally__gpu_hist_simple_check(tally_context *ctx, const tally__hist_problem *p,
                                          int has_atomic64, const char *atomics) {
  if (!has_atomic64)
    return tally__fail(ctx, TALLY_EUNSUPPORTED, "spec->variant: 'hist_simple' needs 64-bit "
                       "global atomics (%s), which this device lacks", atomics);
  if (p->out_mem == TALLY_MEM_DEVICE && p->cs != 1)
    return tally__fail(ctx, TALLY_EUNSUPPORTED, "counts: 'hist_simple' adds into contiguous "
                       "device counts only (stride %lld)", (long long)p->cs);
  return TALLY_OK;
}

void tally__gpu_hist_plan_make(const tally__hist_problem *p, int block, int64_t max_blocks,
                               int merge_atomic, tally__gpu_hist_plan *pl) {
  memset(pl, 0, sizeof *pl);
  pl->block = block;
  pl->merge_atomic = merge_atomic;
  pl->lbins = p->variant == TALLY__HIST_SIMPLE        ? 0 /* global atomics only */
              : p->nbins <= TALLY__HIST_LBINS_TINY    ? TALLY__HIST_LBINS_TINY
              : p->nbins <= TALLY__HIST_LBINS_SMALL   ? TALLY__HIST_LBINS_SMALL
              : p->nbins <= TALLY__HIST_LBINS_LARGE ? TALLY__HIST_LBINS_LARGE
                                                     : 0;
  pl->entry = p->variant == TALLY__HIST_SIMPLE ? "hist_simple" : "hist_blocks";
  /* 16 elements per thread at least; no more blocks than fill the device once; and fewer
   * than 2^32 elements per block (u32 bins): contiguous inputs are strip-mined in tiles
   * of 2·block vectors of at most 16 elements (src/gpu/hist.clh), so a block may take up
   * to a tile, a head and a tail more than per_block. */
  int64_t want = (p->n + (int64_t)block * 16 - 1) / ((int64_t)block * 16);
  if (want > max_blocks) want = max_blocks;
  if (want < 1) want = 1;
  while ((p->n + want - 1) / want + (int64_t)block * 32 + 32 >= ((int64_t)1 << 32)) want *= 2;
  pl->per_block = (p->n + want - 1) / want;
  if (pl->per_block < 1) pl->per_block = 1;
  pl->nblocks = (p->n + pl->per_block - 1) / pl->per_block;
  if (pl->nblocks < 1) pl->nblocks = 1;
  pl->row_words = merge_atomic ? 0 : pl->lbins ? (size_t)p->nbins + 3 : 3;
  pl->step = (p->hi - p->lo) / (double)p->nbins;
  pl->scale = (double)p->nbins / (p->hi - p->lo);
  snprintf(pl->defs, sizeof pl->defs, "-DFAM=0 -DIGN=0 -DFAST=0 -DDT=%d -DBLOCK=%d -DLBINS=%d -DGLOBAL_BINS=%d -DEDGES=%d -DMERGE_ATOMIC=%d",
           (int)p->dtype, block, pl->lbins ? pl->lbins : 1, pl->lbins == 0, p->edges != NULL, merge_atomic);
  tally__gpu_defs_extra(pl->defs, sizeof pl->defs);
}

void tally__gpu_hist_stats(const tally__hist_problem *p, const uint64_t tot[3], tally_hist_stats *st) {
  st->n = p->n;
  st->below = (int64_t)tot[0];
  st->above = (int64_t)tot[1];
  st->nan = (int64_t)tot[2];
  st->counted = p->n - st->nan - (p->outside == TALLY_HIST_CLAMP ? 0 : st->below + st->above);
}

/* Bytes of a strided run of count values of size es, stride s (elements), from element 0;
 * *lo: the byte offset of its lowest byte (<= 0). */
static size_t span_of(int64_t count, int64_t s, size_t es, int64_t *lo) {
  int64_t e = count > 0 ? (count - 1) * s : 0;
  *lo = (e < 0 ? e : 0) * (int64_t)es;
  return (size_t)((e < 0 ? -e : e) + 1) * es;
}

tally_status tally__gpu_hist_on_host(tally_context *ctx, tally_context *cpu,
                                     const tally__hist_problem *p, const void *in,
                                     const void *weights, void *counts, void *weight_sums,
                                     tally_hist_stats *st) {
  const tally__backend *be = ctx->backend;
  tally__hist_problem q = *p;
  q.in_mem = q.out_mem = TALLY_MEM_HOST;
  void *hin = NULL, *hw = NULL, *hc = NULL, *hs = NULL;
  int64_t lin = 0, lw = 0, lc = 0, ls = 0;
  size_t bin = 0, bw = 0, bc = 0, bs = 0;
  tally_status s = TALLY_OK;
  const void *rin = in, *rw = weights;
  void *rc = counts, *rs = weight_sums;
  if (be->device_handles && ((p->in_mem == TALLY_MEM_DEVICE && (p->sx < 0 || p->sw < 0)) ||
                             (p->out_mem == TALLY_MEM_DEVICE && (p->cs < 0 || p->ws < 0))))
    return tally__fail(ctx, TALLY_EINVAL, "histogram: a negative stride on a %s device array "
                       "(a handle whose element 0 is its first byte)", be->name);
  if (p->in_mem == TALLY_MEM_DEVICE) {
    bin = span_of(p->n, p->sx, tally_dtype_size(p->dtype), &lin);
    if (!(hin = malloc(bin))) s = TALLY_ENOMEM;
    if (!s) s = be->mem_copy(ctx, hin, TALLY_MEM_HOST, (const char *)in + (be->device_handles ? 0 : lin),
                             TALLY_MEM_DEVICE, bin);
    rin = (char *)hin - lin;
    if (!s && weights) {
      bw = span_of(p->n, p->sw, tally_dtype_size(p->wdtype), &lw);
      if (!(hw = malloc(bw))) s = TALLY_ENOMEM;
      if (!s) s = be->mem_copy(ctx, hw, TALLY_MEM_HOST, (const char *)weights + (be->device_handles ? 0 : lw),
                               TALLY_MEM_DEVICE, bw);
      rw = (char *)hw - lw;
    }
  }
  if (!s && p->out_mem == TALLY_MEM_DEVICE) {
    /* the outputs' spans, gaps included, so the copy back changes only the values */
    bc = span_of(p->nbins, p->cs, 8, &lc);
    if (!(hc = malloc(bc))) s = TALLY_ENOMEM;
    if (!s) s = be->mem_copy(ctx, hc, TALLY_MEM_HOST, (char *)counts + (be->device_handles ? 0 : lc),
                             TALLY_MEM_DEVICE, bc);
    rc = (char *)hc - lc;
    if (!s && weight_sums) {
      bs = span_of(p->nbins, p->ws, 8, &ls);
      if (!(hs = malloc(bs))) s = TALLY_ENOMEM;
      if (!s) s = be->mem_copy(ctx, hs, TALLY_MEM_HOST, (char *)weight_sums + (be->device_handles ? 0 : ls),
                               TALLY_MEM_DEVICE, bs);
      rs = (char *)hs - ls;
    }
  }
  if (s == TALLY_ENOMEM) tally__fail(ctx, s, "histogram: no host memory to copy device arrays to");
  if (!s) {
    s = tally__cpu_backend.histogram(cpu, &q, rin, rw, rc, rs, st);
    if (s) tally__fail(ctx, s, "%s", cpu->errmsg);
  }
  if (!s && hc)
    s = be->mem_copy(ctx, (char *)counts + (be->device_handles ? 0 : lc), TALLY_MEM_DEVICE, hc,
                     TALLY_MEM_HOST, bc);
  if (!s && hs)
    s = be->mem_copy(ctx, (char *)weight_sums + (be->device_handles ? 0 : ls), TALLY_MEM_DEVICE, hs,
                     TALLY_MEM_HOST, bs);
  free(hin);
  free(hw);
  free(hc);
  free(hs);
  return s;
}

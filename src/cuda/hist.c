/* tally_histogram on a CUDA device: hist_blocks, its blocks adding their counts into zeroed
 * u64 counts with 64-bit atomics (MERGE_ATOMIC, src/gpu/hist.clh); device counts with a
 * stride are added contiguously and spread by hist_merge. A host input is copied (the span
 * it touches) to the device; host counts come back by copy.
 * Weights (their sums per bin) run on the host's CPU threads, device arrays copied there
 * and back (core/gpu_hist.c). */
#include "core/gpu_hist.h"
#include "core/gpu_host.h"
#include "cuda_ctx.h"

#include <stdlib.h>
#include <string.h>

#define HIST_BLOCK 256

/* f32 takes no copies of the local bins (HIST_COPIES_F32 stays a switch for measuring):
 * from 2026-11-26 to 2026-11-27 the plan gave them to cards with 30 GB/s of memory per SM
 * or more (the H200), where the edge pair's and the adds' bank conflicts bound uniform
 * data. With the fraction from the guess's bits (hist.clh HIST_FRAC 2) there is no pair
 * on the common path, and on an H200 (run 87, 256 bins, 2^28) the kernel without the
 * copies was the faster on every data: uniform 267.5-268.1 us against 272.1-272.9 with
 * them, skewed 262.1-262.7 against 271.8-273.5, all on the edges 381.9-382.6 against
 * 399.6-400.6. */
static void plan(const tally__hist_problem *p, int64_t max_blocks, tally__gpu_hist_plan *pl) {
  tally__gpu_hist_plan_make(p, HIST_BLOCK, max_blocks, 1, pl);
}

static tally_status run(tally__cuda_ctx *c, const tally__hist_problem *p, const void *in,
                        void *counts, tally_hist_stats *st) {
  tally__gpu_hist_plan pl;
  plan(p, (int64_t)c->sms * 8, &pl);
  static const char *const srcs[] = {"reduce_part.clh", "hist.clh", NULL};
  CUfunction fblocks, fmerge;
  tally_status s = tally__cuda_kernel_get(c, srcs, pl.defs, pl.entry, &fblocks);
  if (!s) s = tally__cuda_kernel_get(c, srcs, pl.defs, "hist_merge", &fmerge);
  if (s) return s;
  /* One wave: no more blocks than fit at once (the kernel's registers decide), so no
   * multiprocessor idles while a second wave's last blocks finish (measured with Nsight
   * Compute: 1.6 waves of 8 blocks per SM). The split changes no count. */
  int resident = 0;
  if (!c->cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(&resident, fblocks, HIST_BLOCK, 0) &&
      resident > 0 && resident < 8)
    plan(p, (int64_t)c->sms * resident, &pl);
  size_t es = tally_dtype_size(p->dtype);
  CUdeviceptr x;
  CUresult r;
  if (p->in_mem == TALLY_MEM_DEVICE) {
    x = (CUdeviceptr)(uintptr_t)in;
  } else {
    int64_t e = (p->n - 1) * p->sx, lo = (e < 0 ? e : 0) * (int64_t)es;
    size_t bytes = (size_t)((e < 0 ? -e : e) + 1) * es;
    if ((s = tally__cuda_grow(c, &c->staging[0], &c->staging_bytes[0], bytes, "a host input"))) return s;
    r = c->cu->cuMemcpyHtoDAsync(c->staging[0], (const char *)in + lo, bytes, c->stream);
    if (r) return tally__cuda_fail(c, r, "cuMemcpyHtoDAsync (histogram input)");
    x = c->staging[0] - (CUdeviceptr)lo;
  }
  /* Scratch: edges, three totals, and contiguous counts where the output is not (host
   * counts, or device counts with a stride), all zeroed but the edges. */
  size_t edge_bytes = p->edges ? (size_t)(p->nbins + 1) * 8 : 0;
  int direct = p->out_mem == TALLY_MEM_DEVICE && p->cs == 1;
  size_t count_bytes = (size_t)p->nbins * 8;
  size_t off_tot = (edge_bytes + 15) & ~(size_t)15, off_counts = off_tot + 32;
  if ((s = tally__cuda_grow(c, &c->hist_buf, &c->hist_bytes, off_counts + (direct ? 0 : count_bytes),
                            "histogram scratch")))
    return s;
  CUdeviceptr edges = c->hist_buf, tot = c->hist_buf + off_tot;
  CUdeviceptr cnt = direct ? (CUdeviceptr)(uintptr_t)counts : c->hist_buf + off_counts;
  long long cs = 1;
  r = c->cu->cuMemsetD8Async(tot, 0, 32 + (direct ? 0 : count_bytes), c->stream);
  if (!r && direct) r = c->cu->cuMemsetD8Async(cnt, 0, count_bytes, c->stream);
  if (r) return tally__cuda_fail(c, r, "cuMemsetD8Async (histogram counts)");
  if (edge_bytes) {
    r = c->cu->cuMemcpyHtoDAsync(edges, p->edges, edge_bytes, c->stream);
    if (r) return tally__cuda_fail(c, r, "cuMemcpyHtoDAsync (histogram edges)");
  }
  long long n = p->n, sx = p->sx, per = pl.per_block, nb = p->nbins, nblocks = pl.nblocks;
  double lo = p->lo, hi = p->hi, step = pl.step, scale = pl.scale;
  int clamp = p->outside == TALLY_HIST_CLAMP;
  void *a1[] = {&x, &n, &sx, &per, &nb, &lo, &hi, &step, &scale, &edges, &clamp, &tot, &cnt, &cs};
  r = c->cu->cuLaunchKernel(fblocks, (unsigned)pl.nblocks, 1, 1, HIST_BLOCK, 1, 1, 0, c->stream, a1, NULL);
  if (r)
    return tally__cuda_fail(c, r, p->variant == TALLY__HIST_SIMPLE ? "cuLaunchKernel (hist_simple)"
                                                                    : "cuLaunchKernel (hist_blocks)");
  if (p->out_mem == TALLY_MEM_DEVICE && !direct) { /* spread into the strided counts */
    CUdeviceptr out = (CUdeviceptr)(uintptr_t)counts;
    long long ocs = p->cs;
    unsigned mgrid = (unsigned)((p->nbins + HIST_BLOCK - 1) / HIST_BLOCK);
    void *a2[] = {&cnt, &nblocks, &nb, &out, &ocs, &tot};
    r = c->cu->cuLaunchKernel(fmerge, mgrid, 1, 1, HIST_BLOCK, 1, 1, 0, c->stream, a2, NULL);
    if (r) return tally__cuda_fail(c, r, "cuLaunchKernel (hist_merge)");
  }
  uint64_t totals[3];
  r = c->cu->cuMemcpyDtoHAsync(totals, tot, sizeof totals, c->stream);
  uint64_t *hc = NULL;
  if (!r && p->out_mem == TALLY_MEM_HOST) {
    hc = p->cs == 1 ? counts : malloc((size_t)p->nbins * 8);
    if (!hc) {
      c->cu->cuStreamSynchronize(c->stream);
      return tally__fail(&c->base, TALLY_ENOMEM, "counts: no host memory for %lld counts", nb);
    }
    r = c->cu->cuMemcpyDtoHAsync(hc, cnt, (size_t)p->nbins * 8, c->stream);
  }
  if (!r) r = c->cu->cuStreamSynchronize(c->stream);
  if (!r && hc && hc != counts)
    for (int64_t b = 0; b < p->nbins; b++) ((uint64_t *)counts)[b * p->cs] = hc[b];
  if (hc != counts) free(hc);
  if (r) return tally__cuda_fail(c, r, "the histogram (hist_blocks, hist_merge)");
  tally__gpu_hist_stats(p, totals, st);
  return TALLY_OK;
}

tally_status tally__cuda_histogram(tally_context *ctx, const tally__hist_problem *p, const void *in,
                                   const void *weights, void *counts, void *weight_sums,
                                   tally_hist_stats *st) {
  tally__cuda_ctx *c = (tally__cuda_ctx *)ctx;
  const int simple = p->variant == TALLY__HIST_SIMPLE;
  if (simple) {
    tally_status s = tally__gpu_hist_simple_check(ctx, p, 1, "");
    if (s) return s;
  }
  if ((!simple && !tally__gpu_hist_supported(p, 1)) || p->n == 0) {
    tally_context *cpu;
    tally_status s = tally__host_cpu(ctx, &c->cpu, &cpu);
    return s ? s : tally__gpu_hist_on_host(ctx, cpu, p, in, weights, counts, weight_sums, st);
  }
  tally_status s = tally__cuda_enter(c);
  if (s) return s;
  s = run(c, p, in, counts, st);
  tally__cuda_leave(c);
  return s;
}

/* tally_histogram on an OpenCL device: hist_blocks then hist_merge (src/gpu/hist.clh), on
 * buffers; as the CUDA driver (src/cuda/hist.c). Device arrays are cl_mem handles whose
 * element 0 is their first byte. Weights run on the host's CPU threads. */
#include "core/gpu_hist.h"
#include "core/gpu_host.h"
#include "opencl.h"

#include <stdlib.h>
#include <string.h>

#define HIST_BLOCK 256


static tally_status run(tally__ocl_ctx *c, const tally__hist_problem *p, const void *in,
                        void *counts, tally_hist_stats *st) {
  const tally__cl_api *cl = c->cl;
  int block = c->max_wg < HIST_BLOCK ? (int)c->max_wg : HIST_BLOCK;
  tally__gpu_hist_plan pl;
  tally__gpu_hist_plan_make(p, block, (int64_t)c->compute_units * 8, 0, &pl);
  static const char *const srcs[] = {"reduce_part.clh", "hist.clh", NULL};
  cl_kernel kb, km;
  tally_status s = tally__ocl_kernel_get(c, srcs, pl.defs, pl.entry, &kb);
  if (!s) s = tally__ocl_kernel_get(c, srcs, pl.defs, "hist_merge", &km);
  if (s) return s;
  size_t es = tally_dtype_size(p->dtype);
  cl_mem x;
  cl_long x0 = 0, y0 = 0;
  cl_int e;
  if (p->in_mem == TALLY_MEM_DEVICE) {
    if (p->sx < 0)
      return tally__fail(&c->base, TALLY_EINVAL, "in: a negative stride on an OpenCL device "
                         "array (a cl_mem whose element 0 is its first byte)");
    x = (cl_mem)in;
  } else {
    int64_t ext = (p->n - 1) * p->sx, lo = ext < 0 ? ext : 0;
    size_t bytes = (size_t)((ext < 0 ? -ext : ext) + 1) * es;
    if ((s = tally__ocl_grow(c, &c->staging[0], &c->staging_bytes[0], bytes, "a host input"))) return s;
    e = cl->clEnqueueWriteBuffer(c->queue, c->staging[0], 1, 0, bytes, (const char *)in + lo * (int64_t)es,
                                 0, NULL, NULL);
    if (e) return tally__ocl_fail(c, e, "clEnqueueWriteBuffer (histogram input)");
    x = c->staging[0];
    x0 = -lo;
  }
  size_t edge_bytes = p->edges ? (size_t)(p->nbins + 1) * 8 : 8;
  size_t row_bytes = (size_t)pl.nblocks * pl.row_words * 4;
  int own_counts = p->out_mem == TALLY_MEM_HOST;
  if (!own_counts && p->cs < 0)
    return tally__fail(&c->base, TALLY_EINVAL, "counts: a negative stride on an OpenCL device "
                       "array (a cl_mem whose element 0 is its first byte)");
  if ((s = tally__ocl_grow(c, &c->hist_edges, &c->hist_edges_bytes, edge_bytes, "histogram edges")) ||
      (s = tally__ocl_grow(c, &c->hist_rows, &c->hist_rows_bytes, row_bytes + 32, "histogram rows")) ||
      (own_counts && (s = tally__ocl_grow(c, &c->hist_counts, &c->hist_counts_bytes,
                                          (size_t)p->nbins * 8, "histogram counts"))))
    return s;
  cl_mem cnt = own_counts ? c->hist_counts : (cl_mem)counts;
  cl_long cs = own_counts ? 1 : p->cs;
  if (!pl.lbins) { /* 64-bit atomics add into zeroed counts (contiguous: see gpu_hist.c) */
    cl_ulong zero = 0;
    e = cl->clEnqueueFillBuffer(c->queue, cnt, &zero, 8, 0, (size_t)p->nbins * 8, 0, NULL, NULL);
    if (e) return tally__ocl_fail(c, e, "clEnqueueFillBuffer (histogram counts)");
  }
  if (p->edges) {
    e = cl->clEnqueueWriteBuffer(c->queue, c->hist_edges, 1, 0, edge_bytes, p->edges, 0, NULL, NULL);
    if (e) return tally__ocl_fail(c, e, "clEnqueueWriteBuffer (histogram edges)");
  }
  /* the three totals live after the rows: a sub-range of the same buffer would need
   * aligned origins, so hist_merge writes them into the edges' buffer's neighbour */
  cl_long n = p->n, sx = p->sx, per = pl.per_block, nb = p->nbins, nblocks = pl.nblocks;
  double lo = p->lo, hi = p->hi, step = pl.step, scale = pl.scale;
  cl_int clamp = p->outside == TALLY_HIST_CLAMP;
  if ((s = tally__ocl_grow(c, &c->hist_tot, &c->hist_tot_bytes, 32, "histogram totals"))) return s;
  tally__ocl_arg a1[] = {{sizeof x, &x},         {sizeof x0, &x0},     {sizeof y0, &y0},
                {sizeof n, &n},         {sizeof sx, &sx},     {sizeof per, &per},
                {sizeof nb, &nb},       {sizeof lo, &lo},     {sizeof hi, &hi},
                {sizeof step, &step},   {sizeof scale, &scale}, {sizeof c->hist_edges, &c->hist_edges},
                {sizeof clamp, &clamp}, {sizeof c->hist_rows, &c->hist_rows},
                {sizeof cnt, &cnt},     {sizeof cs, &cs}};
  tally__ocl_arg a2[] = {{sizeof c->hist_rows, &c->hist_rows}, {sizeof nblocks, &nblocks}, {sizeof nb, &nb},
                {sizeof cnt, &cnt}, {sizeof cs, &cs}, {sizeof c->hist_tot, &c->hist_tot}};
  size_t g1 = (size_t)pl.nblocks * (size_t)block, l1 = (size_t)block;
  size_t g2 = pl.lbins ? ((size_t)p->nbins + 3 + (size_t)block - 1) / (size_t)block * (size_t)block
                       : (size_t)block;
  if ((s = tally__ocl_set_args(c, kb, a1, 16, "clSetKernelArg (hist_blocks)")) ||
      (s = tally__ocl_set_args(c, km, a2, 6, "clSetKernelArg (hist_merge)")))
    return s;
  e = cl->clEnqueueNDRangeKernel(c->queue, kb, 1, NULL, &g1, &l1, 0, NULL, NULL);
  if (!e) e = cl->clEnqueueNDRangeKernel(c->queue, km, 1, NULL, &g2, &l1, 0, NULL, NULL);
  if (e) return tally__ocl_fail(c, e, "clEnqueueNDRangeKernel (histogram)");
  cl_ulong totals[3];
  e = cl->clEnqueueReadBuffer(c->queue, c->hist_tot, 1, 0, sizeof totals, totals, 0, NULL, NULL);
  if (e) return tally__ocl_fail(c, e, "clEnqueueReadBuffer (histogram totals)");
  if (own_counts) {
    uint64_t *hc = p->cs == 1 ? counts : malloc((size_t)p->nbins * 8);
    if (!hc) return tally__fail(&c->base, TALLY_ENOMEM, "counts: no host memory");
    e = cl->clEnqueueReadBuffer(c->queue, cnt, 1, 0, (size_t)p->nbins * 8, hc, 0, NULL, NULL);
    if (!e && hc != counts)
      for (int64_t b = 0; b < p->nbins; b++) ((uint64_t *)counts)[b * p->cs] = hc[b];
    if (hc != counts) free(hc);
    if (e) return tally__ocl_fail(c, e, "clEnqueueReadBuffer (histogram counts)");
  }
  uint64_t t3[3] = {totals[0], totals[1], totals[2]};
  tally__gpu_hist_stats(p, t3, st);
  return TALLY_OK;
}

tally_status tally__ocl_histogram(tally_context *ctx, const tally__hist_problem *p, const void *in,
                                  const void *weights, void *counts, void *weight_sums,
                                  tally_hist_stats *st) {
  tally__ocl_ctx *c = (tally__ocl_ctx *)ctx;
  int global_ok = c->has_atomic64 && p->out_mem == TALLY_MEM_HOST;
  const int simple = p->variant == TALLY__HIST_SIMPLE;
  if (simple) {
    tally_status s = tally__gpu_hist_simple_check(ctx, p, c->has_atomic64, "cl_khr_int64_base_atomics");
    if (s) return s;
  }
  if ((!simple && !tally__gpu_hist_supported(p, global_ok)) || p->n == 0) {
    tally_context *cpu;
    tally_status s = tally__host_cpu(ctx, &c->cpu, &cpu);
    return s ? s : tally__gpu_hist_on_host(ctx, cpu, p, in, weights, counts, weight_sums, st);
  }
  tally_status s = run(c, p, in, counts, st);
  cl_int e = c->cl->clFinish(c->queue);
  if (!s && e) s = tally__ocl_fail(c, e, "the histogram (clFinish)");
  return s;
}

/* tally_scan on an OpenCL device: scan_tiles (src/gpu/scan.clh) in two launches around
 * scan_carries. Work-groups of OpenCL may not wait on each other (a look-back could spin
 * forever on a device that runs them one after another), so phase 1 writes each tile's
 * total, scan_carries builds the carries' tree from them (the nodes), and phase 2 folds
 * each tile's carry from the nodes and scans the tile: the input is read twice. The
 * carries are grouped as the CUDA backend's look-back groups them, so on tiles of the
 * same size the bits are the same.
 * Device arrays are cl_mem handles whose element 0 is their first byte. */
#include "core/gpu_scan.h"
#include "opencl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SCAN_BLOCK 256

static tally_status place(tally__ocl_ctx *c, const tally__scan_problem *p, int which,
                          const void *data, cl_mem *buf, cl_long *e0) {
  int64_t lo, hi;
  tally__gpu_scan_in_span(p, which, &lo, &hi);
  if (p->in_mem == TALLY_MEM_DEVICE) {
    if (lo < 0)
      return tally__fail(&c->base, TALLY_EINVAL, "%s: a negative stride reaches %" PRId64 " bytes "
                         "before element 0; an OpenCL device array is a cl_mem whose element 0 "
                         "is its first byte", which ? "in2" : "in", -lo);
    *buf = (cl_mem)data;
    *e0 = 0;
    return TALLY_OK;
  }
  tally_status s = tally__ocl_grow(c, &c->staging[which], &c->staging_bytes[which],
                                   (size_t)(hi - lo), "a host input");
  if (s) return s;
  cl_int e = c->cl->clEnqueueWriteBuffer(c->queue, c->staging[which], 1, 0, (size_t)(hi - lo),
                                         (const char *)data + lo, 0, NULL, NULL);
  if (e) return tally__ocl_fail(c, e, "clEnqueueWriteBuffer (scan input)");
  *buf = c->staging[which];
  *e0 = -lo / (int64_t)tally_dtype_size(p->dtype);
  return TALLY_OK;
}


/* A scan ladder variant (src/gpu/scan_ladder.clh) on placed inputs and output. */
static tally_status ladder(tally__ocl_ctx *c, const tally__scan_problem *p, cl_mem x, cl_long x0,
                           cl_mem y, cl_long y0, cl_mem o, cl_long so0, cl_long so1, cl_int mode) {
  int block = c->max_wg < 256 ? (int)c->max_wg : 256;
  while (block & (block - 1)) block &= block - 1; /* a power of two */
  tally__gpu_scan_plan pl;
  tally__gpu_scan_ladder_plan_make(p, block, &pl);
  static const char *const srcs[] = {"reduce_part.clh", "scan.clh", "scan_ladder.clh", NULL};
  tally_status s;
  int steps[4];
  int64_t groups[4], nchunks;
  int nsteps = tally__gpu_scan_ladder_steps(p, block, steps, groups, &nchunks);
  size_t tmp_bytes = nsteps == 4 ? (size_t)p->n * 24 : 8, sums_bytes = (size_t)nchunks * 24 + 24;
  if ((s = tally__ocl_grow(c, &c->scan_tiles, &c->scan_tiles_bytes, tmp_bytes, "the scan ladder's "
                           "partial results")) ||
      (s = tally__ocl_grow(c, &c->scan_carry, &c->scan_carry_bytes, sums_bytes, "the scan ladder's "
                           "chunk sums")))
    return s;
  cl_long n = p->n, sx = p->sx, sy = p->sy, o0 = 0, nch = nchunks;
  cl_int has_init = pl.has_init;
  cl_ulong i0 = pl.i0, i1 = pl.i1;
  tally__ocl_arg args[] = {{sizeof x, &x},       {sizeof y, &y},       {sizeof x0, &x0},
                  {sizeof y0, &y0},     {sizeof n, &n},       {sizeof sx, &sx},
                  {sizeof sy, &sy},     {sizeof o, &o},       {sizeof o0, &o0},
                  {sizeof so0, &so0},   {sizeof so1, &so1},   {sizeof mode, &mode},
                  {sizeof has_init, &has_init}, {sizeof i0, &i0},
                  {sizeof i1, &i1},     {sizeof c->scan_tiles, &c->scan_tiles},
                  {sizeof c->scan_carry, &c->scan_carry}, {sizeof nch, &nch}};
  for (int q = 0; q < nsteps; q++) {
    cl_kernel k;
    if ((s = tally__ocl_kernel_get(c, srcs, pl.defs, tally__gpu_scan_ladder_entry(steps[q]), &k)) ||
        (s = tally__ocl_set_args(c, k, args, 18, "clSetKernelArg (scan_ladder)")))
      return s;
    size_t global = (size_t)groups[q] * (size_t)block, local = (size_t)block;
    cl_int e = c->cl->clEnqueueNDRangeKernel(c->queue, k, 1, NULL, &global, &local, 0, NULL, NULL);
    if (e) return tally__ocl_fail(c, e, "clEnqueueNDRangeKernel (scan_ladder)");
  }
  return TALLY_OK;
}

tally_status tally__ocl_scan(tally_context *ctx, const tally__scan_problem *p, const void *in,
                             const void *in2, void *out) {
  tally__ocl_ctx *c = (tally__ocl_ctx *)ctx;
  const tally__cl_api *cl = c->cl;
  int block = c->max_wg < SCAN_BLOCK ? (int)c->max_wg : SCAN_BLOCK;
  tally__gpu_scan_plan pl;
  tally__gpu_scan_plan_make(p, block, 0, 0, &pl);
  static const char *const srcs[] = {"reduce_part.clh", "scan.clh", NULL};
  cl_kernel tiles, carries;
  tally_status s = tally__ocl_kernel_get(c, srcs, pl.defs, "scan_tiles", &tiles);
  if (!s) s = tally__ocl_kernel_get(c, srcs, pl.defs, "scan_carries", &carries);
  if (s) return s;

  cl_mem x = NULL, y = NULL;
  cl_long x0 = 0, y0 = 0;
  if ((s = place(c, p, 0, in, &x, &x0))) return s;
  if (p->width == 2 && (s = place(c, p, 1, in2, &y, &y0))) return s;
  if (!y) y = x, y0 = x0;

  /* Each tile's total and carry. */
  size_t parts_bytes = (size_t)pl.ntiles * TALLY__SCAN_CARRY_BYTES;
  if ((s = tally__ocl_grow(c, &c->scan_tiles, &c->scan_tiles_bytes, parts_bytes, "scan tile totals")) ||
      (s = tally__ocl_grow(c, &c->scan_carry, &c->scan_carry_bytes, parts_bytes, "scan tile carries")))
    return s;
  cl_mem totals = c->scan_tiles, carry = c->scan_carry;
  cl_int e;

  cl_mem heads = NULL;
  if (pl.mode & TALLY__SCAN_SEG) {
    const uint8_t *h;
    uint8_t *owned;
    s = tally__gpu_scan_heads(ctx, p, &h, &owned);
    if (!s) s = tally__ocl_grow(c, &c->scan_heads, &c->scan_heads_bytes, (size_t)p->n, "segment heads");
    if (!s) {
      e = cl->clEnqueueWriteBuffer(c->queue, c->scan_heads, 1, 0, (size_t)p->n, h, 0, NULL, NULL);
      if (e) s = tally__ocl_fail(c, e, "clEnqueueWriteBuffer (segment heads)");
    }
    free(owned);
    heads = c->scan_heads;
  }

  cl_mem o = (cl_mem)out;
  cl_long o0 = 0, so0 = p->so0, so1 = p->so1;
  size_t out_bytes = (size_t)p->n * (size_t)p->width * pl.rsize;
  if (!s && p->out_mem == TALLY_MEM_HOST) {
    s = tally__ocl_grow(c, &c->scan_out, &c->scan_out_bytes, out_bytes, "a host output");
    o = c->scan_out;
    so0 = p->width;
    so1 = 1;
  } else if (!s && (so0 < 0 || so1 < 0)) {
    s = tally__fail(ctx, TALLY_EINVAL, "out: a negative stride (%lld) reaches before element 0; "
                    "an OpenCL device array is a cl_mem whose element 0 is its first byte",
                    (long long)(so0 < 0 ? so0 : so1));
  }

  cl_long n = p->n, sx = p->sx, sy = p->sy, nt = pl.ntiles;
  cl_int mode = pl.mode | TALLY__SCAN_CONTIG * (p->sx == 1 && (p->width == 1 || p->sy == 1));
  cl_int has_init = pl.has_init, phase = 1;
  cl_ulong i0 = pl.i0, i1 = pl.i1;
  tally__ocl_arg targs[] = {{sizeof x, &x},     {sizeof y, &y},       {sizeof x0, &x0},
                   {sizeof y0, &y0},   {sizeof n, &n},       {sizeof sx, &sx},
                   {sizeof sy, &sy},   {sizeof heads, heads ? (const void *)&heads : NULL},
                   {sizeof o, &o},     {sizeof o0, &o0},     {sizeof so0, &so0},
                   {sizeof so1, &so1}, {sizeof mode, &mode}, {sizeof phase, &phase},
                   {sizeof has_init, &has_init}, {sizeof i0, &i0}, {sizeof i1, &i1},
                   {sizeof totals, &totals}, {sizeof carry, &carry}};
  tally__ocl_arg cargs[] = {{sizeof totals, &totals}, {sizeof carry, &carry}, {sizeof nt, &nt}};
  size_t global = (size_t)pl.ntiles * (size_t)pl.block, local = (size_t)pl.block, one = 1;
  if (!s && p->variant != TALLY__SCAN_BEST) {
    s = ladder(c, p, x, x0, y, y0, o, so0, so1, mode);
    goto copy_back;
  }
  if (!s) s = tally__ocl_set_args(c, tiles, targs, 19, "clSetKernelArg (scan_tiles)");
  if (!s) {
    e = cl->clEnqueueNDRangeKernel(c->queue, tiles, 1, NULL, &global, &local, 0, NULL, NULL);
    if (e) s = tally__ocl_fail(c, e, "clEnqueueNDRangeKernel (scan_tiles, totals)");
  }
  if (!s) s = tally__ocl_set_args(c, carries, cargs, 3, "clSetKernelArg (scan_carries)");
  if (!s) {
    e = cl->clEnqueueNDRangeKernel(c->queue, carries, 1, NULL, &one, &one, 0, NULL, NULL);
    if (e) s = tally__ocl_fail(c, e, "clEnqueueNDRangeKernel (scan_carries)");
  }
  phase = 2;
  if (!s) s = tally__ocl_set_args(c, tiles, targs, 19, "clSetKernelArg (scan_tiles)");
  if (!s) {
    e = cl->clEnqueueNDRangeKernel(c->queue, tiles, 1, NULL, &global, &local, 0, NULL, NULL);
    if (e) s = tally__ocl_fail(c, e, "clEnqueueNDRangeKernel (scan_tiles, outputs)");
  }
copy_back:
  if (!s && p->out_mem == TALLY_MEM_HOST) {
    int direct = tally__gpu_scan_out_contiguous(p);
    void *dst = direct ? out : malloc(out_bytes);
    if (!dst) {
      s = tally__fail(ctx, TALLY_ENOMEM, "out: no host memory for %zu bytes of results", out_bytes);
    } else {
      e = cl->clEnqueueReadBuffer(c->queue, o, 1, 0, out_bytes, dst, 0, NULL, NULL);
      if (e) s = tally__ocl_fail(c, e, "clEnqueueReadBuffer (scan result)");
      else if (!direct) tally__gpu_scan_scatter(p, pl.rsize, dst, out);
      if (!direct) free(dst);
    }
  }
  e = cl->clFinish(c->queue);
  if (!s && e) s = tally__ocl_fail(c, e, "the scan (clFinish)");
  return s;
}

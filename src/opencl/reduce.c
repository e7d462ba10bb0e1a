/* tally_reduce on an OpenCL device: place the inputs (host arrays: the span they touch is
 * written into a staging buffer; device arrays: their cl_mem is read in place), launch the
 * shared `best` kernel (src/gpu/reduce_best.clh, its local-memory tree) over batches of
 * slices, read the slices' parts back and finalize them on the host with the CPU's code.
 * The same structure as the CUDA driver (src/cuda/reduce.c), on buffers and offsets
 * instead of addresses. */
#include "core/gpu_part.h"
#include "core/gpu_host.h"
#include "core/gpu_ladder.h"
#include "opencl.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SLICES_PER_LAUNCH 65535
#define MAX_PARTIALS (1 << 16) /* work-group parts per launch */
#define PART_BYTES ((int64_t)sizeof(tally__gpu_part))

/* ------------------------------------------------------------ scratch */

tally_status tally__ocl_grow(tally__ocl_ctx *c, cl_mem *buf, size_t *have, size_t need, const char *what) {
  if (*have >= need) return TALLY_OK;
  if (*buf) c->cl->clReleaseMemObject(*buf);
  *buf = NULL;
  *have = 0;
  cl_int e;
  *buf = c->cl->clCreateBuffer(c->ctx, CL_MEM_READ_WRITE_, need, NULL, &e);
  if (!*buf) {
    char w[96];
    snprintf(w, sizeof w, "clCreateBuffer of %zu bytes for %s", need, what);
    return tally__ocl_fail(c, e, w);
  }
  *have = need;
  return TALLY_OK;
}

static tally_status scratch(tally__ocl_ctx *c, int64_t G, int64_t nslices) {
  size_t partial_bytes = G > 1 ? (size_t)(G * nslices * PART_BYTES) : 0;
  tally_status s;
  if ((s = tally__ocl_grow(c, &c->partials, &c->partials_bytes, partial_bytes + 8, "work-group parts"))) return s;
  return tally__ocl_grow(c, &c->results, &c->results_bytes, (size_t)(nslices * PART_BYTES), "results");
}

/* ------------------------------------------------------------ jobs */

typedef struct {
  tally__ocl_ctx *c;
  const tally__problem *p;
  tally__family fam;
  cl_mem x, y, offsets;
  int64_t x0, y0; /* element 0 of each input: an element offset into its buffer */
} job_t;

static int64_t slice_len(const tally__problem *p, int64_t k) {
  return p->offsets ? p->offsets[k + 1] - p->offsets[k] : p->n;
}

/* Whether slices can be read with 16-byte loads: contiguous 1-D runs, both inputs equally
 * misaligned (the buffers themselves are aligned far beyond 16 bytes). */
static int contiguous(const job_t *j) {
  const tally__problem *p = j->p;
  if (p->rows > 1 && !p->offsets) return 0;
  if (p->cstride[0] != 1) return 0;
  if (tally__op_binary(p->op)) {
    if (p->cstride[1] != 1) return 0;
    int64_t es = (int64_t)tally_dtype_size(p->dtype);
    if ((j->x0 * es) % 16 != (j->y0 * es) % 16) return 0;
    if (!p->offsets && ((p->slice_stride[0] - p->slice_stride[1]) * es) % 16 != 0) return 0;
  }
  return 1;
}

/* Keep in step with the kernel's own per-slice G in reduce_best.clh. */
static int64_t blocks_for(const tally__ocl_ctx *c, int64_t len, int contig, size_t esize) {
  int64_t units = contig ? len / (int64_t)(16 / esize) : len;
  int64_t per_block = (int64_t)c->block * 4;
  int64_t g = (units + per_block - 1) / per_block;
  if (g > c->gmax) g = c->gmax;
  return g < 1 ? 1 : g;
}

/* The OpenCL kernels have no last-block finish (TWO_PASS, dialect_opencl.h): a slice of
 * several work-groups leaves their parts in `partials`; merge them here, in work-group
 * order. Slices of one work-group wrote their result already. */
static tally_status merge_on_host(job_t *j, tally__family fam, int contig, int64_t b0, int64_t nb,
                                  int64_t G, tally__gpu_part *out) {
  tally__ocl_ctx *c = j->c;
  tally__gpu_part *gp = malloc((size_t)(nb * G) * sizeof *gp);
  if (!gp) return tally__fail(&c->base, TALLY_ENOMEM, "opencl: no host memory for %" PRId64 " parts", nb * G);
  cl_int e = c->cl->clEnqueueReadBuffer(c->queue, c->partials, 1, 0, (size_t)(nb * G * PART_BYTES), gp,
                                        0, NULL, NULL);
  if (e) {
    free(gp);
    return tally__ocl_fail(c, e, "clEnqueueReadBuffer (work-group parts)");
  }
  size_t es = tally_dtype_size(j->p->dtype);
  for (int64_t q = 0; q < nb; q++) {
    int64_t Gq = blocks_for(c, slice_len(j->p, b0 + q), contig, es);
    if (Gq < 2) continue;
    tally__part acc, one;
    tally__gpu_part_to_part(&gp[q * G], &acc);
    for (int64_t i = 1; i < Gq; i++) {
      tally__gpu_part_to_part(&gp[q * G + i], &one);
      tally__part_merge(&acc, &one, fam);
    }
    tally__part_to_gpu_part(&acc, &out[q]);
  }
  free(gp);
  return TALLY_OK;
}

/* The default work-group size: the kernel's preferred multiple x 8 on CPU devices, x 16
 * on GPUs, a power of two, as far as the device allows (docs/DECISIONS.md, measured: PoCL,
 * multiple 8 -> 64; NVIDIA's OpenCL on an H100, multiple 32 -> 512, 2-7% faster than 256
 * from 2^20 to 2^28). Asked of the first reduce kernel built on the context, which was
 * built with the provisional size set at open; rebuilt when it differs. A size asked for
 * (local=N) stays. */
static tally_status settle_block(tally__ocl_ctx *c, cl_kernel k, int *changed) {
  *changed = 0;
  c->block_settled = 1;
  size_t pm = 0;
  if (c->cl->clGetKernelWorkGroupInfo(k, c->dev, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE_,
                                      sizeof pm, &pm, NULL) != CL_SUCCESS_ || pm == 0)
    return TALLY_OK; /* keep the provisional size */
  c->preferred_multiple = pm;
  int want = 32;
  while ((size_t)want < (c->is_cpu ? 8 : 16) * pm && want < 1024) want *= 2;
  while (want > 32 && ((size_t)want > c->max_wg || (cl_ulong)want * 72 + 1024 > c->local_bytes))
    want /= 2;
  if (want != c->block) {
    tally__ocl_set_block(c, want);
    *changed = 1;
  }
  return TALLY_OK;
}

/* Reduce slices [k0, k1) into parts[0 .. k1 - k0). */
static tally_status launch_slices(job_t *j, tally__family fam, int64_t k0, int64_t k1, double scale,
                                  tally__gpu_part *parts) {
  tally__ocl_ctx *c = j->c;
  const tally__problem *p = j->p;
  const tally__cl_api *cl = c->cl;
  int contig = fam != TALLY__FAM_AFFINE && contiguous(j);
  static const char *const srcs[] = {"reduce_part.clh", "reduce_best.clh", NULL};
  char defs[280];
  tally__gpu_defs(p, fam, contig, c->block, defs, sizeof defs - 16);
  if (c->is_cpu) strcat(defs, " -DRUNS=1");
  cl_kernel k;
  tally_status s = tally__ocl_kernel_get(c, srcs, defs, "reduce_best", &k);
  if (s) return s;
  int changed = 0;
  if (!c->block_settled && (s = settle_block(c, k, &changed))) return s;
  if (changed) {
    tally__gpu_defs(p, fam, contig, c->block, defs, sizeof defs - 16);
    if (c->is_cpu) strcat(defs, " -DRUNS=1");
    if ((s = tally__ocl_kernel_get(c, srcs, defs, "reduce_best", &k))) return s;
  }
  int64_t maxlen = 0;
  for (int64_t q = k0; q < k1; q++)
    if (slice_len(p, q) > maxlen) maxlen = slice_len(p, q);
  int64_t G = blocks_for(c, maxlen, contig, tally_dtype_size(p->dtype));
  int64_t per_launch = MAX_SLICES_PER_LAUNCH;
  if (G > 1 && MAX_PARTIALS / G < per_launch) per_launch = MAX_PARTIALS / G > 0 ? MAX_PARTIALS / G : 1;
  int64_t nb_max = per_launch < k1 - k0 ? per_launch : k1 - k0;
  if ((s = scratch(c, G, nb_max))) return s;
  for (int64_t b0 = k0; b0 < k1; b0 += per_launch) {
    int64_t nb = k1 - b0 < per_launch ? k1 - b0 : per_launch;
    cl_long x0 = j->x0, y0 = j->y ? j->y0 : j->x0, n = p->n, cols = p->cols;
    cl_long ss0 = p->slice_stride[0], ss1 = p->slice_stride[1], rs0 = p->rstride[0],
            rs1 = p->rstride[1], cs0 = p->cstride[0], cs1 = p->cstride[1];
    cl_long slice0 = b0, idx0 = 0, gmax = c->gmax;
    double kshift = 0.0;
    cl_int kgiven = 0;
    cl_ulong seq = 0; /* no flag: the host reads the parts after the kernel */
    cl_mem x = j->x, y = j->y ? j->y : j->x, off = j->offsets;
    /* The kernel's parameters, in order (reduce_best.clh with the OpenCL BASE_PARAMS). */
    tally__ocl_arg args[] = {
        {sizeof x, &x},         {sizeof y, &y},         {sizeof x0, &x0},     {sizeof y0, &y0},
        {sizeof n, &n},         {sizeof cols, &cols},   {sizeof ss0, &ss0},   {sizeof ss1, &ss1},
        {sizeof rs0, &rs0},     {sizeof rs1, &rs1},     {sizeof cs0, &cs0},   {sizeof cs1, &cs1},
        {sizeof off, off ? (const void *)&off : NULL},  {sizeof slice0, &slice0},
        {sizeof scale, &scale}, {sizeof idx0, &idx0},   {sizeof kshift, &kshift},
        {sizeof kgiven, &kgiven}, {sizeof gmax, &gmax}, {sizeof c->partials, &c->partials},
        {sizeof(cl_mem), NULL /* tickets: TWO_PASS kernels take none */},
        {sizeof c->results, &c->results}, {sizeof seq, &seq}};
    if ((s = tally__ocl_set_args(c, k, args, (int)(sizeof args / sizeof args[0]),
                                 "clSetKernelArg (reduce_best)")))
      return s;
    cl_int e;
    size_t global[2] = {(size_t)G * (size_t)c->block, (size_t)nb}, local[2] = {(size_t)c->block, 1};
    e = cl->clEnqueueNDRangeKernel(c->queue, k, 2, NULL, global, local, 0, NULL, NULL);
    if (!e)
      e = cl->clEnqueueReadBuffer(c->queue, c->results, 1, 0, (size_t)(nb * PART_BYTES),
                                  parts + (b0 - k0), 0, NULL, NULL);
    if (e) return tally__ocl_fail(c, e, "the reduce_best kernel");
    if (G > 1 && (s = merge_on_host(j, fam, contig, b0, nb, G, parts + (b0 - k0))))
      return s;
  }
  return TALLY_OK;
}

/* ------------------------------------------------------------ NORM2 of f64 */

/* One slice, for the rescue (core/gpu_host.c). */
static tally_status launch_one(void *job, tally__family fam, int64_t k, double scale,
                               tally__gpu_part *out) {
  return launch_slices(job, fam, k, k + 1, scale, out);
}

/* ------------------------------------------------------------ placing the data */

/* Input `which`: a device array is its own cl_mem from element 0 (a handle, so the span
 * may not reach below it); a host array's span is written into staging. */
static tally_status place_input(job_t *j, int which, const void *data, cl_mem *buf, int64_t *e0) {
  tally__ocl_ctx *c = j->c;
  const tally__problem *p = j->p;
  int64_t lo, hi, es = (int64_t)tally_dtype_size(p->dtype);
  tally__input_span(p, which, &lo, &hi);
  if (p->in_mem == TALLY_MEM_DEVICE) {
    if (lo < 0)
      return tally__fail(&c->base, TALLY_EINVAL, "%s: negative strides reach %" PRId64 " elements "
                         "before element 0; an OpenCL device array is a cl_mem whose element 0 "
                         "is its first byte", which ? "in2" : "in", -lo);
    *buf = (cl_mem)data;
    *e0 = 0;
    return TALLY_OK;
  }
  size_t bytes = (size_t)((hi - lo + 1) * es);
  tally_status s = tally__ocl_grow(c, &c->staging[which], &c->staging_bytes[which], bytes, "a host input");
  if (s) return s;
  cl_int e = c->cl->clEnqueueWriteBuffer(c->queue, c->staging[which], 1, 0, bytes,
                                         (const char *)data + lo * es, 0, NULL, NULL);
  if (e) return tally__ocl_fail(c, e, "clEnqueueWriteBuffer (input)");
  *buf = c->staging[which];
  *e0 = -lo;
  return TALLY_OK;
}

static int64_t total_elements(const tally__problem *p) {
  return p->offsets ? p->offsets[p->nslices] - p->offsets[0] : p->nslices * p->n;
}

#define SLICES_PER_ROUND 65536 /* parts held on the host between launches and finalizing */

tally_status tally__ocl_reduce(tally_context *ctx, const tally__problem *p, const void *in,
                               const void *in2, void *out, int64_t s0, int64_t s1, void *ws) {
  (void)ws;
  tally__ocl_ctx *c = (tally__ocl_ctx *)ctx;
  if (p->nslices == 0) return TALLY_OK;
  job_t j = {c, p, tally__family_of(p->op, p->dtype), NULL, NULL, NULL, 0, 0};
  const tally__ladder_variant *v; /* NULL: best */
  tally_status s = tally__ladder_find(ctx, "opencl", tally__ocl_ladder_caps(c), p->opt.variant,
                                      p->op, p->dtype, &v);
  if (s) return s;
  tally__part *parts = NULL;
  tally__gpu_part *g = NULL;
  void *out_host = out;
  char *out_copy = NULL;
  size_t out_bytes = 0;
  int64_t rs = (int64_t)tally_dtype_size(p->rdtype);
  if (total_elements(p) > 0) { /* empty inputs are never read (their pointer may be NULL) */
    if ((s = place_input(&j, 0, in, &j.x, &j.x0))) goto done;
    if (in2 && (s = place_input(&j, 1, in2, &j.y, &j.y0))) goto done;
  }
  if (p->offsets) {
    size_t bytes = (size_t)(p->nslices + 1) * 8;
    if ((s = tally__ocl_grow(c, &c->offsets, &c->offsets_bytes, bytes, "segment offsets"))) goto done;
    cl_int e = c->cl->clEnqueueWriteBuffer(c->queue, c->offsets, 1, 0, bytes, p->offsets, 0, NULL, NULL);
    if (e) { s = tally__ocl_fail(c, e, "clEnqueueWriteBuffer (offsets)"); goto done; }
    j.offsets = c->offsets;
  }
  if (p->out_mem == TALLY_MEM_DEVICE) {
    /* Finalize into a host copy of the output's span (gaps kept), then write it back. */
    int64_t lo, hi;
    tally__out_span(p, s0, s1, &lo, &hi);
    if (lo < 0) {
      s = tally__fail(ctx, TALLY_EINVAL, "out: negative strides reach %" PRId64 " elements before "
                      "element 0 of an OpenCL device array (a cl_mem starts at element 0)", -lo);
      goto done;
    }
    out_bytes = (size_t)((hi + 1) * rs);
    out_copy = malloc(out_bytes);
    if (!out_copy) {
      s = tally__fail(ctx, TALLY_ENOMEM, "out: no host memory for a copy of %zu bytes", out_bytes);
      goto done;
    }
    cl_int e = c->cl->clEnqueueReadBuffer(c->queue, (cl_mem)out, 1, 0, out_bytes, out_copy, 0, NULL, NULL);
    if (e) { s = tally__ocl_fail(c, e, "clEnqueueReadBuffer (out)"); goto done; }
    out_host = out_copy;
  }
  int64_t round = p->nslices < SLICES_PER_ROUND ? p->nslices : SLICES_PER_ROUND;
  parts = malloc((size_t)round * sizeof *parts);
  g = malloc((size_t)round * sizeof *g);
  if (!parts || !g) {
    s = tally__fail(ctx, TALLY_ENOMEM, "opencl: no host memory for %" PRId64 " parts", round);
    goto done;
  }
  for (int64_t k0 = 0; k0 < p->nslices && !s; k0 += round) {
    int64_t k1 = k0 + round < p->nslices ? k0 + round : p->nslices;
    if (v) {
      if ((s = tally__ocl_ladder_run(c, p, v, j.x, j.x0, j.y, j.y0, k0, k1, parts))) break;
    } else {
      if ((s = launch_slices(&j, j.fam, k0, k1, 1.0, g))) break;
      for (int64_t k = k0; k < k1; k++) tally__gpu_part_to_part(&g[k - k0], &parts[k - k0]);
    }
    s = tally__gpu_finalize_slices(ctx, p, k0, k1, parts, out_host, s0, s1, launch_one, &j);
  }
  if (!s && out_copy) {
    cl_int e = c->cl->clEnqueueWriteBuffer(c->queue, (cl_mem)out, 1, 0, out_bytes, out_copy, 0, NULL, NULL);
    if (e) s = tally__ocl_fail(c, e, "clEnqueueWriteBuffer (out)");
  }
done:
  free(out_copy);
  free(parts);
  free(g);
  c->cl->clFinish(c->queue);
  return s;
}

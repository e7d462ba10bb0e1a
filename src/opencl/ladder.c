/* The ladder on OpenCL: the launches and part moves core/gpu_ladder.c asks for, on the
 * context's part buffers (kernels: src/gpu/ladder.clh, the rungs OpenCL C can express). */
#include "core/gpu_host.h"
#include "core/gpu_ladder.h"
#include "opencl.h"

#include <stdio.h>
#include <string.h>

#define WORDS TALLY__LADDER_WORDS

int tally__ocl_ladder_caps(const tally__ocl_ctx *c) {
  return c->has_atomic64 ? TALLY__LADDER_NEEDS_ATOMIC64 : 0;
}

typedef struct {
  tally__ocl_ctx *c;
  const tally__problem *p;
  tally__family fam;
  cl_mem x, y;
  int64_t x0, y0;
  cl_long cap;
} ocl_ladder;

static tally_status make(tally__ocl_ctx *c, cl_mem *buf, size_t bytes, const char *what) {
  cl_int e;
  *buf = c->cl->clCreateBuffer(c->ctx, CL_MEM_READ_WRITE_, bytes, NULL, &e);
  if (*buf) return TALLY_OK;
  char w[112];
  snprintf(w, sizeof w, "clCreateBuffer of %zu bytes for %s", bytes, what);
  return tally__ocl_fail(c, e, w);
}

static tally_status zero(tally__ocl_ctx *c, cl_mem buf, size_t bytes) {
  static const unsigned char z = 0;
  cl_int e = c->cl->clEnqueueFillBuffer(c->queue, buf, &z, 1, 0, bytes, 0, NULL, NULL);
  return e ? tally__ocl_fail(c, e, "clEnqueueFillBuffer (ladder)") : TALLY_OK;
}

/* Two part buffers, a ticket counter and a result part, kept in the context. */
static tally_status scratch(void *self, int64_t cap) {
  ocl_ladder *r = self;
  tally__ocl_ctx *c = r->c;
  size_t bytes = (size_t)(WORDS * cap) * 8;
  tally_status s = TALLY_OK;
  if (c->ladder_bytes < bytes) {
    for (int i = 0; i < 2; i++)
      if (c->ladder_buf[i]) c->cl->clReleaseMemObject(c->ladder_buf[i]), c->ladder_buf[i] = NULL;
    c->ladder_bytes = 0;
    if (bytes > c->max_alloc)
      return tally__fail(&c->base, TALLY_ENOMEM, "opencl:%d:%d (%s): the ladder needs part buffers "
                         "of %zu bytes, more than the device's largest allocation (%llu bytes)",
                         c->platform, c->index, c->name, bytes, (unsigned long long)c->max_alloc);
    for (int i = 0; i < 2 && !s; i++) s = make(c, &c->ladder_buf[i], bytes, "ladder parts");
    if (s) return s;
    c->ladder_bytes = bytes;
  }
  if (!c->ladder_counter) {
    if ((s = make(c, &c->ladder_counter, 8, "the ladder's ticket")) || (s = zero(c, c->ladder_counter, 8)))
      return s;
  }
  if (!c->ladder_result && (s = make(c, &c->ladder_result, WORDS * 8, "the ladder's result")))
    return s;
  r->cap = cap;
  return TALLY_OK;
}

static tally_status launch(void *self, const tally__lslice *sl, const char *entry, int64_t grid,
                           int in, int64_t m, int64_t s, int out) {
  ocl_ladder *r = self;
  tally__ocl_ctx *c = r->c;
  static const char *const srcs[] = {"reduce_part.clh", "reduce_best.clh", "ladder.clh", NULL};
  char defs[280];
  tally__gpu_defs(r->p, r->fam, 0, TALLY__LADDER_BLOCK, defs, sizeof defs);
  cl_kernel k;
  tally_status st = tally__ocl_kernel_get(c, srcs, defs, entry, &k);
  if (st) return st;
  cl_mem x = r->x, y = r->y ? r->y : r->x;
  cl_mem pin = in == TALLY__LADDER_NONE ? NULL : c->ladder_buf[in];
  cl_mem pout = out == TALLY__LADDER_NONE ? NULL : c->ladder_buf[out];
  cl_long x0 = r->x0 + sl->o0, y0 = (r->y ? r->y0 : r->x0) + sl->o1;
  cl_long len = sl->len, cols = sl->cols, rs0 = sl->rs0, rs1 = sl->rs1, cs0 = sl->cs0, cs1 = sl->cs1;
  cl_long mm = m, ss = s;
  double scale = 1.0;
  /* LADDER_ARGS with the OpenCL BASE_PARAMS, in order. */
  tally__ocl_arg args[] = {
      {sizeof x, &x},       {sizeof y, &y},       {sizeof x0, &x0},     {sizeof y0, &y0},
      {sizeof len, &len},   {sizeof cols, &cols}, {sizeof rs0, &rs0},   {sizeof rs1, &rs1},
      {sizeof cs0, &cs0},   {sizeof cs1, &cs1},   {sizeof scale, &scale},
      {sizeof pin, pin ? (const void *)&pin : NULL}, {sizeof mm, &mm}, {sizeof ss, &ss},
      {sizeof pout, pout ? (const void *)&pout : NULL}, {sizeof r->cap, &r->cap},
      {sizeof c->ladder_counter, &c->ladder_counter}, {sizeof c->ladder_result, &c->ladder_result}};
  st = tally__ocl_set_args(c, k, args, (int)(sizeof args / sizeof args[0]), "clSetKernelArg (ladder)");
  if (st) return st;
  size_t global = (size_t)grid * TALLY__LADDER_BLOCK, local = TALLY__LADDER_BLOCK;
  cl_int e = c->cl->clEnqueueNDRangeKernel(c->queue, k, 1, NULL, &global, &local, 0, NULL, NULL);
  if (!e) e = c->cl->clFinish(c->queue);
  if (e) {
    char w[96];
    snprintf(w, sizeof w, "the %s kernel", entry);
    return tally__ocl_fail(c, e, w);
  }
  return TALLY_OK;
}

static tally_status read_parts(void *self, int b, int64_t m, uint64_t *w) {
  ocl_ladder *r = self;
  cl_int e = CL_SUCCESS_;
  for (int i = 0; i < WORDS && !e; i++)
    e = r->c->cl->clEnqueueReadBuffer(r->c->queue, r->c->ladder_buf[b], 1, (size_t)(i * r->cap * 8),
                                      (size_t)m * 8, w + i * m, 0, NULL, NULL);
  return e ? tally__ocl_fail(r->c, e, "clEnqueueReadBuffer (ladder parts)") : TALLY_OK;
}

static tally_status read_result(void *self, tally__gpu_part *g) {
  ocl_ladder *r = self;
  cl_int e = r->c->cl->clEnqueueReadBuffer(r->c->queue, r->c->ladder_result, 1, 0, sizeof *g, g, 0,
                                           NULL, NULL);
  return e ? tally__ocl_fail(r->c, e, "clEnqueueReadBuffer (ladder result)") : TALLY_OK;
}

static tally_status zero_result(void *self) {
  ocl_ladder *r = self;
  return zero(r->c, r->c->ladder_result, WORDS * 8);
}

tally_status tally__ocl_ladder_run(tally__ocl_ctx *c, const tally__problem *p,
                                   const struct tally__ladder_variant *v, cl_mem x, int64_t x0,
                                   cl_mem y, int64_t y0, int64_t k0, int64_t k1, tally__part *parts) {
  ocl_ladder r;
  memset(&r, 0, sizeof r);
  r.c = c;
  r.p = p;
  r.fam = tally__family_of(p->op, p->dtype);
  r.x = x;
  r.x0 = x0;
  r.y = y;
  r.y0 = y0;
  tally__ladder_dev dev = {&r, (int)c->compute_units, scratch, launch, read_parts, read_result,
                           zero_result};
  return tally__ladder_run(&c->base, &dev, p, v, k0, k1, parts);
}

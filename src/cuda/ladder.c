/* The ladder on CUDA: the launches and part moves core/gpu_ladder.c asks for, on the
 * context's part buffers (kernels: src/gpu/ladder.clh). */
#include "core/gpu_ladder.h"
#include "cuda_ctx.h"
#include "ladder.h"

#include <string.h>

#define WORDS TALLY__LADDER_WORDS

typedef struct {
  tally__cuda_ctx *c;
  const tally__problem *p;
  tally__family fam;
  CUdeviceptr x, y;   /* element 0 of the inputs */
  CUdeviceptr buf[2]; /* part buffers (ping-pong), cap parts each */
  long long cap;
  CUdeviceptr counter, result;
} cuda_ladder;

/* Part buffers (two), a ticket counter and a result part, kept in the context. */
static tally_status scratch(void *self, int64_t cap) {
  cuda_ladder *r = self;
  tally__cuda_ctx *c = r->c;
  const tally__cu_api *cu = c->cu;
  size_t bytes = (size_t)(WORDS * cap) * 8;
  if (c->ladder_bytes < bytes) {
    for (int i = 0; i < 2; i++)
      if (c->ladder_buf[i]) cu->cuMemFree(c->ladder_buf[i]), c->ladder_buf[i] = 0;
    c->ladder_bytes = 0;
    for (int i = 0; i < 2; i++) {
      CUresult e = cu->cuMemAlloc(&c->ladder_buf[i], bytes);
      if (e) { c->ladder_buf[i] = 0; return tally__cuda_fail(c, e, "cuMemAlloc (ladder parts)"); }
    }
    c->ladder_bytes = bytes;
  }
  if (!c->ladder_small) {
    CUresult e = cu->cuMemAlloc(&c->ladder_small, 128);
    if (e) { c->ladder_small = 0; return tally__cuda_fail(c, e, "cuMemAlloc (ladder result)"); }
    e = cu->cuMemsetD8Async(c->ladder_small, 0, 128, c->stream);
    if (e) {
      cu->cuMemFree(c->ladder_small);
      c->ladder_small = 0;
      return tally__cuda_fail(c, e, "cuMemsetD8Async (ladder ticket)");
    }
  }
  r->buf[0] = c->ladder_buf[0];
  r->buf[1] = c->ladder_buf[1];
  r->cap = cap;
  r->counter = c->ladder_small;
  r->result = c->ladder_small + 8;
  return TALLY_OK;
}

static tally_status launch(void *self, const tally__lslice *sl, const char *entry, int64_t grid,
                           int in, int64_t m, int64_t s, int out) {
  cuda_ladder *r = self;
  static const char *const srcs[] = {"reduce_part.clh", "reduce_best.clh", "ladder.clh", NULL};
  char defs[256];
  tally__cuda_defs(r->p, r->fam, 0, defs, sizeof defs);
  CUfunction fn;
  tally_status st = tally__cuda_kernel_get(r->c, srcs, defs, entry, &fn);
  if (st) return st;
  int64_t es = (int64_t)tally_dtype_size(r->p->dtype);
  CUdeviceptr x = r->x + (CUdeviceptr)(sl->o0 * es), y = (r->y ? r->y : r->x) + (CUdeviceptr)(sl->o1 * es);
  CUdeviceptr pin = in == TALLY__LADDER_NONE ? 0 : r->buf[in];
  CUdeviceptr pout = out == TALLY__LADDER_NONE ? 0 : r->buf[out];
  long long len = sl->len, cols = sl->cols, rs0 = sl->rs0, rs1 = sl->rs1, cs0 = sl->cs0, cs1 = sl->cs1;
  long long mm = m, ss = s;
  double scale = 1.0;
  void *args[] = {&x, &y, &len, &cols, &rs0, &rs1, &cs0, &cs1, &scale,
                  &pin, &mm, &ss, &pout, &r->cap, &r->counter, &r->result};
  CUresult e = r->c->cu->cuLaunchKernel(fn, (unsigned)grid, 1, 1, TALLY__LADDER_BLOCK, 1, 1, 0,
                                        r->c->stream, args, NULL);
  if (!e) e = r->c->cu->cuStreamSynchronize(r->c->stream);
  if (e) {
    r->c->cu->cuMemsetD8Async(r->counter, 0, 4, r->c->stream);
    return tally__cuda_fail(r->c, e, entry);
  }
  return TALLY_OK;
}

static tally_status read_parts(void *self, int b, int64_t m, uint64_t *w) {
  cuda_ladder *r = self;
  CUresult e = 0;
  for (int i = 0; i < WORDS && !e; i++)
    e = r->c->cu->cuMemcpyDtoHAsync(w + i * m, r->buf[b] + (CUdeviceptr)(i * r->cap * 8),
                                     (size_t)m * 8, r->c->stream);
  if (!e) e = r->c->cu->cuStreamSynchronize(r->c->stream);
  return e ? tally__cuda_fail(r->c, e, "cuMemcpyDtoH (ladder parts)") : TALLY_OK;
}

static tally_status read_result(void *self, tally__gpu_part *g) {
  cuda_ladder *r = self;
  CUresult e = r->c->cu->cuMemcpyDtoHAsync(g, r->result, sizeof *g, r->c->stream);
  if (!e) e = r->c->cu->cuStreamSynchronize(r->c->stream);
  return e ? tally__cuda_fail(r->c, e, "cuMemcpyDtoH (ladder result)") : TALLY_OK;
}

static tally_status zero_result(void *self) {
  cuda_ladder *r = self;
  CUresult e = r->c->cu->cuMemsetD8Async(r->result, 0, WORDS * 8, r->c->stream);
  return e ? tally__cuda_fail(r->c, e, "cuMemsetD8Async (ladder result)") : TALLY_OK;
}

tally_status tally__cuda_ladder_run(tally__cuda_ctx *c, const tally__problem *p,
                                    const tally__ladder_variant *v, CUdeviceptr x, CUdeviceptr y,
                                    int64_t k0, int64_t k1, tally__part *parts) {
  cuda_ladder r;
  memset(&r, 0, sizeof r);
  r.c = c;
  r.p = p;
  r.fam = tally__family_of(p->op, p->dtype);
  r.x = x;
  r.y = y;
  tally__ladder_dev dev = {&r, c->sms, scratch, launch, read_parts, read_result, zero_result};
  return tally__ladder_run(&c->base, &dev, p, v, k0, k1, parts);
}

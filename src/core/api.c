/* Public entry points: validate, then hand whole problems to the context's backend. */
#include "internal.h"
#include "stage_trace.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Backends without device memory of their own (the CPU) take TALLY_MEM_DEVICE arrays as
 * host memory: that is what their tally_mem_alloc returns, so portable code runs there. */
static tally_status check_mem(tally_context *ctx, const char *arg, const tally_array *a) {
  (void)ctx, (void)arg, (void)a;
  return TALLY_OK;
}

static tally_status run(tally_context *ctx, tally_op op, const tally_array *in,
                        const tally_array *in2, tally_array *out, const tally_options *opt,
                        const int64_t *offsets, int64_t nseg) {
  TALLY__STAGE(0);
  if (!ctx) return tally__fail(NULL, TALLY_EINVAL, "ctx: NULL pointer");
  tally__problem p;
  tally_status s = tally__validate(ctx, op, in, in2, out, opt, offsets, nseg, true, &p);
  if (s) return s;
  if ((s = check_mem(ctx, "in", in)) || (s = check_mem(ctx, "in2", in2)) ||
      (s = check_mem(ctx, "out", out)))
    return s;
  if ((s = ctx->backend->check(ctx, &p))) return s;
  TALLY__STAGE(1);
  int64_t s0, s1;
  tally__out_strides(&p, out, &s0, &s1);
  return ctx->backend->reduce(ctx, &p, in->data, in2 ? in2->data : NULL, out->data, s0, s1, NULL);
}

tally_status tally_reduce(tally_context *ctx, tally_op op, const tally_array *in,
                          const tally_array *in2, tally_array *out, const tally_options *opt) {
  return run(ctx, op, in, in2, out, opt, NULL, 0);
}

tally_status tally_reduce_segments(tally_context *ctx, tally_op op, const tally_array *in,
                                   const tally_array *in2, const int64_t *offsets,
                                   int64_t nsegments, tally_array *out,
                                   const tally_options *opt) {
  if (!offsets && nsegments == 0) {
    /* Zero segments: nothing to compute, but the arguments must still be sound. */
    static const int64_t zero = 0;
    offsets = &zero;
  }
  return run(ctx, op, in, in2, out, opt, offsets, nsegments);
}

tally_status tally_reduce_user(tally_context *ctx, const tally_user_op *uop, const void *data,
                               int64_t n, int64_t stride, void *out) {
  if (!ctx) return tally__fail(NULL, TALLY_EINVAL, "ctx: NULL pointer");
  if (!uop) return tally__fail(ctx, TALLY_EINVAL, "uop: NULL pointer");
  if (uop->size < 1 || uop->size > 256)
    return tally__fail(ctx, TALLY_EINVAL, "uop->size: %zu is outside 1..256", uop->size);
  if (!uop->identity) return tally__fail(ctx, TALLY_EINVAL, "uop->identity: NULL pointer");
  if (!uop->combine) return tally__fail(ctx, TALLY_EINVAL, "uop->combine: NULL pointer");
  if (n < 0) return tally__fail(ctx, TALLY_EINVAL, "n: %" PRId64 " is negative", n);
  if (!data && n > 0)
    return tally__fail(ctx, TALLY_EINVAL, "data: NULL with %" PRId64 " elements", n);
  if (!out) return tally__fail(ctx, TALLY_EINVAL, "out: NULL pointer");
  if (stride == 0) stride = 1;
  int64_t span;
  if (n > 0 && (__builtin_mul_overflow(n - 1, stride, &span) ||
                __builtin_mul_overflow(span, (int64_t)uop->size, &span)))
    return tally__fail(ctx, TALLY_EINVAL, "n: %" PRId64 " times stride %" PRId64
                       " overflows a 64-bit byte offset", n, stride);
  if (n > 0) {
    intptr_t lo = (intptr_t)data + (span < 0 ? span : 0);
    intptr_t hi = (intptr_t)data + (span > 0 ? span : 0) + (intptr_t)uop->size;
    intptr_t o = (intptr_t)out;
    if (o < hi && lo < o + (intptr_t)uop->size)
      return tally__fail(ctx, TALLY_EINVAL, "out: %p overlaps data", out);
  }
  if (!ctx->backend->reduce_user)
    return tally__fail(ctx, TALLY_EUNSUPPORTED, "user-defined reductions are not supported by "
                       "the %s backend", ctx->backend->name);
  return ctx->backend->reduce_user(ctx, uop, data, n, stride, out);
}

/* ---------------------------------------------------------------- plans */

struct tally_plan {
  tally_context *ctx;
  tally__problem p;
  tally_array in, in2, out; /* the descriptors the plan was made for */
  bool has_in2;
  void *own_ws;             /* plan-owned scratch */
  void *user_ws;            /* caller-owned scratch, if set */
  size_t ws_bytes;
};

tally_status tally_plan_create(tally_context *ctx, tally_op op, const tally_array *in,
                               const tally_array *in2, const tally_array *out,
                               const tally_options *opt, tally_plan **plan) {
  if (!ctx) return tally__fail(NULL, TALLY_EINVAL, "ctx: NULL pointer");
  if (!plan) return tally__fail(ctx, TALLY_EINVAL, "plan: NULL pointer");
  *plan = NULL;
  tally__problem p;
  tally_status s = tally__validate(ctx, op, in, in2, out, opt, NULL, 0, false, &p);
  if (s) return s;
  if ((s = check_mem(ctx, "in", in)) || (s = check_mem(ctx, "out", out))) return s;
  if ((s = ctx->backend->check(ctx, &p))) return s;
  tally_plan *pl = calloc(1, sizeof *pl);
  if (!pl) return tally__fail(ctx, TALLY_ENOMEM, "plan: out of memory allocating %zu bytes", sizeof *pl);
  pl->ctx = ctx;
  pl->p = p;
  pl->p.opt.variant = NULL; /* the plan must not keep the caller's string */
  pl->in = *in;
  pl->out = *out;
  pl->has_in2 = in2 != NULL;
  if (in2) pl->in2 = *in2;
  pl->ws_bytes = ctx->backend->workspace_size(ctx, &p);
  if (opt && opt->variant) {
    /* Keep the variant by its canonical name in the backend's table. */
    for (int i = 0;; i++) {
      const char *v = ctx->backend->variant_name(ctx, i);
      if (!v) break;
      if (strcmp(v, opt->variant) == 0) pl->p.opt.variant = v;
    }
  }
  if (pl->ws_bytes) {
    pl->own_ws = aligned_alloc(64, (pl->ws_bytes + 63) & ~(size_t)63);
    if (!pl->own_ws) {
      size_t bytes = pl->ws_bytes;
      free(pl);
      return tally__fail(ctx, TALLY_ENOMEM, "plan workspace: out of memory allocating %zu bytes",
                         bytes);
    }
  }
  *plan = pl;
  return TALLY_OK;
}

tally_status tally_plan_workspace_size(const tally_plan *plan, size_t *bytes) {
  if (!plan) return tally__fail(NULL, TALLY_EINVAL, "plan: NULL pointer");
  if (!bytes) return tally__fail(plan->ctx, TALLY_EINVAL, "bytes: NULL pointer");
  *bytes = plan->ws_bytes;
  return TALLY_OK;
}

tally_status tally_plan_set_workspace(tally_plan *plan, void *workspace, size_t bytes) {
  if (!plan) return tally__fail(NULL, TALLY_EINVAL, "plan: NULL pointer");
  if (workspace && bytes < plan->ws_bytes)
    return tally__fail(plan->ctx, TALLY_EINVAL, "bytes: %zu, but the plan needs %zu", bytes,
                       plan->ws_bytes);
  if (workspace && ((uintptr_t)workspace % 16) != 0)
    return tally__fail(plan->ctx, TALLY_EINVAL, "workspace: %p is not 16-byte aligned", workspace);
  plan->user_ws = workspace;
  return TALLY_OK;
}

static bool same_shape(const tally_array *a, const tally_array *b) {
  if (a->dtype != b->dtype || a->ndim != b->ndim || a->mem != b->mem) return false;
  for (int d = 0; d < a->ndim; d++)
    if (a->shape[d] != b->shape[d] || a->strides[d] != b->strides[d]) return false;
  return true;
}

tally_status tally_plan_run(tally_plan *plan, const tally_array *in, const tally_array *in2,
                            tally_array *out) {
  if (!plan) return tally__fail(NULL, TALLY_EINVAL, "plan: NULL pointer");
  tally_context *ctx = plan->ctx;
  if (!in) return tally__fail(ctx, TALLY_EINVAL, "in: NULL pointer");
  if (!out) return tally__fail(ctx, TALLY_EINVAL, "out: NULL pointer");
  if (!same_shape(in, &plan->in))
    return tally__fail(ctx, TALLY_EINVAL, "in: its dtype, shape or strides differ from the plan's");
  if (!same_shape(out, &plan->out))
    return tally__fail(ctx, TALLY_EINVAL, "out: its dtype, shape or strides differ from the plan's");
  if ((in2 != NULL) != plan->has_in2 || (in2 && !same_shape(in2, &plan->in2)))
    return tally__fail(ctx, TALLY_EINVAL, "in2: differs from the plan's");
  /* Pointers are new on every run: check them (NULL data, alignment, overlap). */
  tally__problem p;
  tally_options opt = plan->p.opt;
  tally_status s = tally__validate(ctx, plan->p.op, in, in2, out, &opt, NULL, 0, true, &p);
  if (s) return s;
  int64_t s0, s1;
  tally__out_strides(&p, out, &s0, &s1);
  void *ws = plan->user_ws ? plan->user_ws : plan->own_ws;
  return ctx->backend->reduce(ctx, &p, in->data, in2 ? in2->data : NULL, out->data, s0, s1, ws);
}

void tally_plan_destroy(tally_plan *plan) {
  if (!plan) return;
  free(plan->own_ws);
  free(plan);
}

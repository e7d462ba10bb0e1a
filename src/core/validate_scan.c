/* Argument checking of scans: each failure names the argument and its value. */
#include "internal.h"

#include <inttypes.h>
#include <string.h>

void tally_scan_options_init(tally_scan_options *opt) {
  if (opt) memset(opt, 0, sizeof *opt);
}

static bool scan_op(tally_op op) {
  return op == TALLY_SUM || op == TALLY_PROD || op == TALLY_MIN || op == TALLY_MAX ||
         op == TALLY_AFFINE;
}

/* Segments: flags or offsets (not both), offsets a partition of [0, n]. */
static tally_status check_segments(tally_context *ctx, const tally_scan_options *o, int64_t n) {
  if (o->flags && o->offsets)
    return tally__fail(ctx, TALLY_EINVAL, "opt->flags and opt->offsets: both set (segments are "
                       "given by one of them)");
  if (!o->offsets) {
    if (o->nsegments != 0)
      return tally__fail(ctx, TALLY_EINVAL, "opt->nsegments: %" PRId64 " without opt->offsets",
                         o->nsegments);
    return TALLY_OK;
  }
  int64_t k = o->nsegments;
  if (k < 0) return tally__fail(ctx, TALLY_EINVAL, "opt->nsegments: %" PRId64 " is negative", k);
  if (o->offsets[0] != 0)
    return tally__fail(ctx, TALLY_EINVAL, "opt->offsets[0]: %" PRId64 ", but must be 0",
                       o->offsets[0]);
  for (int64_t i = 0; i < k; i++)
    if (o->offsets[i + 1] < o->offsets[i] || o->offsets[i + 1] > n)
      return tally__fail(ctx, TALLY_EINVAL,
                         "opt->offsets[%" PRId64 "]: %" PRId64 " is %s (offsets[%" PRId64
                         "] = %" PRId64 ", n = %" PRId64 ")", i + 1, o->offsets[i + 1],
                         o->offsets[i + 1] < o->offsets[i] ? "below the one before it"
                                                           : "past the end",
                         i, o->offsets[i], n);
  if (o->offsets[k] != n)
    return tally__fail(ctx, TALLY_EINVAL, "opt->offsets[%" PRId64 "]: %" PRId64 ", but the "
                       "segments must cover all %" PRId64 " elements", k, o->offsets[k], n);
  return TALLY_OK;
}

/* out may be exactly in (element i of in is value (i, w) of out, same dtype and step),
 * but must not overlap it otherwise. */
static tally_status check_alias(tally_context *ctx, const char *arg, const tally_array *a,
                                const tally__layout *La, const tally_array *out,
                                const tally__layout *Lo, const tally__scan_problem *p, int w) {
  bool handles = ctx->backend->device_handles;
  if (!tally__overlaps(out, Lo, a, La, handles)) return TALLY_OK;
  int64_t es = (int64_t)tally_dtype_size(out->dtype);
  bool exact = a->dtype == out->dtype && a->mem == out->mem && La->strides[0] == p->so0 &&
               (char *)a->data == (char *)out->data + w * p->so1 * es;
  if (exact) return TALLY_OK;
  return tally__fail(ctx, TALLY_EINVAL, "out: its memory overlaps %s (%p) without being exactly "
                     "in place (the same address, dtype and stride)", arg, a->data);
}

/* out's n x W values must be n·W distinct elements (value (i, w) at i·so0 + w·so1). */
static tally_status check_out_self(tally_context *ctx, const tally__scan_problem *p) {
  int64_t n = p->n, s0 = p->so0, s1 = p->so1;
  bool overlap = n > 1 && s0 == 0;
  if (p->width == 2 && n > 0) {
    if (s1 == 0) overlap = true;
    else if (s0 != 0 && s1 % s0 == 0 && (s1 / s0 <= n - 1 && s1 / s0 >= -(n - 1))) overlap = true;
  }
  if (!overlap) return TALLY_OK;
  return tally__fail(ctx, TALLY_EINVAL, "out: strides %" PRId64 " (elements) and %" PRId64 " (values) "
                     "make its %" PRId64 " x %d values overlap one another", s0, s1, n, p->width);
}

/* Does [a, a + len) meet [b0, b1)? */
static bool meets(const void *a, int64_t len, intptr_t b0, intptr_t b1) {
  return a && len > 0 && (intptr_t)a < b1 && b0 < (intptr_t)a + (intptr_t)len;
}

/* The segment options are read while out is written: they must not overlap it (out's
 * bytes: [o0, o1)). init is copied before anything is written: it may lie anywhere. */
static tally_status check_opt_alias(tally_context *ctx, const tally__scan_problem *p, intptr_t o0,
                                    intptr_t o1) {
  if (meets(p->flags, p->n, o0, o1))
    return tally__fail(ctx, TALLY_EINVAL, "opt->flags: %p overlaps out (the flags would be "
                       "overwritten while the scan reads them)", (const void *)p->flags);
  int64_t ob;
  if (p->offsets && (__builtin_mul_overflow(p->nsegments + 1, (int64_t)sizeof(int64_t), &ob) ||
                     meets(p->offsets, ob, o0, o1)))
    return tally__fail(ctx, TALLY_EINVAL, "opt->offsets: %p overlaps out (the offsets would be "
                       "overwritten while the scan reads them)", (const void *)p->offsets);
  return TALLY_OK;
}

static tally_status check_common(tally_context *ctx, const tally_scan_options *opt,
                                 tally__scan_problem *p) {
  tally_scan_options o;
  if (opt) o = *opt;
  else tally_scan_options_init(&o);
  if (o.exclusive != 0 && o.exclusive != 1)
    return tally__fail(ctx, TALLY_EINVAL, "opt->exclusive: %d (must be 0 or 1)", o.exclusive);
  if ((unsigned)o.accuracy > TALLY_ACCURACY_FAST)
    return tally__fail(ctx, TALLY_EINVAL, "opt->accuracy: unknown value %d", (int)o.accuracy);
  if ((unsigned)o.nan > TALLY_NAN_IGNORE)
    return tally__fail(ctx, TALLY_EINVAL, "opt->nan: unknown value %d", (int)o.nan);
  p->exclusive = o.exclusive;
  p->init = o.init;
  p->accuracy = o.accuracy;
  p->nan = o.nan;
  p->flags = o.flags;
  p->offsets = o.offsets;
  p->nsegments = o.nsegments;
  tally_status s = check_segments(ctx, &o, p->n);
  if (s) return s;
  static const char *const names[] = {"best", "hillis_steele", "blelloch", "four_kernel"};
  p->variant = -1;
  for (int v = 0; v < 4 && o.variant; v++)
    if (strcmp(o.variant, names[v]) == 0) p->variant = v;
  if (!o.variant) p->variant = TALLY__SCAN_BEST;
  if (p->variant < 0)
    return tally__fail(ctx, TALLY_EINVAL, "opt->variant: '%s' is no scan variant (best, "
                       "hillis_steele, blelloch, four_kernel)", o.variant);
  if (p->variant != TALLY__SCAN_BEST) {
    if (ctx->backend == &tally__cpu_backend)
      return tally__fail(ctx, TALLY_EUNSUPPORTED, "opt->variant: '%s' is a GPU ladder rung; the "
                         "cpu backend scans with 'best' only", o.variant);
    if (o.flags || o.offsets)
      return tally__fail(ctx, TALLY_EUNSUPPORTED, "opt->variant: '%s' does not take segments "
                         "(only 'best' does)", o.variant);
  }
  return TALLY_OK;
}

tally_status tally__validate_scan(tally_context *ctx, tally_op op, const tally_array *in,
                                  const tally_array *in2, const tally_array *out,
                                  const tally_scan_options *opt, tally__scan_problem *p) {
  tally_status s;
  memset(p, 0, sizeof *p);
  if (!tally__op_valid(op)) return tally__fail(ctx, TALLY_EINVAL, "op: unknown value %d", (int)op);
  if (!scan_op(op))
    return tally__fail(ctx, TALLY_EUNSUPPORTED, "op: %s has no scan (scans: sum, prod, min, max, "
                       "affine; any associative operator through tally_scan_user)",
                       tally_op_name(op));
  if (!in) return tally__fail(ctx, TALLY_EINVAL, "in: NULL pointer");
  if (!out) return tally__fail(ctx, TALLY_EINVAL, "out: NULL pointer");
  tally__layout Lin, Lin2, Lout;
  if ((s = tally__array_layout(ctx, "in", in, &Lin))) return s;
  if (in->ndim != 1)
    return tally__fail(ctx, TALLY_EINVAL, "in->ndim: %d, but scans take 1-D input (strided "
                       "allowed)", in->ndim);
  int64_t n = Lin.shape[0];
  if (!in->data && n > 0)
    return tally__fail(ctx, TALLY_EINVAL, "in->data: NULL with %" PRId64 " elements", n);
  p->op = op;
  p->n = n;
  p->dtype = in->dtype;
  p->sx = Lin.strides[0];
  p->in_mem = in->mem;
  p->width = op == TALLY_AFFINE ? 2 : 1;
  if (op == TALLY_MIN || op == TALLY_MAX) {
    p->rdtype = in->dtype;
  } else {
    tally_dtype rd;
    if ((s = tally_result_dtype(op, in->dtype, &rd))) return tally__fail(ctx, s, "%s", tally_errmsg(NULL));
    p->rdtype = rd;
  }
  if ((s = check_common(ctx, opt, p))) return s;
  if (op == TALLY_AFFINE) {
    if (!in2)
      return tally__fail(ctx, TALLY_EINVAL, "in2: NULL pointer, but an affine scan takes the b's "
                         "in in2");
    if ((s = tally__array_layout(ctx, "in2", in2, &Lin2))) return s;
    if (in2->dtype != in->dtype)
      return tally__fail(ctx, TALLY_EINVAL, "in2->dtype: %s differs from in->dtype: %s",
                         tally_dtype_name(in2->dtype), tally_dtype_name(in->dtype));
    if (in2->ndim != 1)
      return tally__fail(ctx, TALLY_EINVAL, "in2->ndim: %d, but scans take 1-D input", in2->ndim);
    if (Lin2.shape[0] != n)
      return tally__fail(ctx, TALLY_EINVAL, "in2->shape[0]: %" PRId64 " differs from "
                         "in->shape[0]: %" PRId64, Lin2.shape[0], n);
    if (in2->mem != in->mem)
      return tally__fail(ctx, TALLY_EINVAL, "in2->mem: differs from in->mem");
    if (!in2->data && n > 0)
      return tally__fail(ctx, TALLY_EINVAL, "in2->data: NULL with %" PRId64 " elements", n);
    p->sy = Lin2.strides[0];
    if (p->nan == TALLY_NAN_IGNORE && tally__dtype_kind(in->dtype) == TALLY__KIND_FLOAT)
      return tally__fail(ctx, TALLY_EUNSUPPORTED, "opt->nan: ignore is not supported by affine "
                         "scans (a map with a NaN coefficient has no neutral stand-in)");
  } else if (in2) {
    return tally__fail(ctx, TALLY_EINVAL, "in2: must be NULL for a %s scan (only affine takes two "
                       "inputs)", tally_op_name(op));
  }

  if ((s = tally__array_layout(ctx, "out", out, &Lout))) return s;
  if (out->dtype != p->rdtype)
    return tally__fail(ctx, TALLY_EINVAL, "out->dtype: %s, but a %s scan of %s gives %s",
                       tally_dtype_name(out->dtype), tally_op_name(op), tally_dtype_name(in->dtype),
                       tally_dtype_name(p->rdtype));
  int W = p->width;
  bool shape_ok = out->ndim == 1 ? Lout.shape[0] == n * W
                                 : Lout.shape[0] == n && Lout.shape[1] == W;
  if (!shape_ok)
    return tally__fail(ctx, TALLY_EINVAL, "out->shape: %" PRId64 " x %" PRId64 ", but the scan of "
                       "%" PRId64 " elements gives %" PRId64 " value(s)%s", Lout.shape[0],
                       out->ndim == 2 ? Lout.shape[1] : (int64_t)1, n, n * W,
                       W == 2 ? " (1-D of 2n, or 2-D n x 2)" : " (1-D)");
  if (!out->data && n > 0)
    return tally__fail(ctx, TALLY_EINVAL, "out->data: NULL for %" PRId64 " values", n * W);
  if (out->ndim == 1) {
    p->so1 = Lout.strides[0];
    p->so0 = W * Lout.strides[0];
  } else {
    p->so0 = Lout.strides[0];
    p->so1 = Lout.strides[1];
  }
  p->out_mem = out->mem;
  if ((s = check_out_self(ctx, p))) return s;
  if ((s = check_alias(ctx, "in", in, &Lin, out, &Lout, p, 0))) return s;
  if (in2 && (s = check_alias(ctx, "in2", in2, &Lin2, out, &Lout, p, 1))) return s;
  if (n > 0 && !(ctx->backend->device_handles && out->mem == TALLY_MEM_DEVICE) &&
      (s = check_opt_alias(ctx, p, (intptr_t)out->data + Lout.lo, (intptr_t)out->data + Lout.hi)))
    return s;
  return TALLY_OK;
}

/* User scans: elements are opaque bytes; strides count elements. */
static tally_status validate_user(tally_context *ctx, const tally_user_op *uop, const void *data,
                                  int64_t n, int64_t stride, const void *out, int64_t out_stride,
                                  const tally_scan_options *opt, tally__scan_problem *p) {
  memset(p, 0, sizeof *p);
  if (!uop) return tally__fail(ctx, TALLY_EINVAL, "uop: NULL pointer");
  if (uop->size < 1 || uop->size > 256)
    return tally__fail(ctx, TALLY_EINVAL, "uop->size: %zu is outside 1..256", uop->size);
  if (!uop->identity) return tally__fail(ctx, TALLY_EINVAL, "uop->identity: NULL pointer");
  if (!uop->combine) return tally__fail(ctx, TALLY_EINVAL, "uop->combine: NULL pointer");
  if (n < 0) return tally__fail(ctx, TALLY_EINVAL, "n: %" PRId64 " is negative", n);
  if (!data && n > 0) return tally__fail(ctx, TALLY_EINVAL, "data: NULL with %" PRId64 " elements", n);
  if (!out && n > 0) return tally__fail(ctx, TALLY_EINVAL, "out: NULL with %" PRId64 " elements", n);
  if (stride == 0) stride = 1;
  if (out_stride == 0) out_stride = 1;
  int64_t es = (int64_t)uop->size;
  int64_t spans[2] = {0, 0};
  int64_t st[2] = {stride, out_stride};
  for (int i = 0; i < 2; i++)
    if (n > 0 && (__builtin_mul_overflow(n - 1, st[i], &spans[i]) ||
                  __builtin_mul_overflow(spans[i], es, &spans[i]) ||
                  spans[i] > INT64_MAX / 4 || spans[i] < -(INT64_MAX / 4)))
      return tally__fail(ctx, TALLY_EINVAL, "%s: %" PRId64 " times %" PRId64 " overflows a 64-bit "
                         "byte offset", i ? "out_stride" : "stride", n, st[i]);
  if (n > 0) {
    intptr_t lo[2], hi[2];
    const char *base[2] = {data, out};
    for (int i = 0; i < 2; i++) {
      lo[i] = (intptr_t)base[i] + (spans[i] < 0 ? (intptr_t)spans[i] : 0);
      hi[i] = (intptr_t)base[i] + (spans[i] > 0 ? (intptr_t)spans[i] : 0) + (intptr_t)es;
    }
    bool exact = data == out && stride == out_stride;
    if (lo[0] < hi[1] && lo[1] < hi[0] && !exact)
      return tally__fail(ctx, TALLY_EINVAL, "out: %p overlaps data (%p) without being exactly in "
                         "place (the same address and stride)", out, data);
  }
  p->uop = uop;
  p->n = n;
  p->sx = stride;
  p->so0 = out_stride;
  p->so1 = 1;
  p->width = 1;
  p->in_mem = p->out_mem = TALLY_MEM_HOST;
  tally_scan_options uo; /* user scans run on the host's threads: no ladder variant */
  if (opt) uo = *opt;
  else tally_scan_options_init(&uo);
  uo.variant = NULL;
  tally_status s = check_common(ctx, &uo, p);
  p->accuracy = TALLY_ACCURACY_DEFAULT;
  p->nan = TALLY_NAN_PROPAGATE;
  if (!s && n > 0) {
    int64_t span = (n - 1) * out_stride * es; /* checked above */
    intptr_t o0 = (intptr_t)out + (span < 0 ? (intptr_t)span : 0);
    intptr_t o1 = (intptr_t)out + (span > 0 ? (intptr_t)span : 0) + (intptr_t)es;
    s = check_opt_alias(ctx, p, o0, o1);
  }
  return s;
}

/* Run on the backend, or (entry NULL) host arrays on the core's CPU context. User scans
 * always run on CPU threads: their combine function is host code. */
static tally_status dispatch(tally_context *ctx, const tally__scan_problem *p, const void *in,
                             const void *in2, void *out) {
  if (ctx->backend == &tally__cpu_backend || (ctx->backend->scan && !p->uop))
    return ctx->backend->scan(ctx, p, in, in2, out);
  if (p->in_mem == TALLY_MEM_DEVICE || p->out_mem == TALLY_MEM_DEVICE)
    return tally__fail(ctx, TALLY_EUNSUPPORTED, "scans of device arrays are not yet implemented "
                       "on the %s backend (host arrays are scanned on the CPU)",
                       ctx->backend->name);
  if (!ctx->host_cpu) {
    tally_status s = tally__cpu_backend.open("", &ctx->host_cpu);
    if (s) return tally__fail(ctx, s, "host threads for the %s backend: %s", ctx->backend->name,
                              tally_errmsg(NULL));
  }
  tally_status s = tally__cpu_backend.scan(ctx->host_cpu, p, in, in2, out);
  if (s) tally__fail(ctx, s, "%s", ctx->host_cpu->errmsg);
  return s;
}

tally_status tally_scan(tally_context *ctx, tally_op op, const tally_array *in,
                        const tally_array *in2, tally_array *out, const tally_scan_options *opt) {
  if (!ctx) return tally__fail(NULL, TALLY_EINVAL, "ctx: NULL pointer");
  tally__scan_problem p;
  tally_status s = tally__validate_scan(ctx, op, in, in2, out, opt, &p);
  if (s) return s;
  if (p.n == 0) return TALLY_OK;
  return dispatch(ctx, &p, in->data, in2 ? in2->data : NULL, out->data);
}

tally_status tally_scan_user(tally_context *ctx, const tally_user_op *uop, const void *data,
                             int64_t n, int64_t stride, void *out, int64_t out_stride,
                             const tally_scan_options *opt) {
  if (!ctx) return tally__fail(NULL, TALLY_EINVAL, "ctx: NULL pointer");
  tally__scan_problem p;
  tally_status s = validate_user(ctx, uop, data, n, stride, out, out_stride, opt, &p);
  if (s) return s;
  if (n == 0) return TALLY_OK;
  return dispatch(ctx, &p, data, NULL, out);
}

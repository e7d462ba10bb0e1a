/* Histograms: argument checking (each failure names the argument and its value), the
 * automatic range (a MINMAX reduction on the context's backend), and dispatch. */
#include "internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_BINS ((int64_t)1 << 30)

void tally_hist_spec_init(tally_hist_spec *spec) {
  if (spec) memset(spec, 0, sizeof *spec);
}

static tally_status check_out(tally_context *ctx, const char *arg, const tally_array *a,
                              tally_dtype want, int64_t nbins, tally__layout *L) {
  tally_status s;
  if ((s = tally__array_layout(ctx, arg, a, L))) return s;
  if (a->dtype != want)
    return tally__fail(ctx, TALLY_EINVAL, "%s->dtype: %s, but must be %s", arg,
                       tally_dtype_name(a->dtype), tally_dtype_name(want));
  if (a->ndim != 1)
    return tally__fail(ctx, TALLY_EINVAL, "%s->ndim: %d, but must be 1", arg, a->ndim);
  if (L->shape[0] != nbins)
    return tally__fail(ctx, TALLY_EINVAL, "%s->shape[0]: %" PRId64 ", but there are %" PRId64
                       " bins", arg, L->shape[0], nbins);
  if (!a->data)
    return tally__fail(ctx, TALLY_EINVAL, "%s->data: NULL for %" PRId64 " bins", arg, nbins);
  return TALLY_OK;
}

tally_status tally__validate_hist(tally_context *ctx, const tally_array *in,
                                  const tally_array *weights, const tally_hist_spec *spec,
                                  const tally_array *counts, const tally_array *weight_sums,
                                  tally__hist_problem *p) {
  tally_status s;
  memset(p, 0, sizeof *p);
  if (!in) return tally__fail(ctx, TALLY_EINVAL, "in: NULL pointer");
  if (!spec) return tally__fail(ctx, TALLY_EINVAL, "spec: NULL pointer");
  if (!counts) return tally__fail(ctx, TALLY_EINVAL, "counts: NULL pointer");
  tally__layout Lin, Lw, Lc, Ls;
  if ((s = tally__array_layout(ctx, "in", in, &Lin))) return s;
  if (in->ndim != 1)
    return tally__fail(ctx, TALLY_EINVAL, "in->ndim: %d, but histograms take 1-D input (strided "
                       "allowed)", in->ndim);
  int64_t n = Lin.shape[0];
  if (!in->data && n > 0)
    return tally__fail(ctx, TALLY_EINVAL, "in->data: NULL with %" PRId64 " elements", n);
  p->n = n;
  p->dtype = in->dtype;
  p->sx = Lin.strides[0];
  p->in_mem = in->mem;

  int64_t nb = spec->nbins;
  if (nb < 1 || nb > MAX_BINS)
    return tally__fail(ctx, TALLY_EINVAL, "spec->nbins: %" PRId64 " is outside 1..2^30", nb);
  p->nbins = nb;
  if ((unsigned)spec->outside > TALLY_HIST_CLAMP)
    return tally__fail(ctx, TALLY_EINVAL, "spec->outside: unknown value %d", (int)spec->outside);
  if ((unsigned)spec->accuracy > TALLY_ACCURACY_FAST)
    return tally__fail(ctx, TALLY_EINVAL, "spec->accuracy: unknown value %d", (int)spec->accuracy);
  if (spec->auto_range != 0 && spec->auto_range != 1)
    return tally__fail(ctx, TALLY_EINVAL, "spec->auto_range: %d (must be 0 or 1)", spec->auto_range);
  p->outside = spec->outside;
  p->accuracy = spec->accuracy;
  if (spec->edges) {
    if (spec->auto_range)
      return tally__fail(ctx, TALLY_EINVAL, "spec->auto_range: 1 with spec->edges set (the edges "
                         "fix the range)");
    const double *e = spec->edges;
    for (int64_t k = 0; k <= nb; k++) {
      if (!isfinite(e[k]))
        return tally__fail(ctx, TALLY_EINVAL, "spec->edges[%" PRId64 "]: %g is not finite", k, e[k]);
      if (k > 0 && !(e[k] > e[k - 1]))
        return tally__fail(ctx, TALLY_EINVAL, "spec->edges[%" PRId64 "]: %.17g is not above "
                           "spec->edges[%" PRId64 "] = %.17g (edges must increase strictly)", k,
                           e[k], k - 1, e[k - 1]);
    }
    p->edges = e;
    p->lo = e[0];
    p->hi = e[nb];
  } else if (!spec->auto_range) {
    if (!isfinite(spec->lo))
      return tally__fail(ctx, TALLY_EINVAL, "spec->lo: %g is not finite", spec->lo);
    if (!isfinite(spec->hi))
      return tally__fail(ctx, TALLY_EINVAL, "spec->hi: %g is not finite", spec->hi);
    if (!(spec->lo < spec->hi))
      return tally__fail(ctx, TALLY_EINVAL, "spec->lo: %.17g is not below spec->hi: %.17g",
                         spec->lo, spec->hi);
    if (!isfinite(spec->hi - spec->lo))
      return tally__fail(ctx, TALLY_EINVAL, "spec->hi - spec->lo: %g - %g overflows", spec->hi,
                         spec->lo);
    p->lo = spec->lo;
    p->hi = spec->hi;
  }

  if (weights) {
    if ((s = tally__array_layout(ctx, "weights", weights, &Lw))) return s;
    if (weights->ndim != 1)
      return tally__fail(ctx, TALLY_EINVAL, "weights->ndim: %d, but must be 1", weights->ndim);
    if (Lw.shape[0] != n)
      return tally__fail(ctx, TALLY_EINVAL, "weights->shape[0]: %" PRId64 " differs from "
                         "in->shape[0]: %" PRId64, Lw.shape[0], n);
    if (weights->mem != in->mem)
      return tally__fail(ctx, TALLY_EINVAL, "weights->mem: differs from in->mem");
    if (!weights->data && n > 0)
      return tally__fail(ctx, TALLY_EINVAL, "weights->data: NULL with %" PRId64 " elements", n);
    p->has_weights = 1;
    p->wdtype = weights->dtype;
    p->sw = Lw.strides[0];
    if (!weight_sums)
      return tally__fail(ctx, TALLY_EINVAL, "weight_sums: NULL, but weights are given");
  } else if (weight_sums) {
    return tally__fail(ctx, TALLY_EINVAL, "weight_sums: set, but weights is NULL");
  }
  p->variant = TALLY__HIST_BEST;
  if (spec->variant && strcmp(spec->variant, "best") != 0) {
    if (strcmp(spec->variant, "hist_simple") != 0)
      return tally__fail(ctx, TALLY_EINVAL, "spec->variant: '%s' is no histogram variant (best, "
                         "hist_simple)", spec->variant);
    if (ctx->backend == &tally__cpu_backend || !ctx->backend->histogram)
      return tally__fail(ctx, TALLY_EUNSUPPORTED, "spec->variant: 'hist_simple' is a GPU ladder "
                         "rung; the %s backend counts with 'best' only", ctx->backend->name);
    if (weights)
      return tally__fail(ctx, TALLY_EUNSUPPORTED, "spec->variant: 'hist_simple' counts only; "
                         "weights need 'best'");
    p->variant = TALLY__HIST_SIMPLE;
  }
  if ((s = check_out(ctx, "counts", counts, TALLY_U64, nb, &Lc))) return s;
  p->cs = Lc.strides[0];
  p->out_mem = counts->mem;
  if (weight_sums) {
    if ((s = check_out(ctx, "weight_sums", weight_sums, TALLY_F64, nb, &Ls))) return s;
    if (weight_sums->mem != counts->mem)
      return tally__fail(ctx, TALLY_EINVAL, "weight_sums->mem: differs from counts->mem");
    p->ws = Ls.strides[0];
    p->want_sums = 1;
  }
  /* Outputs overlap neither the inputs nor each other. */
  bool h = ctx->backend->device_handles;
  if (tally__overlaps(counts, &Lc, in, &Lin, h))
    return tally__fail(ctx, TALLY_EINVAL, "counts: its memory overlaps in (%p)", in->data);
  if (weights && tally__overlaps(counts, &Lc, weights, &Lw, h))
    return tally__fail(ctx, TALLY_EINVAL, "counts: its memory overlaps weights (%p)", weights->data);
  if (weight_sums) {
    if (tally__overlaps(weight_sums, &Ls, in, &Lin, h))
      return tally__fail(ctx, TALLY_EINVAL, "weight_sums: its memory overlaps in (%p)", in->data);
    if (tally__overlaps(weight_sums, &Ls, weights, &Lw, h))
      return tally__fail(ctx, TALLY_EINVAL, "weight_sums: its memory overlaps weights (%p)",
                         weights->data);
    if (tally__overlaps(weight_sums, &Ls, counts, &Lc, h))
      return tally__fail(ctx, TALLY_EINVAL, "weight_sums: its memory overlaps counts (%p)",
                         counts->data);
  }
  /* The edges are read while the outputs are written (host memory, like spec). */
  if (spec->edges) {
    tally_array e = tally_array_1d((void *)spec->edges, TALLY_F64, nb + 1);
    tally__layout Le;
    if ((s = tally__array_layout(ctx, "spec->edges", &e, &Le))) return s;
    if (tally__overlaps(&e, &Le, counts, &Lc, h))
      return tally__fail(ctx, TALLY_EINVAL, "spec->edges: %p overlaps counts (%p)",
                         (const void *)spec->edges, counts->data);
    if (weight_sums && tally__overlaps(&e, &Le, weight_sums, &Ls, h))
      return tally__fail(ctx, TALLY_EINVAL, "spec->edges: %p overlaps weight_sums (%p)",
                         (const void *)spec->edges, weight_sums->data);
  }
  return TALLY_OK;
}

static double to_double(tally_dtype t, const void *v) {
  switch (t) {
  case TALLY_BOOL: return *(const uint8_t *)v != 0;
  case TALLY_I8: return *(const int8_t *)v;
  case TALLY_I16: return *(const int16_t *)v;
  case TALLY_I32: return *(const int32_t *)v;
  case TALLY_I64: return (double)*(const int64_t *)v;
  case TALLY_U8: return *(const uint8_t *)v;
  case TALLY_U16: return *(const uint16_t *)v;
  case TALLY_U32: return *(const uint32_t *)v;
  case TALLY_U64: return (double)*(const uint64_t *)v;
  case TALLY_F16: return tally_f16_to_f32(*(const uint16_t *)v);
  case TALLY_BF16: return tally_bf16_to_f32(*(const uint16_t *)v);
  case TALLY_F32: return *(const float *)v;
  default: return *(const double *)v;
  }
}

/* The automatic range: MINMAX with NaNs skipped, on the context's own backend (device
 * arrays stay where they are). Empty or all-NaN input: [0, 1]; min = max: ±0.5 (numpy),
 * or one ulp either way where ±0.5 rounds back to the value (|v| >= 2^52), so that lo <
 * hi always (at ±DBL_MAX the bound that would overflow stays the value). */
static tally_status auto_range(tally_context *ctx, const tally_array *in, tally__hist_problem *p) {
  double lo = 0, hi = 1;
  if (p->n > 0) {
    _Alignas(16) unsigned char mm[16];
    tally_array out = tally_array_1d(mm, in->dtype, 2);
    tally_options o;
    tally_options_init(&o);
    o.nan = TALLY_NAN_IGNORE;
    tally_status s = tally_reduce(ctx, TALLY_MINMAX, in, NULL, &out, &o);
    if (s) { /* the message is in ctx's own slot: copied before formatting into it */
      char why[TALLY_ERRMSG_MAX];
      snprintf(why, sizeof why, "%s", tally_errmsg(ctx));
      return tally__fail(ctx, s, "spec->auto_range: the MINMAX pass failed: %s", why);
    }
    size_t es = tally_dtype_size(in->dtype);
    double a = to_double(in->dtype, mm), b = to_double(in->dtype, mm + es);
    if (!isnan(a)) {
      if (!isfinite(a) || !isfinite(b))
        return tally__fail(ctx, TALLY_EINVAL, "spec->auto_range: the input's range [%g, %g] is "
                           "not finite; give lo and hi, or edges", a, b);
      lo = a;
      hi = b;
      if (lo == hi) {
        lo = a - 0.5 < a ? a - 0.5 : nextafter(a, -INFINITY);
        hi = b + 0.5 > b ? b + 0.5 : nextafter(b, INFINITY);
        if (isinf(lo)) lo = a;
        if (isinf(hi)) hi = b;
      }
      if (!isfinite(hi - lo))
        return tally__fail(ctx, TALLY_EINVAL, "spec->auto_range: the input's range [%g, %g] is "
                           "wider than a double holds; give edges", lo, hi);
    }
  }
  p->lo = lo;
  p->hi = hi;
  return TALLY_OK;
}

tally_status tally_histogram(tally_context *ctx, const tally_array *in, const tally_array *weights,
                             const tally_hist_spec *spec, tally_array *counts,
                             tally_array *weight_sums, tally_hist_stats *stats) {
  if (!ctx) return tally__fail(NULL, TALLY_EINVAL, "ctx: NULL pointer");
  tally__hist_problem p;
  tally_status s = tally__validate_hist(ctx, in, weights, spec, counts, weight_sums, &p);
  if (s) return s;
  if (spec->auto_range && (s = auto_range(ctx, in, &p))) return s;
  tally_hist_stats st;
  memset(&st, 0, sizeof st);
  const void *w = weights ? weights->data : NULL;
  void *ws = weight_sums ? weight_sums->data : NULL;
  if (ctx->backend->histogram) {
    s = ctx->backend->histogram(ctx, &p, in->data, w, counts->data, ws, &st);
  } else if (p.in_mem == TALLY_MEM_DEVICE || p.out_mem == TALLY_MEM_DEVICE) {
    return tally__fail(ctx, TALLY_EUNSUPPORTED, "histograms of device arrays are not yet "
                       "implemented on the %s backend (host arrays are counted on the CPU)",
                       ctx->backend->name);
  } else {
    if (!ctx->host_cpu && (s = tally__cpu_backend.open("", &ctx->host_cpu)))
      return tally__fail(ctx, s, "host threads for the %s backend: %s", ctx->backend->name,
                         tally_errmsg(NULL));
    s = tally__cpu_backend.histogram(ctx->host_cpu, &p, in->data, w, counts->data, ws, &st);
    if (s) tally__fail(ctx, s, "%s", ctx->host_cpu->errmsg);
  }
  if (s) return s;
  st.lo = p.lo;
  st.hi = p.hi;
  if (stats) *stats = st;
  return TALLY_OK;
}

/* Argument checking shared by every backend: each failure names the argument and value. */
#include "internal.h"

#include <inttypes.h>
#include <string.h>

typedef tally__layout layout;

/* Effective strides and byte range of an array; fails on overflow or bad shapes. */
tally_status tally__array_layout(tally_context *ctx, const char *arg, const tally_array *a,
                                 layout *L) {
  if (!tally__dtype_valid(a->dtype))
    return tally__fail(ctx, TALLY_EINVAL, "%s->dtype: unknown value %d", arg, (int)a->dtype);
  if (a->ndim != 1 && a->ndim != 2)
    return tally__fail(ctx, TALLY_EINVAL, "%s->ndim: %d (must be 1 or 2)", arg, a->ndim);
  if (a->mem != TALLY_MEM_HOST && a->mem != TALLY_MEM_DEVICE)
    return tally__fail(ctx, TALLY_EINVAL, "%s->mem: unknown value %d", arg, (int)a->mem);
  int64_t esize = (int64_t)tally_dtype_size(a->dtype);
  memset(L, 0, sizeof *L);
  for (int d = 0; d < a->ndim; d++) {
    if (a->shape[d] < 0)
      return tally__fail(ctx, TALLY_EINVAL, "%s->shape[%d]: %" PRId64 " is negative", arg, d,
                         a->shape[d]);
    L->shape[d] = a->shape[d];
  }
  if (a->ndim == 1) {
    L->shape[1] = 1;
    L->strides[0] = a->strides[0] == 0 ? 1 : a->strides[0];
    L->strides[1] = 1;
  } else if (a->strides[0] == 0 && a->strides[1] == 0) {
    L->strides[0] = a->shape[1];
    L->strides[1] = 1;
  } else {
    L->strides[0] = a->strides[0];
    L->strides[1] = a->strides[1];
  }
  int64_t count;
  if (__builtin_mul_overflow(L->shape[0], L->shape[1], &count) ||
      __builtin_mul_overflow(count, esize, &count))
    return tally__fail(ctx, TALLY_EINVAL, "%s->shape: %" PRId64 " x %" PRId64
                       " elements of %s overflow a 64-bit byte count", arg, L->shape[0],
                       L->shape[1], tally_dtype_name(a->dtype));
  if (count == 0) return TALLY_OK;
  int64_t lo = 0, hi = esize;
  for (int d = 0; d < 2; d++) {
    int64_t span;
    if (__builtin_mul_overflow(L->shape[d] - 1, L->strides[d], &span) ||
        __builtin_mul_overflow(span, esize, &span) ||
        (span > 0 ? __builtin_add_overflow(hi, span, &hi) : __builtin_add_overflow(lo, span, &lo)))
      return tally__fail(ctx, TALLY_EINVAL,
                         "%s: shape[%d] = %" PRId64 " times strides[%d] = %" PRId64
                         " overflows a 64-bit byte offset", arg, d, L->shape[d], d,
                         L->strides[d]);
  }
  if (lo < -(INT64_MAX / 2) || hi > INT64_MAX / 2)
    return tally__fail(ctx, TALLY_EINVAL, "%s: the array spans more than 2^62 bytes", arg);
  L->lo = lo;
  L->hi = hi;
  if (!a->data)
    return TALLY_OK; /* the caller decides whether NULL data is allowed */
  if (((uintptr_t)a->data % (uintptr_t)esize) != 0)
    return tally__fail(ctx, TALLY_EINVAL, "%s->data: %p is not aligned to the %d-byte size of %s",
                       arg, a->data, (int)esize, tally_dtype_name(a->dtype));
  return TALLY_OK;
}

static int64_t elements(const layout *L) { return L->shape[0] * L->shape[1]; }

/* handles: device pointers are opaque handles (OpenCL cl_mem): two arrays share memory
 * only when they name the same buffer, and then their spans count from its start. */
bool tally__overlaps(const tally_array *a, const layout *La, const tally_array *b,
                     const layout *Lb, bool handles) {
  if (!a->data || !b->data || La->lo == La->hi || Lb->lo == Lb->hi) return false;
  if (a->mem != b->mem) return false;
  if (handles && a->mem == TALLY_MEM_DEVICE && a->data != b->data) return false;
  intptr_t a0 = (intptr_t)a->data + La->lo, a1 = (intptr_t)a->data + La->hi;
  intptr_t b0 = (intptr_t)b->data + Lb->lo, b1 = (intptr_t)b->data + Lb->hi;
  return a0 < b1 && b0 < a1;
}

tally_status tally__validate(tally_context *ctx, tally_op op, const tally_array *in,
                             const tally_array *in2, const tally_array *out,
                             const tally_options *opt, const int64_t *offsets,
                             int64_t nsegments, bool check_data, tally__problem *p) {
  tally_status s;
  memset(p, 0, sizeof *p);
  if (!tally__op_valid(op)) return tally__fail(ctx, TALLY_EINVAL, "op: unknown value %d", (int)op);
  if (!in) return tally__fail(ctx, TALLY_EINVAL, "in: NULL pointer");
  if (!out) return tally__fail(ctx, TALLY_EINVAL, "out: NULL pointer");
  if (opt) p->opt = *opt; else tally_options_init(&p->opt);
  if ((unsigned)p->opt.accuracy > TALLY_ACCURACY_FAST)
    return tally__fail(ctx, TALLY_EINVAL, "opt->accuracy: unknown value %d", (int)p->opt.accuracy);
  if ((unsigned)p->opt.nan > TALLY_NAN_IGNORE)
    return tally__fail(ctx, TALLY_EINVAL, "opt->nan: unknown value %d", (int)p->opt.nan);
  if ((unsigned)p->opt.host_input > TALLY_HOST_INPUT_DEVICE)
    return tally__fail(ctx, TALLY_EINVAL, "opt->host_input: unknown value %d", (int)p->opt.host_input);
  if (p->opt.ddof < 0)
    return tally__fail(ctx, TALLY_EINVAL, "opt->ddof: %d is negative", p->opt.ddof);

  layout Lin, Lin2, Lout;
  if ((s = tally__array_layout(ctx, "in", in, &Lin))) return s;
  int64_t n_in = elements(&Lin);
  if (check_data && !in->data && n_in > 0)
    return tally__fail(ctx, TALLY_EINVAL, "in->data: NULL with %" PRId64 " elements", n_in);

  p->op = op;
  p->dtype = in->dtype;
  p->in_mem = in->mem;
  p->out_mem = out ? out->mem : TALLY_MEM_HOST;
  tally_dtype rd;
  s = tally_result_dtype(op, in->dtype, &rd);
  if (s) return tally__fail(ctx, s, "%s", tally_errmsg(NULL));
  p->rdtype = rd;
  p->width = tally_result_width(op);

  if (tally__op_binary(op)) {
    if (!in2)
      return tally__fail(ctx, TALLY_EINVAL, "in2: NULL pointer, but op %s takes two inputs",
                         tally_op_name(op));
    if ((s = tally__array_layout(ctx, "in2", in2, &Lin2))) return s;
    if (in2->dtype != in->dtype)
      return tally__fail(ctx, TALLY_EINVAL, "in2->dtype: %s differs from in->dtype: %s",
                         tally_dtype_name(in2->dtype), tally_dtype_name(in->dtype));
    if (in2->ndim != in->ndim)
      return tally__fail(ctx, TALLY_EINVAL, "in2->ndim: %d differs from in->ndim: %d",
                         in2->ndim, in->ndim);
    for (int d = 0; d < in->ndim; d++)
      if (Lin2.shape[d] != Lin.shape[d])
        return tally__fail(ctx, TALLY_EINVAL,
                           "in2->shape[%d]: %" PRId64 " differs from in->shape[%d]: %" PRId64
                           " (%s needs inputs of the same length)", d, Lin2.shape[d], d,
                           Lin.shape[d], tally_op_name(op));
    if (in2->mem != in->mem)
      return tally__fail(ctx, TALLY_EINVAL, "in2->mem: differs from in->mem");
    if (check_data && !in2->data && n_in > 0)
      return tally__fail(ctx, TALLY_EINVAL, "in2->data: NULL with %" PRId64 " elements", n_in);
  } else if (in2) {
    return tally__fail(ctx, TALLY_EINVAL, "in2: must be NULL for op %s (only dot and affine take two inputs)",
                       tally_op_name(op));
  } else {
    Lin2 = Lin;
  }

  /* Slices. */
  int axis = p->opt.axis;
  if (offsets || nsegments) {
    if (in->ndim != 1)
      return tally__fail(ctx, TALLY_EINVAL, "in->ndim: %d, but segmented reductions take 1-D input",
                         in->ndim);
    if (axis != -1)
      return tally__fail(ctx, TALLY_EINVAL, "opt->axis: %d, but segmented reductions need -1", axis);
    if (nsegments < 0)
      return tally__fail(ctx, TALLY_EINVAL, "nsegments: %" PRId64 " is negative", nsegments);
    if (!offsets)
      return tally__fail(ctx, TALLY_EINVAL, "offsets: NULL with %" PRId64 " segments", nsegments);
    if (offsets[0] < 0 || offsets[0] > n_in)
      return tally__fail(ctx, TALLY_EINVAL, "offsets[0]: %" PRId64 " is outside [0, %" PRId64 "]",
                         offsets[0], n_in);
    for (int64_t k = 0; k < nsegments; k++) {
      if (offsets[k + 1] < offsets[k] || offsets[k + 1] > n_in)
        return tally__fail(ctx, TALLY_EINVAL,
                           "offsets[%" PRId64 "]: %" PRId64 " is %s (offsets[%" PRId64
                           "] = %" PRId64 ", n = %" PRId64 ")", k + 1, offsets[k + 1],
                           offsets[k + 1] < offsets[k] ? "below the one before it" : "past the end",
                           k, offsets[k], n_in);
      if (offsets[k + 1] == offsets[k] && tally__op_needs_nonempty(op))
        return tally__fail(ctx, TALLY_EEMPTY, "segment %" PRId64 " (offsets %" PRId64
                           ") is empty, and op %s has no value for an empty input",
                           k, offsets[k], tally_op_name(op));
    }
    p->offsets = offsets;
    p->nslices = nsegments;
    p->rows = 1;
    p->cols = p->n = -1; /* varies */
    for (int i = 0; i < 2; i++) {
      const layout *L = i ? &Lin2 : &Lin;
      p->slice_stride[i] = 0;
      p->rstride[i] = 0;
      p->cstride[i] = L->strides[0];
    }
  } else {
    if (axis < -1 || axis >= in->ndim)
      return tally__fail(ctx, TALLY_EINVAL, "opt->axis: %d is out of range for a %d-D input "
                         "(use -1 for all elements%s)", axis, in->ndim,
                         in->ndim == 2 ? ", 0 or 1" : " or 0");
    if (in->ndim == 1) axis = -1;
    int64_t R = Lin.shape[0], C = Lin.shape[1];
    const layout *Ls[2] = {&Lin, &Lin2};
    if (axis == -1) {
      /* A 2-D input whose rows follow each other at a fixed step is one strided run. */
      bool flat = true;
      for (int i = 0; i < 2; i++)
        if (in->ndim == 2 && R > 1 && Ls[i]->strides[0] != C * Ls[i]->strides[1]) flat = false;
      p->nslices = 1;
      p->rows = flat ? 1 : R;
      p->cols = flat ? R * C : C;
      for (int i = 0; i < 2; i++) {
        p->slice_stride[i] = 0;
        p->rstride[i] = flat ? 0 : Ls[i]->strides[0];
        p->cstride[i] = in->ndim == 1 ? Ls[i]->strides[0] : Ls[i]->strides[1];
      }
    } else {
      /* axis 0: one result per column, each column a strided run; axis 1: per row. */
      p->nslices = axis == 0 ? C : R;
      p->rows = 1;
      p->cols = axis == 0 ? R : C;
      for (int i = 0; i < 2; i++) {
        p->slice_stride[i] = axis == 0 ? Ls[i]->strides[1] : Ls[i]->strides[0];
        p->rstride[i] = 0;
        p->cstride[i] = axis == 0 ? Ls[i]->strides[0] : Ls[i]->strides[1];
      }
    }
    p->n = p->rows * p->cols;
    if (p->n == 0 && p->nslices > 0 && tally__op_needs_nonempty(op))
      return tally__fail(ctx, TALLY_EEMPTY, "in: %s of an empty %s (%" PRId64 " elements)",
                         tally_op_name(op), axis == -1 ? "array" : "slice", p->n);
  }

  /* Output. */
  if ((s = tally__array_layout(ctx, "out", out, &Lout))) return s;
  if (out->dtype != p->rdtype)
    return tally__fail(ctx, TALLY_EINVAL, "out->dtype: %s, but %s of %s gives %s",
                       tally_dtype_name(out->dtype), tally_op_name(op), tally_dtype_name(in->dtype),
                       tally_dtype_name(p->rdtype));
  int64_t want = p->nslices * p->width;
  if (out->ndim == 1 ? Lout.shape[0] != want
                     : (Lout.shape[0] != p->nslices || Lout.shape[1] != p->width))
    return tally__fail(ctx, TALLY_EINVAL,
                       "out->shape: %" PRId64 " x %" PRId64 ", but the result has %" PRId64
                       " slice(s) of %d value(s) (1-D of %" PRId64 ", or 2-D %" PRId64 " x %d)",
                       Lout.shape[0], out->ndim == 2 ? Lout.shape[1] : (int64_t)1, p->nslices,
                       p->width, want, p->nslices, p->width);
  if (check_data && !out->data && want > 0)
    return tally__fail(ctx, TALLY_EINVAL, "out->data: NULL for %" PRId64 " result values", want);
  if (check_data) {
    bool handles = ctx && ctx->backend->device_handles;
    if (tally__overlaps(out, &Lout, in, &Lin, handles))
      return tally__fail(ctx, TALLY_EINVAL, "out: its memory overlaps in (%p)", in->data);
    if (in2 && tally__overlaps(out, &Lout, in2, &Lin2, handles))
      return tally__fail(ctx, TALLY_EINVAL, "out: its memory overlaps in2 (%p)", in2->data);
  }
  return TALLY_OK;
}

void tally__out_strides(const tally__problem *p, const tally_array *out, int64_t *s0,
                        int64_t *s1) {
  if (out->ndim == 1) {
    int64_t s = out->strides[0] == 0 ? 1 : out->strides[0];
    *s0 = s * p->width;
    *s1 = s;
  } else if (out->strides[0] == 0 && out->strides[1] == 0) {
    *s0 = p->width;
    *s1 = 1;
  } else {
    *s0 = out->strides[0];
    *s1 = out->strides[1];
  }
}

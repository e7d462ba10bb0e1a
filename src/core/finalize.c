/* The result rules shared by every backend: how a slice's accumulated part becomes
 * the values SEMANTICS.md promises (division for MEAN, ddof for VAR, NaN and empty rules,
 * sort keys back to values). A backend accumulates parts its own way and finalizes here,
 * so every backend returns the same values from the same part. */
#include "finalize.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* hi + lo of a compensated pair; lo is meaningless once hi overflowed or is NaN. */
double tally__pair_value(const tally__part *a) { return isfinite(a->hi) ? a->hi + a->lo : a->hi; }

int tally__norm2_needs_rescue(double ss) { return !(isnan(ss) || (isfinite(ss) && ss >= 0x1p-968)); }

static double key64_value(int64_t key) {
  int64_t b = key ^ ((key >> 63) & INT64_MAX);
  double v;
  memcpy(&v, &b, 8);
  return v;
}

int tally__norm2_scale(const tally__part *mm, int ignore_nan, double *answer, int *e) {
  if (mm->nan && !ignore_nan) { *answer = NAN; return 0; }
  if (mm->k0 == INT64_MAX) { *answer = 0.0; return 0; } /* all NaN, ignored */
  double lo = fabs(key64_value(mm->k0)), hi = fabs(key64_value(mm->k1));
  double maxabs = lo > hi ? lo : hi;
  if (maxabs == 0.0 || isinf(maxabs)) { *answer = maxabs; return 0; }
  frexp(maxabs, e);
  if (*e < -1020) *e = -1020; /* 2^-e must itself be finite; subnormals need not reach 1 */
  return 1;
}

/* Not sqrt(s)·2^e: 2^e alone overflows for e = 1024. */
double tally__norm2_unscale(double scaled_ss, int e) { return ldexp(sqrt(scaled_ss), e); }


static void *at_ptr(tally_dtype rd, void *out, int64_t at) {
  return (char *)out + at * (int64_t)tally_dtype_size(rd);
}

void tally__store_f64(tally_dtype rd, void *out, int64_t at, double v) {
  if (rd == TALLY_F32) { float f = (float)v; memcpy(at_ptr(rd, out, at), &f, 4); }
  else memcpy(at_ptr(rd, out, at), &v, 8);
}

void tally__store_i64(tally_dtype rd, void *out, int64_t at, int64_t v) {
  void *d = at_ptr(rd, out, at);
  switch (tally_dtype_size(rd)) {
  case 1: { uint8_t b = rd == TALLY_BOOL ? (uint8_t)(v != 0) : (uint8_t)v; memcpy(d, &b, 1); break; }
  case 2: { uint16_t b = (uint16_t)v; memcpy(d, &b, 2); break; }
  case 4: { uint32_t b = (uint32_t)v; memcpy(d, &b, 4); break; }
  default: memcpy(d, &v, 8); break;
  }
}

void tally__store_nan(tally_dtype rd, void *out, int64_t at) {
  switch (rd) {
  case TALLY_F16: tally__store_i64(TALLY_U16, out, at, 0x7e00); break;
  case TALLY_BF16: tally__store_i64(TALLY_U16, out, at, 0x7fc0); break;
  default: tally__store_f64(rd, out, at, NAN); break;
  }
}

void tally__store_key(tally_dtype dt, void *out, int64_t at, int64_t key) {
  switch (dt) {
  case TALLY_F64: {
    int64_t b = key ^ ((key >> 63) & INT64_MAX);
    memcpy(at_ptr(dt, out, at), &b, 8);
    break;
  }
  case TALLY_F32: case TALLY_F16: case TALLY_BF16: {
    int32_t k = (int32_t)key, b = k ^ ((k >> 31) & 0x7fffffff);
    float f;
    memcpy(&f, &b, 4);
    if (dt == TALLY_F32) memcpy(at_ptr(dt, out, at), &f, 4);
    else tally__store_i64(TALLY_U16, out, at, dt == TALLY_F16 ? tally_f32_to_f16(f) : tally_f32_to_bf16(f));
    break;
  }
  case TALLY_U32: tally__store_i64(dt, out, at, (int64_t)(uint32_t)((int32_t)key ^ INT32_MIN)); break;
  case TALLY_U64: tally__store_i64(dt, out, at, key ^ INT64_MIN); break;
  default: tally__store_i64(dt, out, at, key); break;
  }
}


/* Write slice k's result. Fails (without writing) for ARG* over all-NaN with NaN ignored
 * and for VAR/STD with n <= ddof. */
tally_status tally__finalize(tally_context *ctx, const tally__problem *p, int64_t k,
                             int64_t n, const tally__part *a, void *out, int64_t at, int64_t s1,
                             tally__norm2_fn norm2_f64, void *env) {
  const tally_dtype rd = p->rdtype, dt = p->dtype;
  const bool is_float = tally__dtype_kind(dt) == TALLY__KIND_FLOAT;
  const bool ign = p->opt.nan == TALLY_NAN_IGNORE;
  switch (p->op) {
  case TALLY_SUM: case TALLY_DOT: case TALLY_SUMSQ:
    if (is_float) tally__store_f64(rd, out, at, tally__pair_value(a));
    else tally__store_i64(rd, out, at, (int64_t)(uint64_t)a->wide);
    return TALLY_OK;
  case TALLY_NORM2: {
    double ss = tally__pair_value(a);
    tally__store_f64(rd, out, at, dt == TALLY_F64 ? norm2_f64(env, ss) : sqrt(ss));
    return TALLY_OK;
  }
  case TALLY_MEAN: {
    int64_t cnt = is_float && ign ? a->n : n;
    double v;
    if (cnt == 0) v = NAN;
    else if (is_float) v = tally__pair_value(a) / (double)cnt;
    else if (tally__dtype_kind(dt) == TALLY__KIND_UINT) v = (double)a->wide / (double)cnt;
    else v = (double)(__int128)a->wide / (double)cnt;
    tally__store_f64(rd, out, at, v);
    return TALLY_OK;
  }
  case TALLY_PROD:
    if (is_float) tally__store_f64(rd, out, at, a->hi);
    else tally__store_i64(rd, out, at, a->k0);
    return TALLY_OK;
  case TALLY_MIN: case TALLY_MAX: case TALLY_MINMAX: {
    bool none = ign && is_float && (p->op == TALLY_MAX ? a->k1 == INT64_MIN : a->k0 == INT64_MAX);
    bool nan = (a->nan && !ign) || none;
    if (p->op != TALLY_MAX) {
      if (nan) tally__store_nan(rd, out, at); else tally__store_key(dt, out, at, a->k0);
    }
    if (p->op != TALLY_MIN) {
      int64_t at2 = p->op == TALLY_MINMAX ? at + s1 : at;
      if (nan) tally__store_nan(rd, out, at2); else tally__store_key(dt, out, at2, a->k1);
    }
    return TALLY_OK;
  }
  case TALLY_ARGMIN: case TALLY_ARGMAX:
    if (a->idx < 0)
      return tally__fail(ctx, TALLY_EEMPTY, "in: %s of slice %" PRId64 ": all %" PRId64
                         " values are NaN and NaNs are ignored", tally_op_name(p->op), k, n);
    tally__store_i64(rd, out, at, a->idx);
    return TALLY_OK;
  case TALLY_VAR: case TALLY_STD: {
    if (ign && a->n == 0) { tally__store_f64(rd, out, at, NAN); return TALLY_OK; }
    if (a->n <= p->opt.ddof)
      return tally__fail(ctx, TALLY_EINVAL, "opt->ddof: %d, but slice %" PRId64 " has only %" PRId64
                         " value(s)%s (need more than ddof)", p->opt.ddof, k, a->n,
                         ign ? " that are not NaN" : "");
    double m2 = a->lo < 0 ? 0.0 : a->lo; /* rounding can leave a tiny negative */
    double var = m2 / (double)(a->n - p->opt.ddof);
    tally__store_f64(rd, out, at, p->op == TALLY_STD ? sqrt(var) : var);
    return TALLY_OK;
  }
  case TALLY_ANY: tally__store_i64(rd, out, at, a->n > 0); return TALLY_OK;
  case TALLY_ALL: tally__store_i64(rd, out, at, a->n == n); return TALLY_OK;
  case TALLY_COUNT_NONZERO: tally__store_i64(rd, out, at, a->n); return TALLY_OK;
  case TALLY_BITAND: case TALLY_BITOR: case TALLY_BITXOR:
    if (dt == TALLY_BOOL) {
      int64_t v = p->op == TALLY_BITAND ? a->n == n : p->op == TALLY_BITOR ? a->n > 0 : a->n & 1;
      tally__store_i64(rd, out, at, v);
    } else {
      tally__store_i64(rd, out, at, a->k0);
    }
    return TALLY_OK;
  case TALLY_AFFINE:
    if (is_float) {
      tally__store_f64(rd, out, at, a->hi);
      tally__store_f64(rd, out, at + s1, a->lo);
    } else {
      tally__store_i64(rd, out, at, a->k0);
      tally__store_i64(rd, out, at + s1, a->k1);
    }
    return TALLY_OK;
  default:
    return tally__fail(ctx, TALLY_EINTERNAL, "op %d has no finalize rule", (int)p->op);
  }
}


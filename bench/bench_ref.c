/* Reference results and relative errors for `tally bench`; see bench_ref.h. */
#include "bench_ref.h"

#include "exactsum.h"

#include <float.h>
#include <math.h>
#include <string.h>

static int is_float(tally_dtype t) {
  return t == TALLY_F16 || t == TALLY_BF16 || t == TALLY_F32 || t == TALLY_F64;
}
static int is_signed(tally_dtype t) { return t >= TALLY_I8 && t <= TALLY_I64; }

/* Element i as a double (exact for every float dtype and for integers below 2^53). */
static double getf(const void *p, tally_dtype t, int64_t i) {
  switch (t) {
  case TALLY_BOOL: return ((const uint8_t *)p)[i] != 0;
  case TALLY_I8: return ((const int8_t *)p)[i];
  case TALLY_I16: return ((const int16_t *)p)[i];
  case TALLY_I32: return ((const int32_t *)p)[i];
  case TALLY_I64: return (double)((const int64_t *)p)[i];
  case TALLY_U8: return ((const uint8_t *)p)[i];
  case TALLY_U16: return ((const uint16_t *)p)[i];
  case TALLY_U32: return ((const uint32_t *)p)[i];
  case TALLY_U64: return (double)((const uint64_t *)p)[i];
  case TALLY_F16: return tally_f16_to_f32(((const uint16_t *)p)[i]);
  case TALLY_BF16: return tally_bf16_to_f32(((const uint16_t *)p)[i]);
  case TALLY_F32: return ((const float *)p)[i];
  case TALLY_F64: return ((const double *)p)[i];
  default: return 0;
  }
}

/* Integer element i, sign-extended to 64 bits (bool: 0 or 1). */
static uint64_t geti(const void *p, tally_dtype t, int64_t i) {
  switch (t) {
  case TALLY_BOOL: return ((const uint8_t *)p)[i] != 0;
  case TALLY_I8: return (uint64_t)(int64_t)((const int8_t *)p)[i];
  case TALLY_I16: return (uint64_t)(int64_t)((const int16_t *)p)[i];
  case TALLY_I32: return (uint64_t)(int64_t)((const int32_t *)p)[i];
  case TALLY_I64: return (uint64_t)((const int64_t *)p)[i];
  case TALLY_U8: return ((const uint8_t *)p)[i];
  case TALLY_U16: return ((const uint16_t *)p)[i];
  case TALLY_U32: return ((const uint32_t *)p)[i];
  case TALLY_U64: return ((const uint64_t *)p)[i];
  default: return 0;
  }
}

/* a < b in the dtype's order (integers compared signed or unsigned). */
static int less(tally_dtype t, const void *p, int64_t i, int64_t j) {
  if (is_float(t)) return getf(p, t, i) < getf(p, t, j);
  if (is_signed(t)) return (int64_t)geti(p, t, i) < (int64_t)geti(p, t, j);
  return geti(p, t, i) < geti(p, t, j);
}

static void set_value(bench_ref *r, int width, long double a, long double b) {
  r->kind = REF_VALUE;
  r->width = width;
  r->val[0] = a;
  r->val[1] = b;
}
static void set_bits(bench_ref *r, bench_ref_kind kind, int width, uint64_t a, uint64_t b) {
  r->kind = kind;
  r->width = width;
  r->bits[0] = a;
  r->bits[1] = b;
}

/* Exact Σ x·y (y NULL: Σ x), rounded once to double. */
static double exact_sum(tally_dtype t, const void *x, const void *y, int64_t n) {
  exactsum es;
  exactsum_init(&es);
  for (int64_t i = 0; i < n; i++) {
    if (y) exactsum_add_product(&es, getf(x, t, i), getf(y, t, i));
    else exactsum_add(&es, getf(x, t, i));
  }
  return exactsum_round(&es);
}

int bench_ref_compute(tally_op op, tally_dtype t, const void *x, const void *y, int64_t n,
                      bench_ref *r) {
  memset(r, 0, sizeof *r);
  int fl = is_float(t);
  switch (op) {
  case TALLY_SUM:
  case TALLY_DOT:
  case TALLY_SUMSQ: {
    const void *y2 = op == TALLY_SUM ? NULL : op == TALLY_DOT ? y : x;
    if (fl) { set_value(r, 1, exact_sum(t, x, y2, n), 0); return 0; }
    uint64_t s = 0; /* wraps modulo 2^64, as tally's integer sums do */
    for (int64_t i = 0; i < n; i++) s += y2 ? geti(x, t, i) * geti(y2, t, i) : geti(x, t, i);
    set_bits(r, REF_BITS, 1, s, 0);
    return 0;
  }
  case TALLY_NORM2:
    set_value(r, 1, sqrtl((long double)exact_sum(t, x, x, n)), 0);
    return 0;
  case TALLY_MEAN:
    if (n < 1) return -1;
    set_value(r, 1, (long double)exact_sum(t, x, NULL, n) / (long double)n, 0);
    return 0;
  case TALLY_VAR:
  case TALLY_STD: {
    if (n < 1) return -1;
    long double mean = (long double)exact_sum(t, x, NULL, n) / (long double)n, m2 = 0;
    for (int64_t i = 0; i < n; i++) {
      long double d = (long double)getf(x, t, i) - mean;
      m2 += d * d;
    }
    long double var = m2 / (long double)n;
    set_value(r, 1, op == TALLY_VAR ? var : sqrtl(var), 0);
    return 0;
  }
  case TALLY_PROD:
    if (fl) {
      long double p = 1;
      for (int64_t i = 0; i < n; i++) p *= getf(x, t, i);
      set_value(r, 1, p, 0);
    } else {
      uint64_t p = 1;
      for (int64_t i = 0; i < n; i++) p *= geti(x, t, i);
      set_bits(r, REF_BITS, 1, p, 0);
    }
    return 0;
  case TALLY_MIN:
  case TALLY_MAX:
  case TALLY_MINMAX:
  case TALLY_ARGMIN:
  case TALLY_ARGMAX: {
    if (n < 1) return -1;
    int64_t imin = 0, imax = 0; /* first extreme indices */
    for (int64_t i = 1; i < n; i++) {
      if (less(t, x, i, imin)) imin = i;
      if (less(t, x, imax, i)) imax = i;
    }
    if (op == TALLY_ARGMIN || op == TALLY_ARGMAX) {
      set_bits(r, REF_INDEX, 1, (uint64_t)(op == TALLY_ARGMIN ? imin : imax), 0);
      return 0;
    }
    int64_t a = op == TALLY_MAX ? imax : imin, b = imax;
    int width = op == TALLY_MINMAX ? 2 : 1;
    if (fl) set_value(r, width, getf(x, t, a), getf(x, t, b));
    else set_bits(r, REF_BITS, width, geti(x, t, a), geti(x, t, b));
    return 0;
  }
  case TALLY_ANY:
  case TALLY_ALL:
  case TALLY_COUNT_NONZERO: {
    int64_t nz = 0;
    for (int64_t i = 0; i < n; i++) nz += fl ? getf(x, t, i) != 0 : geti(x, t, i) != 0;
    uint64_t v = op == TALLY_ANY ? nz > 0 : op == TALLY_ALL ? nz == n : (uint64_t)nz;
    set_bits(r, REF_BITS, 1, v, 0);
    return 0;
  }
  case TALLY_BITAND:
  case TALLY_BITOR:
  case TALLY_BITXOR: {
    if (fl) return -1;
    uint64_t v = op == TALLY_BITAND ? ~(uint64_t)0 : 0;
    for (int64_t i = 0; i < n; i++) {
      uint64_t e = geti(x, t, i);
      v = op == TALLY_BITAND ? v & e : op == TALLY_BITOR ? v | e : v ^ e;
    }
    set_bits(r, REF_BITS, 1, v, 0);
    return 0;
  }
  case TALLY_AFFINE:
    /* The composition f[n-1](...f[0](x)) = A·x + B of the maps x -> a[k]·x + b[k]. */
    if (t == TALLY_BOOL) return -1;
    if (fl) {
      long double A = 1, B = 0;
      for (int64_t i = 0; i < n; i++) {
        long double a = getf(x, t, i);
        A *= a;
        B = a * B + getf(y, t, i);
      }
      set_value(r, 2, A, B);
    } else {
      uint64_t A = 1, B = 0;
      for (int64_t i = 0; i < n; i++) {
        uint64_t a = geti(x, t, i);
        A *= a;
        B = a * B + geti(y, t, i);
      }
      set_bits(r, REF_BITS, 2, A, B);
    }
    return 0;
  default: return -1;
  }
}

/* v truncated to rt's width and extended back as rt reads (bool: 0 or 1). */
static uint64_t norm_bits(tally_dtype rt, uint64_t v) {
  switch (rt) {
  case TALLY_BOOL: return v != 0;
  case TALLY_I8: return (uint64_t)(int64_t)(int8_t)v;
  case TALLY_I16: return (uint64_t)(int64_t)(int16_t)v;
  case TALLY_I32: return (uint64_t)(int64_t)(int32_t)v;
  case TALLY_U8: return (uint8_t)v;
  case TALLY_U16: return (uint16_t)v;
  case TALLY_U32: return (uint32_t)v;
  default: return v;
  }
}

/* Smallest normal and largest finite value of a float dtype. */
static void float_range(tally_dtype rt, long double *lo, long double *hi) {
  switch (rt) {
  case TALLY_F16: *lo = 0x1p-14L; *hi = 65504.0L; break;
  case TALLY_BF16: *lo = FLT_MIN; *hi = 0x1.fep127L; break;
  case TALLY_F32: *lo = FLT_MIN; *hi = FLT_MAX; break;
  default: *lo = DBL_MIN; *hi = DBL_MAX; break;
  }
}

static double value_error(long double S, long double v, tally_dtype rt) {
  if (isnan(S)) return isnan(v) ? 0 : 1;
  if (isnan(v)) return 1;
  long double lo, hi;
  float_range(rt, &lo, &hi);
  if (fabsl(S) > hi) return v == (S > 0 ? INFINITY : -INFINITY) ? 0 : 1;
  /* Below the normal range (an underflowing product) the error is relative to the
   * smallest normal: a result flushed to zero or rounded in the subnormals counts ~0. */
  long double d = fabsl(v - S) / (fabsl(S) > lo ? fabsl(S) : lo);
  return (double)d;
}

double bench_ref_error(const bench_ref *r, tally_dtype rt, const void *result) {
  size_t sz = tally_dtype_size(rt);
  double worst = 0;
  for (int k = 0; k < r->width; k++) {
    const unsigned char *p = (const unsigned char *)result + (size_t)k * sz;
    double e;
    if (r->kind == REF_INDEX) {
      int64_t idx;
      memcpy(&idx, p, sizeof idx);
      e = (uint64_t)idx == r->bits[k] ? 0 : 1;
    } else if (r->kind == REF_BITS) {
      uint64_t got = is_float(rt) ? 0 : geti(p, rt, 0), want = norm_bits(rt, r->bits[k]);
      if (is_float(rt)) {
        e = 1;
      } else if (got == want) {
        e = 0;
      } else {
        int sg = is_signed(rt);
        double g = sg ? (double)(int64_t)got : (double)got;
        double w = sg ? (double)(int64_t)want : (double)want;
        e = w != 0 ? fabs(g - w) / fabs(w) : 1;
        if (e == 0) e = 0x1p-53; /* different, though not in double precision */
      }
    } else {
      long double v = is_float(rt) ? getf(p, rt, 0) : (long double)(int64_t)geti(p, rt, 0);
      e = value_error(r->val[k], v, rt);
    }
    if (e > worst || isnan(e)) worst = e;
  }
  return worst;
}

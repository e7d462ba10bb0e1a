/* See gen.h. */
#include "gen.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "elem.h"

static const char *const dist_names[TT_DIST_COUNT] = {
    "uniform", "constant", "modk",    "normal",  "lognormal", "cancel",   "huge",  "inf",
    "nan",     "denormal", "negzero", "extremes", "near_one", "offset", "sparse", "illcond"};

const char *tt_dist_name(tt_dist d) {
  return (unsigned)d < TT_DIST_COUNT ? dist_names[d] : "?";
}

static int exact_op(tally_op op) {
  switch (op) {
  case TALLY_MIN: case TALLY_MAX: case TALLY_MINMAX: case TALLY_ARGMIN: case TALLY_ARGMAX:
  case TALLY_ANY: case TALLY_ALL: case TALLY_COUNT_NONZERO:
  case TALLY_BITAND: case TALLY_BITOR: case TALLY_BITXOR:
    return 1;
  default:
    return 0;
  }
}

int tt_dist_applies(tt_dist d, tally_op op, tally_dtype t) {
  int fl = tt_is_float(t);
  /* Only f64 DEFAULT sums are compensated; narrower floats sum in f64, whose error on
   * these data their bound allows. */
  if (d == TT_ILLCOND)
    return t == TALLY_F64 && (op == TALLY_SUM || op == TALLY_MEAN || op == TALLY_DOT);
  if (t == TALLY_BOOL)
    return d == TT_UNIFORM || d == TT_CONSTANT || d == TT_MODK || d == TT_SPARSE ||
           d == TT_EXTREMES;
  if (!fl && (d == TT_INF || d == TT_NAN || d == TT_DENORMAL || d == TT_NEGZERO)) return 0;
  if (!fl) return 1; /* integers: exact arithmetic, anything goes */
  if (d == TT_EXTREMES) return exact_op(op);
  /* PROD on floats: partial products of other data overflow (Inf · 0 = NaN). */
  if (op == TALLY_PROD)
    return d == TT_NEAR_ONE || d == TT_INF || d == TT_NAN || d == TT_NEGZERO;
  return 1;
}

/* Largest binary exponent used by TT_HUGE, per float dtype: products and sums of 2^24
 * values stay finite in every accumulator, squares stay normal. */
static int huge_exp(tally_dtype t) {
  switch (t) {
  case TALLY_F16: return 14;
  case TALLY_BF16: case TALLY_F32: return 40;
  default: return 200;
  }
}

static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

/* A random NaN of the dtype: all exponent bits, random nonzero mantissa, random sign. */
static uint64_t nan_bits(tt_rng *r, tally_dtype t) {
  int mant = t == TALLY_F16 ? 10 : t == TALLY_BF16 ? 7 : t == TALLY_F32 ? 23 : 52;
  int bits = tt_bits(t);
  uint64_t m = tt_rng_next(r) & ((UINT64_C(1) << mant) - 1);
  if (m == 0) m = 1;
  uint64_t expo = ((UINT64_C(1) << (bits - 1 - mant)) - 1) << mant;
  uint64_t sign = (tt_rng_next(r) & 1) ? UINT64_C(1) << (bits - 1) : 0;
  return sign | expo | m;
}

static double float_value(tt_rng *r, tt_dist d, tally_dtype t, int64_t i, int64_t n,
                          int64_t k, double cst) {
  switch (d) {
  case TT_UNIFORM: return 2.0 * tt_rng_unit(r) - 1.0;
  case TT_CONSTANT: return cst;
  case TT_MODK: return (double)(i % k);
  case TT_NORMAL: return tt_rng_normal(r);
  case TT_LOGNORMAL: return exp(1.5 * tt_rng_normal(r));
  case TT_CANCEL: return sin((double)i);
  case TT_HUGE: {
    int e = huge_exp(t);
    double m = 1.0 + tt_rng_unit(r);
    int ex = (int)tt_rng_below(r, (uint64_t)(2 * e + 1)) - e;
    return ldexp((tt_rng_next(r) & 1) ? -m : m, ex);
  }
  case TT_DENORMAL: {
    if (tt_rng_below(r, 10) == 0) return 0.0;
    int mant = t == TALLY_F16 ? 10 : t == TALLY_BF16 ? 7 : t == TALLY_F32 ? 23 : 52;
    int emin = t == TALLY_F16 ? -14 : t == TALLY_F64 ? -1022 : -126;
    uint64_t m = 1 + tt_rng_below(r, (UINT64_C(1) << mant) - 1);
    double v = ldexp((double)m, emin - mant);
    return (tt_rng_next(r) & 1) ? -v : v;
  }
  case TT_NEGZERO: {
    uint64_t c = tt_rng_below(r, 20);
    if (c < 9) return -0.0;
    if (c < 18) return 0.0;
    return tt_rng_normal(r);
  }
  case TT_EXTREMES: {
    double max = t == TALLY_F16 ? 65504.0 : t == TALLY_BF16 ? 0x1.fep127
                 : t == TALLY_F32 ? FLT_MAX : DBL_MAX;
    double minn = t == TALLY_F16 ? 0x1p-14 : t == TALLY_F64 ? DBL_MIN : FLT_MIN;
    double mins = t == TALLY_F16 ? 0x1p-24 : t == TALLY_BF16 ? 0x1p-133
                  : t == TALLY_F32 ? 0x1p-149 : 0x1p-1074;
    double choice[5] = {max, minn, mins, 0.0, 1.0};
    double v = choice[tt_rng_below(r, 5)];
    return (tt_rng_next(r) & 1) ? -v : v;
  }
  case TT_NEAR_ONE: {
    double eps = n > 64 ? 2.0 / sqrt((double)n) : 0.25;
    double v = 1.0 + eps * (2.0 * tt_rng_unit(r) - 1.0);
    return (tt_rng_next(r) & 1) ? -v : v;
  }
  case TT_OFFSET: {
    switch (t) {
    case TALLY_F16: return 100.0 + tt_rng_normal(r);
    case TALLY_BF16: return 100.0 + 4.0 * tt_rng_normal(r);
    case TALLY_F32: return 1000.0 + 0.1 * tt_rng_normal(r);
    default: return 1e6 + tt_rng_normal(r);
    }
  }
  default: return tt_rng_normal(r);
  }
}

static __int128 int_value(tt_rng *r, tt_dist d, tally_dtype t, int64_t i, int64_t k,
                          __int128 cst) {
  __int128 lo = tt_int_min(t), hi = tt_int_max(t);
  double range = (double)hi - (double)lo;
  int bits = tt_bits(t), sgn = tt_is_signed(t);
  switch (d) {
  case TT_UNIFORM: {
    uint64_t b = tt_rng_next(r);
    if (t == TALLY_BOOL) return (b & 1) ? 0 : (__int128)(1 + (b >> 8) % 255);
    if (bits < 64) b &= (UINT64_C(1) << bits) - 1;
    if (sgn && (b >> (bits - 1))) return (__int128)b - ((__int128)1 << bits);
    return (__int128)b;
  }
  case TT_CONSTANT: return cst;
  case TT_MODK: return i % k;
  case TT_NORMAL: {
    double v = tt_rng_normal(r) * range / 16.0;
    if (!sgn) v = fabs(v);
    return (__int128)clampd(nearbyint(v), (double)lo, (double)hi * (1 - 0x1p-60));
  }
  case TT_LOGNORMAL: {
    double v = exp(1.5 * tt_rng_normal(r)) * range / 256.0;
    return (__int128)clampd(nearbyint(v), 0, (double)hi * (1 - 0x1p-60));
  }
  case TT_CANCEL: {
    double v = sin((double)i) * (double)hi / 2.0;
    if (!sgn) v += (double)hi / 2.0;
    return (__int128)nearbyint(v);
  }
  case TT_HUGE: {
    int w = (int)tt_rng_below(r, (uint64_t)(sgn ? bits : bits + 1));
    __int128 v = w ? (__int128)(tt_rng_next(r) >> (64 - w)) : 0;
    if (t == TALLY_BOOL) return v & 0xff;
    return (sgn && (tt_rng_next(r) & 1)) ? -v - 1 : v;
  }
  case TT_EXTREMES: {
    if (t == TALLY_BOOL) {
      static const int bytes[4] = {0, 1, 0x80, 0xff};
      return bytes[tt_rng_below(r, 4)];
    }
    __int128 choice[7] = {lo, lo + 1, sgn ? -1 : 2, 0, 1, hi - 1, hi};
    return choice[tt_rng_below(r, 7)];
  }
  case TT_NEAR_ONE: {
    static const int vals[8] = {1, 1, 1, 1, -1, 3, 5, 2};
    int v = vals[tt_rng_below(r, 8)];
    return (!sgn && v < 0) ? 1 : v;
  }
  case TT_OFFSET: {
    double c = bits == 8 ? (sgn ? 100 : 200) : bits == 16 ? (sgn ? 30000 : 60000) : 1e9;
    double s = bits == 8 ? 5 : bits == 16 ? 100 : 1000;
    return (__int128)clampd(nearbyint(c + s * tt_rng_normal(r)), (double)lo, (double)hi);
  }
  default: return 0;
  }
}

/* An integer element as generated. bool keeps its byte (any of 1..255 is true): the
 * library must read every nonzero byte as 1, and tt_store_int would store 0 or 1 only,
 * which once let kernels that used the raw byte pass every bool case. */
static void store_int_raw(tally_dtype t, void *buf, int64_t i, __int128 v) {
  if (t == TALLY_BOOL) tt_store_bits(t, buf, i, (uint64_t)v & 0xff);
  else tt_store_int(t, buf, i, v);
}

/* Terms v_j (random sign, mantissa in [1, 2), exponent 0..40) and -v_j + r_j (r_j ~ N(0, 1))
 * in random order (a Fisher-Yates shuffle); an odd n ends with one r. Why 2^40: an
 * uncompensated f64 sum then errs by about 2^-13 per addition of a large term, far
 * above the DEFAULT bound u·|S| + n²·2^-104·Σ|x| for n up to about 2^17. */
static void illcond_terms(tt_rng *r, double *t, int64_t n) {
  int64_t h = n / 2;
  for (int64_t j = 0; j < h; j++) {
    double v = ldexp(1.0 + tt_rng_unit(r), (int)tt_rng_below(r, 41));
    if (tt_rng_next(r) & 1) v = -v;
    t[j] = v;
    t[h + j] = -v + tt_rng_normal(r);
  }
  if (n & 1) t[n - 1] = tt_rng_normal(r);
  for (int64_t i = n - 1; i > 0; i--) {
    int64_t k = (int64_t)tt_rng_below(r, (uint64_t)i + 1);
    double s = t[i]; t[i] = t[k]; t[k] = s;
  }
}

void tt_generate_dot_illcond(tt_rng *r, tally_dtype t, void *x, void *y, int64_t n) {
  double *terms = malloc(sizeof(double) * (size_t)(n ? n : 1));
  if (!terms) return;
  illcond_terms(r, terms, n);
  for (int64_t i = 0; i < n; i++) {
    double m = 1.0 + tt_rng_unit(r);
    tt_store_f(t, y, i, m);
    tt_store_f(t, x, i, terms[i] / tt_load_f(t, y, i));
  }
  free(terms);
}

void tt_generate(tt_rng *r, tt_dist d, tally_dtype t, void *buf, int64_t n,
                 const tt_genopt *opt) {
  tt_genopt def = {0, TT_NORMAL};
  if (!opt) opt = &def;
  int64_t k = opt->param > 0 ? opt->param
              : t == TALLY_BOOL ? 3 : tt_size(t) == 1 ? 100 : 1000;
  if (tt_is_float(t)) {
    if (d == TT_ILLCOND) {
      double *terms = malloc(sizeof(double) * (size_t)(n ? n : 1));
      if (!terms) return;
      illcond_terms(r, terms, n);
      for (int64_t i = 0; i < n; i++) tt_store_f(t, buf, i, terms[i]);
      free(terms);
      return;
    }
    if (d == TT_SPARSE) {
      double b = (tt_rng_next(r) & 1) ? 0.0 : tt_rng_normal(r);
      double s = b != 0 ? ((tt_rng_next(r) & 1) ? -0.0 : 0.0) : tt_rng_normal(r);
      for (int64_t i = 0; i < n; i++) tt_store_f(t, buf, i, b);
      if (n) tt_store_f(t, buf, (int64_t)tt_rng_below(r, (uint64_t)n), s);
      return;
    }
    tt_dist base = (d == TT_INF || d == TT_NAN) ? opt->base : d;
    double cst = 2.0 * tt_rng_unit(r) - 1.0;
    if (d == TT_CONSTANT && (tt_rng_next(r) & 3) == 0) cst = (tt_rng_next(r) & 1) ? -0.0 : 0.0;
    for (int64_t i = 0; i < n; i++)
      tt_store_f(t, buf, i, float_value(r, base, t, i, n, k, cst));
    if (n == 0) return;
    if (d == TT_INF) {
      int sign_mode = (int)tt_rng_below(r, 5); /* 0,1: +; 2,3: -; 4: both */
      int count = 1 + (int)tt_rng_below(r, 3);
      for (int c = 0; c < count; c++) {
        int neg = sign_mode == 4 ? (c & 1) : sign_mode >= 2;
        tt_store_f(t, buf, (int64_t)tt_rng_below(r, (uint64_t)n), neg ? -INFINITY : INFINITY);
      }
    } else if (d == TT_NAN) {
      int64_t p = opt->param >= 0 && opt->param < n ? opt->param
                                                    : (int64_t)tt_rng_below(r, (uint64_t)n);
      tt_store_bits(t, buf, p, nan_bits(r, t));
      if (tt_rng_below(r, 3) == 0) {
        int64_t q = p + (int64_t)tt_rng_below(r, (uint64_t)(n - p));
        tt_store_bits(t, buf, q, nan_bits(r, t));
      }
    }
    return;
  }
  if (d == TT_SPARSE) {
    __int128 b = (tt_rng_next(r) & 1) ? 0 : int_value(r, TT_UNIFORM, t, 0, k, 0);
    __int128 s = b != 0 ? 0 : 1 + (__int128)tt_rng_below(r, 100);
    for (int64_t i = 0; i < n; i++) store_int_raw(t, buf, i, b);
    if (n) store_int_raw(t, buf, (int64_t)tt_rng_below(r, (uint64_t)n), s);
    return;
  }
  __int128 cst = int_value(r, TT_UNIFORM, t, 0, k, 0);
  for (int64_t i = 0; i < n; i++) store_int_raw(t, buf, i, int_value(r, d, t, i, k, cst));
}

__int128 tt_modk_sum(int64_t n, int64_t k) {
  __int128 q = n / k, rem = n % k;
  return q * ((__int128)k * (k - 1) / 2) + rem * (rem - 1) / 2;
}

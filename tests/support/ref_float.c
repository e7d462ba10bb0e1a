/* References for arithmetic on float dtypes, with the bounds of SEMANTICS.md:
 *   SUM   DEFAULT f16/bf16/f32: u32·|S| + n·u64·Σ|x|;  f64: u64·|S| + n²·2^-104·Σ|x|
 *         FAST: n·u·Σ|x| (u of the result type);  sequential: n·u64·Σ|x| + final rounding
 *   DOT, SUMSQ: the same with Σ|x·y| (FAST and sequential: n + 1 roundings, the products'
 *         included)
 *   MEAN  the SUM bound / n, plus the division's rounding
 *   NORM2 from the SUMSQ bound: |√a − √b| ≤ min(|a − b|/√b, √|a − b|), plus the sqrt's
 *   PROD, AFFINE (no bound is stated): n + 1 roundings of the accumulator per factor,
 *         plus underflow: products of values near one can leave the result's range.
 * Where sums can underflow (denormal data), n halves of the accumulator's smallest
 * subnormal are added, and one of the result's for its final rounding: the table's bounds
 * assume no underflow. PROD and AFFINE add underflow as the other factors amplify it
 * (see tt_amp_step). Exact sums use exactsum;
 * products and compositions use long double, whose own error (n·2^-63) is added. */
#include <math.h>

#include "elem.h"
#include "ref_impl.h"

#define U64 0x1p-53
#define U32 0x1p-24

/* Half the smallest subnormal of a result (or accumulator) dtype (f64: the whole one). */
static double tiny(tally_dtype t) { return t == TALLY_F64 ? 0x1p-1074 : 0x1p-150; }

/* The exact sum, as hi + lo in long double. */
static long double exact_value(const exactsum *a) {
  double hi = exactsum_round(a);
  if (!isfinite(hi)) return hi;
  exactsum rest = *a;
  exactsum_add(&rest, -hi);
  return (long double)hi + exactsum_round(&rest);
}

/* The SUM bound of SEMANTICS.md for n terms with exact sum S and Σ|x| = abs. */
static double sum_bound(const tt_spec *s, tally_dtype rd, double n, double S, double abs) {
  double u = tt_unit(rd), t = tiny(rd); /* t: the final rounding, should it underflow */
  if (s->sequential) return n * U64 * abs + u * fabs(S) + t;
  if (s->acc == TALLY_ACCURACY_FAST) return n * u * abs + t;
  if (s->dt == TALLY_F64) return U64 * fabs(S) + n * n * 0x1p-104 * abs + t;
  return U32 * fabs(S) + n * U64 * abs + t;
}

/* The same for sums of n products (DOT, SUMSQ): FAST and sequential round each product. */
static double dot_bound(const tt_spec *s, tally_dtype rd, double n, double S, double abs) {
  double u = tt_unit(rd), t = tiny(rd);
  if (s->sequential)
    return (n + 1) * U64 * abs + u * fabs(S) + (s->dt == TALLY_F64 ? n * 0x1p-1074 : 0) + t;
  if (s->acc == TALLY_ACCURACY_FAST) return (n + 1) * u * abs + (n + 1) * t;
  if (s->dt == TALLY_F64) return U64 * fabs(S) + n * n * 0x1p-104 * abs + (n + 1) * t;
  return U32 * fabs(S) + n * U64 * abs + t;
}

static int nan_at(const tt_spec *s, const void *x, int64_t i) { return tt_isnan_at(s->dt, x, i); }

/* SUM, MEAN, DOT, SUMSQ, NORM2: an exact sum of the terms (x, or x·y, or x·x scaled by
 * 2^k). Returns the number of terms, or -1 when a NaN decides the result. */
static int64_t exact_terms(const tt_spec *s, const void *x, const void *y, int64_t n, int k,
                           exactsum *a, long double *abs) {
  int prod = s->op == TALLY_DOT || s->op == TALLY_SUMSQ || s->op == TALLY_NORM2;
  const void *z = s->op == TALLY_DOT ? y : x;
  int64_t m = 0;
  exactsum_init(a);
  *abs = 0;
  for (int64_t i = 0; i < n; i++) {
    if (nan_at(s, x, i) || (prod && nan_at(s, z, i))) {
      if (s->nan == TALLY_NAN_PROPAGATE) return -1;
      continue;
    }
    m++;
    double v = tt_load_f(s->dt, x, i);
    if (!prod) {
      exactsum_add(a, v);
      *abs += fabs(v);
      continue;
    }
    double w = ldexp(tt_load_f(s->dt, z, i), k);
    v = ldexp(v, k);
    if (s->dt == TALLY_F64) exactsum_add_product(a, v, w);
    else exactsum_add(a, v * w); /* exact: 24-bit significands */
    *abs += fabsl((long double)v * w);
  }
  return m;
}

/* A binary exponent that brings the largest finite |x| near 2^500 (f64 NORM2 only). */
static int norm_scale(const tt_spec *s, const void *x, int64_t n) {
  if (s->op != TALLY_NORM2 || s->dt != TALLY_F64) return 0;
  double mx = 0;
  for (int64_t i = 0; i < n; i++) {
    double v = fabs(tt_load_f(s->dt, x, i));
    if (isfinite(v) && v > mx) mx = v;
  }
  return mx > 0 ? 500 - ilogb(mx) : 0;
}

static void ref_sums(const tt_spec *s, const void *x, const void *y, int64_t n, tt_expect *e) {
  tally_dtype rd = e->rdtype;
  tt_value *v = &e->v[0];
  if (s->op == TALLY_MEAN && n == 0) { e->status = TALLY_EEMPTY; return; }
  int k = norm_scale(s, x, n);
  long double abs;
  int64_t m = exact_terms(s, x, y, n, k, &v->sum, &abs);
  if (m < 0 || (s->op == TALLY_MEAN && m == 0)) { tt_set_nan(v); return; }
  double S = exactsum_round(&v->sum);
  if (!isfinite(S)) { /* Inf, or NaN from Inf - Inf or Inf * 0 */
    if (s->op == TALLY_NORM2 && !isnan(S)) S = INFINITY;
    tt_set_exact(v, tt_float_bits(rd, S));
    return;
  }
  double dn = (double)m, u = tt_unit(rd);
  if (s->op == TALLY_SUM) {
    v->kind = TT_K_NEAR_SUM;
    v->bound = sum_bound(s, rd, dn, S, (double)abs);
  } else if (s->op == TALLY_MEAN) {
    double sb = sum_bound(s, rd, dn, S, (double)abs);
    tt_set_near(v, exact_value(&v->sum) / m, sb / dn + u * (fabs(S) + sb) / dn + tiny(rd));
  } else if (s->op == TALLY_NORM2) {
    long double Sx = exact_value(&v->sum), N = sqrtl(Sx);
    double eS;
    if (s->sequential) eS = (dn + 1) * U64 * S + (s->dt == TALLY_F64 ? dn * 0x1p-1074 : 0);
    else if (s->acc == TALLY_ACCURACY_FAST) eS = (dn + 1) * u * S + dn * tiny(rd);
    else if (s->dt == TALLY_F64) eS = U64 * S + dn * dn * 0x1p-104 * S;
    else eS = U32 * S + dn * U64 * S;
    double eN = N > 0 ? fmin(eS / (double)N, sqrt(eS)) : sqrt(eS);
    eN += u * (double)N + (double)N * 0x1p-62;
    tt_set_near(v, ldexpl(N, -k), ldexp(eN, -k) + 2 * tiny(rd));
  } else {
    v->kind = TT_K_NEAR_SUM;
    v->bound = dot_bound(s, rd, dn, S, (double)abs);
  }
}

/* Underflow in products and compositions. A product below the normal range errs by up to
 * t/2 (t: the accumulator's smallest subnormal), not by a fraction of itself (sums of
 * subnormals are exact), and every later multiplication carries that error on. A rounding
 * in the partial composition of maps s+1..e reaches the whole one multiplied by P_e, the
 * product of the later |a| (a rise after a subnormal stretch amplifies it, in any order,
 * the sequential one included); one in the partial's A, merged after the first s maps,
 * also by their |A| (into A) or |B| (into B). Every evaluation (index order, pieces from
 * the identity, trees, chained look-backs) is a binary tree over the m maps, each map in
 * it once, so it rounds at most m - 1 products for A and m - 1 for B, each in some
 * contiguous partial s+1..e: A's underflow is at most m·t·QA and B's m·t·QB (QA, QB in
 * tt_amp); in index order (s = 0) both are at most t·T. The recurrences, step e:
 * candidates for partials ending at e enter at the prefix maxima, earlier ones take |a_e|. */
void tt_amp_init(tt_amp *g) {
  g->MA = 1, g->MB = 0, g->HA = 1, g->HB = 1, g->QA = 0, g->QB = 0, g->T = 0;
}

void tt_amp_step(tt_amp *g, long double a, long double b) {
  long double fa = fabsl(a);
  g->QA = fmaxl(fa * g->QA, g->HA);
  g->QB = fmaxl(fa * g->QB, g->HB);
  g->T = fa * g->T + 1;
  g->MA = fa * g->MA;
  g->MB = fa * g->MB + fabsl(b);
  g->HA = fmaxl(g->HA, g->MA);
  g->HB = fmaxl(g->HB, 1 + g->MB);
}

/* The smallest normal magnitude of the accumulator whose smallest subnormal is t. */
static long double min_normal(double t) { return t < 0x1p-1000 ? 0x1p-1022L : 0x1p-126L; }

static void ref_prod(const tt_spec *s, const void *x, int64_t n, tt_expect *e) {
  tally_dtype rd = e->rdtype;
  long double p = 1, lo = 1, hi = 1; /* lo, hi: the products of the |x| below, above one */
  tt_amp g;
  tt_amp_init(&g);
  int64_t m = 0;
  for (int64_t i = 0; i < n; i++) {
    if (nan_at(s, x, i)) {
      if (s->nan == TALLY_NAN_PROPAGATE) { tt_set_nan(&e->v[0]); return; }
      continue;
    }
    double v = tt_load_f(s->dt, x, i);
    p *= v;
    if (fabs(v) < 1) lo *= fabs(v);
    else hi *= fabs(v);
    tt_amp_step(&g, v, 0);
    m++;
  }
  if (p == 0 || !isfinite(p)) { tt_set_exact(&e->v[0], tt_float_bits(rd, (double)p)); return; }
  int fast = s->acc == TALLY_ACCURACY_FAST && !s->sequential;
  double u = tt_unit(rd), ua = fast ? u : U64, t = fast ? 2 * tiny(rd) : 0x1p-1074;
  double ap = (double)fabsl(p);
  /* PROD commutes: the CPU's lanes and the GPUs' grid-stride loops multiply residue
   * classes, not runs. Where lo, the product of all the factors below one, is normal, no
   * subset's product underflows: the old term, m·t. Else m·t·QA, sound where the partials
   * are runs (index order, chunks, pieces, trees and scans of them) but not for every
   * residue class: the bound that is, m·t·hi, is void on the suite's near-one data from
   * n = 2^15 (f32 FAST; f64 accumulators from n = 2^21). */
  long double old = m * t, under = old;
  if (!(lo >= 2 * min_normal(t))) /* 1 + 2·m·ua: the carrying products' own roundings */
    under = (s->sequential ? t * g.T : m * t * g.QA) * (1 + 2 * m * ua);
  tt_set_near(&e->v[0], p, (double)((m + 1) * ua * ap + u * ap + m * 0x1p-63 * ap + under) + tiny(rd));
}

static void ref_affine(const tt_spec *s, const void *x, const void *y, int64_t n,
                       tt_expect *e) {
  tally_dtype rd = e->rdtype;
  long double A = 1, B = 0;
  tt_amp g;
  tt_amp_init(&g);
  int nan_a = 0, nan_b = 0;
  int64_t m = 0;
  for (int64_t i = 0; i < n; i++) {
    int na = nan_at(s, x, i), nb = nan_at(s, y, i);
    if (na || nb) {
      if (s->nan == TALLY_NAN_IGNORE) continue;
      nan_a |= na;
      nan_b |= nb;
    }
    long double a = tt_load_f(s->dt, x, i), b = tt_load_f(s->dt, y, i);
    A = a * A;
    B = a * B + b;
    tt_amp_step(&g, a, b);
    m++;
  }
  double u = tt_unit(rd);
  int fast = s->acc == TALLY_ACCURACY_FAST && !s->sequential;
  double ua = fast ? u : U64, t = fast ? 2 * tiny(rd) : 0x1p-1074;
  long double Aabs = g.MA, Babs = g.MB, c = 1 + 2 * m * ua; /* c: as in ref_prod */
  long double uA = (s->sequential ? t * g.T : m * t * g.QA) * c;
  long double uB = (s->sequential ? t * g.T : m * t * g.QB) * c;
  double eA = (double)((m + 1) * ua * Aabs + u * fabsl(A) + m * 0x1p-63 * Aabs + uA) + tiny(rd);
  double eB = (double)((2 * m + 2) * ua * Babs + u * fabsl(B) + m * 0x1p-63 * Babs + uB) + tiny(rd);
  if (nan_a) {
    tt_set_nan(&e->v[0]);
  } else if (!isfinite(A)) {
    tt_set_exact(&e->v[0], tt_float_bits(rd, (double)A));
  } else {
    tt_set_near(&e->v[0], A, eA);
    if (nan_b) e->v[0].kind = TT_K_NAN_OR_NEAR; /* "any NaN makes the result NaN" */
  }
  if (nan_a || nan_b) tt_set_nan(&e->v[1]);
  else if (!isfinite(B)) tt_set_exact(&e->v[1], tt_float_bits(rd, (double)B));
  else tt_set_near(&e->v[1], B, eB);
}

void tt__ref_float(const tt_spec *s, const void *x, const void *y, int64_t n, tt_expect *e) {
  switch (s->op) {
  case TALLY_PROD: ref_prod(s, x, n, e); break;
  case TALLY_AFFINE: ref_affine(s, x, y, n, e); break;
  default: ref_sums(s, x, y, n, e); break;
  }
}

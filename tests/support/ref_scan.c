/* See ref_scan.h. Every reference walks the input once, in index order, and checks each
 * output value as it goes. */
#include "ref_scan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elem.h"
#include "exactsum.h"
#include "ref.h"

tally_dtype tt_scan_rdtype(tally_op op, tally_dtype dt, int *ok) {
  if (op == TALLY_MIN || op == TALLY_MAX) {
    *ok = 1;
    return dt;
  }
  return tt_result_dtype(op, dt, ok);
}

/* ------------------------------------------------------------ exact kinds */

/* Integer values of every op are kept modulo 2^64 (MIN/MAX in 128 bits). */
typedef struct {
  unsigned __int128 a, b; /* SUM, PROD: a; MIN/MAX: a as a signed value; AFFINE: (a, b) */
} iacc;

static __int128 as_signed(unsigned __int128 v) { return (__int128)v; }

static void istart(const tt_scan_spec *s, tally_dtype rd, iacc *v) {
  switch (s->op) {
  case TALLY_SUM: v->a = 0; break;
  case TALLY_PROD: v->a = 1; break;
  case TALLY_MIN: v->a = (unsigned __int128)tt_int_max(s->dt); break;
  case TALLY_MAX: v->a = (unsigned __int128)tt_int_min(s->dt); break;
  default: v->a = 1; v->b = 0; break;
  }
  if (s->init) {
    v->a = (unsigned __int128)tt_load_int(rd, s->init, 0);
    if (s->op == TALLY_AFFINE) v->b = (unsigned __int128)tt_load_int(rd, s->init, 1);
  }
}

static void istep(const tt_scan_spec *s, iacc *v, __int128 x, __int128 y) {
  uint64_t a = (uint64_t)v->a;
  switch (s->op) {
  case TALLY_SUM: v->a = (uint64_t)(a + (uint64_t)x); break;
  case TALLY_PROD: v->a = (uint64_t)(a * (uint64_t)x); break;
  case TALLY_MIN: if (x < as_signed(v->a)) v->a = (unsigned __int128)x; break;
  case TALLY_MAX: if (x > as_signed(v->a)) v->a = (unsigned __int128)x; break;
  default: { /* (A, B) then (x, y): (x·A, x·B + y) modulo 2^64 */
    uint64_t A = a, B = (uint64_t)v->b;
    v->a = (uint64_t)((uint64_t)x * A);
    v->b = (uint64_t)((uint64_t)x * B + (uint64_t)y);
  }
  }
}

/* ------------------------------------------------------------ float kinds */

/* IEEE 754-2019 minimum / maximum; NaN propagates, or (ignore) is skipped. */
static double fpick(const tt_scan_spec *s, double acc, double x) {
  int mn = s->op == TALLY_MIN;
  if (isnan(x)) return s->nan == TALLY_NAN_IGNORE ? acc : x;
  if (isnan(acc)) return s->nan == TALLY_NAN_IGNORE ? x : acc;
  if (x == acc) {
    if (x != 0) return acc;
    return mn ? (signbit(x) ? x : acc) : (signbit(x) ? acc : x);
  }
  return mn ? (x < acc ? x : acc) : (x > acc ? x : acc);
}

typedef struct {
  exactsum sum;     /* SUM: the exact prefix */
  double mag;       /* SUM: Σ|x|; PROD/AFFINE: magnitude bounds */
  long double p, A, B, MA, MB;
  tt_amp g;         /* PROD/AFFINE: how far factors carry an underflow (ref.h) */
  double m;         /* MIN/MAX */
  int64_t k;        /* terms so far (init counts as one) */
} facc;

static void fstart(const tt_scan_spec *s, tally_dtype rd, facc *v) {
  memset(v, 0, sizeof *v);
  exactsum_init(&v->sum);
  v->p = 1;
  v->A = 1;
  v->MA = 1;
  tt_amp_init(&v->g);
  v->m = s->nan == TALLY_NAN_IGNORE ? NAN : s->op == TALLY_MIN ? INFINITY : -INFINITY;
  if (!s->init) return;
  double i0 = tt_load_f(rd, s->init, 0);
  v->k = 1;
  switch (s->op) {
  case TALLY_SUM: exactsum_add(&v->sum, i0); v->mag = fabs(i0); break;
  case TALLY_PROD: v->p = i0; tt_amp_step(&v->g, i0, 0); break;
  case TALLY_MIN: case TALLY_MAX: v->m = i0; break;
  default: {
    double i1 = tt_load_f(rd, s->init, 1);
    v->A = i0;
    v->B = i1;
    v->MA = fabsl(v->A);
    v->MB = fabsl(v->B);
    tt_amp_step(&v->g, i0, i1); /* the init: the first map */
  }
  }
}

static void fstep(const tt_scan_spec *s, facc *v, double x, double y) {
  int ign = s->nan == TALLY_NAN_IGNORE;
  v->k++;
  switch (s->op) {
  case TALLY_SUM:
    if (ign && isnan(x)) return;
    exactsum_add(&v->sum, x);
    v->mag += fabs(x);
    break;
  case TALLY_PROD:
    if (ign && isnan(x)) return;
    v->p *= x;
    tt_amp_step(&v->g, x, 0);
    break;
  case TALLY_MIN: case TALLY_MAX: v->m = fpick(s, v->m, x); break;
  default:
    v->B = (long double)x * v->B + y;
    v->A = (long double)x * v->A;
    v->MB = fabsl((long double)x) * v->MB + fabsl((long double)y);
    v->MA = fabsl((long double)x) * v->MA;
    tt_amp_step(&v->g, x, y);
    break;
  }
}

/* Unit roundoff of the accumulator: f32 FAST keeps f32, everything else f64. */
static double acc_unit(const tt_scan_spec *s) {
  return (s->dt != TALLY_F64 && s->acc == TALLY_ACCURACY_FAST) ? 0x1p-24 : 0x1p-53;
}

/* Half the smallest subnormal of the result dtype: the rounding of a tiny result. */
static double tiny(tally_dtype rd) { return rd == TALLY_F64 ? 0x1p-1074 : 0x1p-150; }

/* Check one float value r against the reference; 1 passes. */
static int fcheck(const tt_scan_spec *s, tally_dtype rd, const facc *v, double r, int w,
                  double *worst, char *why, size_t len) {
  double ur = tt_unit(rd), ua = acc_unit(s);
  double k = (double)v->k + 8;
  if (s->op == TALLY_MIN || s->op == TALLY_MAX) {
    double want = v->m;
    if (isnan(want) ? isnan(r) : (tt_float_bits(rd, r) == tt_float_bits(rd, want))) return 1;
    snprintf(why, len, "got %.17g, want %.17g", r, want);
    return 0;
  }
  if (s->op == TALLY_SUM) {
    double S = exactsum_round(&v->sum);
    if (!isfinite(S)) {
      if (isnan(S) ? isnan(r) : r == S) return 1;
      snprintf(why, len, "got %.17g, want %g", r, S);
      return 0;
    }
    if (!isfinite(r)) {
      snprintf(why, len, "got %g, want %.17g", r, S);
      return 0;
    }
    exactsum e = v->sum; /* the error, exactly */
    exactsum_add(&e, -r);
    double err = fabs(exactsum_round(&e));
    double bound;
    if (s->acc == TALLY_ACCURACY_DEFAULT && s->dt == TALLY_F64)
      bound = ur * fabs(S) + k * 0x1p-100 * v->mag; /* compensated */
    else
      bound = ur * fabs(S) + 2 * k * ua * v->mag;
    bound = bound * (1 + 0x1p-20) + tiny(rd);
    double ratio = err / bound;
    if (ratio > *worst) *worst = ratio;
    if (err <= bound) return 1;
    snprintf(why, len, "got %.17g, exact %.17g: error %.3g > bound %.3g", r, S, err, bound);
    return 0;
  }
  long double want, mag, amp;
  if (s->op == TALLY_PROD) {
    want = v->p;
    mag = fabsl(v->p);
    amp = v->g.QA;
  } else {
    want = w ? v->B : v->A;
    mag = w ? v->MB : v->MA;
    amp = w ? v->g.QB : v->g.QA;
  }
  if (isnan((double)want) || isinf((double)want)) {
    if (isnan((double)want) ? isnan(r) : r == (double)want) return 1;
    snprintf(why, len, "got %.17g, want %Lg", r, want);
    return 0;
  }
  /* Each step rounds in the accumulator (and the long double reference a little). */
  /* Near underflow a product may also lose up to the accumulator's smallest subnormal,
   * which the later factors carry on (a rise after a subnormal stretch amplifies it): a
   * prefix is a composition of its k maps in contiguous partials, whatever the scan's
   * tree or look-back, so at most k - 1 such losses each for A and B, each at most
   * t·amp (tt_amp_step in ref_float.c). */
  double t = ua == 0x1p-24 ? 0x1p-149 : 0x1p-1074;
  double bound = (double)((ur * fabsl(want) + 4 * k * ua * mag) * (1 + 0x1p-20) +
                          4 * k * t * amp) + tiny(rd);
  double err = (double)fabsl((long double)r - want);
  if (isnan(r)) err = INFINITY;
  double ratio = err / bound;
  if (ratio > *worst) *worst = ratio;
  if (err <= bound) return 1;
  snprintf(why, len, "value %d: got %.17g, want %.17Lg: error %.3g > bound %.3g", w, r, want, err,
           bound);
  return 0;
}

int tt_scan_check(const tt_scan_spec *s, const void *x, const void *y, int64_t n,
                  const uint8_t *head, const void *out, double *worst, char *why, size_t len) {
  int ok;
  tally_dtype rd = tt_scan_rdtype(s->op, s->dt, &ok);
  int W = tt_width(s->op);
  int fl = tt_is_float(s->dt);
  iacc iv, istart_v;
  facc fv;
  istart(s, rd, &istart_v);
  iv = istart_v;
  fstart(s, rd, &fv);
  int rbits = tt_bits(rd);
  uint64_t rmask = rbits == 64 ? ~UINT64_C(0) : (UINT64_C(1) << rbits) - 1;
  for (int64_t i = 0; i < n; i++) {
    if (i > 0 && head && head[i]) {
      iv = istart_v;
      fstart(s, rd, &fv);
    }
    double xf = 0, yf = 0;
    __int128 xi = 0, yi = 0;
    if (fl) {
      xf = tt_load_f(s->dt, x, i);
      if (y) yf = tt_load_f(s->dt, y, i);
    } else {
      xi = tt_load_int(s->dt, x, i);
      if (y) yi = tt_load_int(s->dt, y, i);
    }
    if (!s->exclusive) {
      if (fl) fstep(s, &fv, xf, yf);
      else istep(s, &iv, xi, yi);
    }
    for (int w = 0; w < W; w++) {
      char sub[400];
      int pass;
      if (fl) {
        pass = fcheck(s, rd, &fv, tt_load_f(rd, out, i * W + w), w, worst, sub, sizeof sub);
      } else {
        uint64_t want = (uint64_t)(w ? iv.b : iv.a) & rmask;
        uint64_t got = tt_load_bits(rd, out, i * W + w);
        if (rd == TALLY_BOOL) got = got != 0, want = want != 0;
        pass = got == want;
        if (!pass)
          snprintf(sub, sizeof sub, "got bits 0x%llx, want 0x%llx", (unsigned long long)got,
                   (unsigned long long)want);
      }
      if (!pass) {
        snprintf(why, len, "element %lld of %lld%s: %s", (long long)i, (long long)n,
                 W == 2 ? (w ? " (B)" : " (A)") : "", sub);
        return 0;
      }
    }
    if (s->exclusive) {
      if (fl) fstep(s, &fv, xf, yf);
      else istep(s, &iv, xi, yi);
    }
  }
  return 1;
}

/* ------------------------------------------------------------ histograms */

void tt_hist_reference(tally_dtype dt, const void *x, int64_t n, tally_dtype wdt, const void *w,
                       int64_t nbins, const double *edges, double lo, double hi, int clamp,
                       uint64_t *counts, double *sums, tt_hist_outside *outside) {
  memset(outside, 0, sizeof *outside);
  memset(counts, 0, (size_t)nbins * sizeof *counts);
  exactsum *acc = NULL;
  if (w) {
    acc = malloc((size_t)nbins * sizeof *acc);
    for (int64_t k = 0; k < nbins; k++) exactsum_init(&acc[k]);
  }
  double step = (hi - lo) / (double)nbins;
  for (int64_t i = 0; i < n; i++) {
    double v = tt_load_f(dt, x, i);
    if (tt_is_signed(dt) || tt_is_unsigned(dt)) v = (double)tt_load_int(dt, x, i);
    int64_t k;
    if (isnan(v)) { outside->nan++; continue; }
    double e0 = edges ? edges[0] : lo, en = edges ? edges[nbins] : hi;
    if (v < e0 || v > en) {
      if (v < e0) outside->below++;
      else outside->above++;
      if (!clamp) continue;
      k = v < e0 ? 0 : nbins - 1;
    } else {
      /* The largest k < nbins with edge(k) <= v (bisection over the edges). */
      int64_t a = 0, b = nbins; /* edge(a) <= v; b: past the last candidate */
      while (b - a > 1) {
        int64_t mid = a + (b - a) / 2;
        if ((edges ? edges[mid] : (double)mid * step + lo) <= v) a = mid;
        else b = mid;
      }
      k = a;
    }
    counts[k]++;
    if (w) exactsum_add(&acc[k], tt_load_f(wdt, w, i));
  }
  if (w) {
    for (int64_t k = 0; k < nbins; k++) sums[k] = exactsum_round(&acc[k]);
    free(acc);
  }
}

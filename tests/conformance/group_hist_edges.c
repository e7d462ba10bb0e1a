/* tally_histogram, the hard cases: weight sums that are not finite (±Inf weights, both in
 * one bin, finite weights whose sum overflows), and even bins probed right at their edges
 * (each edge and its neighbours above and below) over huge, ordinary, tiny and one-ulp
 * ranges with up to 2^20 bins, and f32 values at the f32 roundings of even edges (the GPU
 * kernels bin floats against f32 edges rounded up). Checked against tests/support/ref_scan.c (bins by
 * bisection over the documented edge formula, weights summed exactly) on random data. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elem.h"
#include "ref_scan.h"
#include "tc.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Run one f64 histogram of x (weights w or NULL) and check it against the reference;
 * counts and sums are poisoned first. 1: passed. */
static int check_hist(tc_run *R, const char *desc, const double *x, const double *w, int64_t n,
                      int64_t nb, double lo, double hi, tally_accuracy acc, double max_s) {
  uint64_t *c = malloc(sizeof(uint64_t) * (size_t)nb), *wc = malloc(sizeof(uint64_t) * (size_t)nb);
  double *s = malloc(sizeof(double) * (size_t)nb), *ws = malloc(sizeof(double) * (size_t)nb);
  memset(c, 0xa5, sizeof(uint64_t) * (size_t)nb);
  memset(s, 0xa5, sizeof(double) * (size_t)nb);
  tally_hist_spec spec;
  tally_hist_spec_init(&spec);
  spec.nbins = nb;
  spec.lo = lo;
  spec.hi = hi;
  spec.accuracy = acc;
  tally_array in = tally_array_1d((void *)x, TALLY_F64, n), wa = tally_array_1d((void *)w, TALLY_F64, n);
  tally_array ca = tally_array_1d(c, TALLY_U64, nb), sa = tally_array_1d(s, TALLY_F64, nb);
  tally_hist_stats st;
  /* Once untimed on a few values first: the time limit is for counting, not for building
   * the kernel (a cold kernel cache on a busy 2-core machine took seconds). */
  tally_array in_few = tally_array_1d((void *)x, TALLY_F64, n < 16 ? n : 16);
  tally_array w_few = tally_array_1d((void *)w, TALLY_F64, n < 16 ? n : 16);
  (void)tally_histogram(R->ctx, &in_few, w ? &w_few : NULL, &spec, &ca, w ? &sa : NULL, &st);
  memset(c, 0xa5, sizeof(uint64_t) * (size_t)nb);
  memset(s, 0xa5, sizeof(double) * (size_t)nb);
  double t0 = now_s();
  tally_status r = tally_histogram(R->ctx, &in, w ? &wa : NULL, &spec, &ca, w ? &sa : NULL, &st);
  double took = now_s() - t0;
  int pass = 1;
  if (r != TALLY_OK) {
    tc_fail(R, "%s: %s: %s", desc, tally_status_name(r), tally_errmsg(R->ctx));
    pass = 0;
    goto done;
  }
  if (took > max_s) {
    tc_fail(R, "%s: took %.2f s for %" PRId64 " values (a few milliseconds expected)", desc, took, n);
    pass = 0;
  }
  tt_hist_outside out;
  tt_hist_reference(TALLY_F64, x, n, TALLY_F64, w, nb, NULL, lo, hi, 0, wc, ws, &out);
  if (st.below != out.below || st.above != out.above || st.nan != out.nan) {
    tc_fail(R, "%s: below/above/nan %" PRId64 "/%" PRId64 "/%" PRId64 ", want %" PRId64 "/%" PRId64
            "/%" PRId64, desc, st.below, st.above, st.nan, out.below, out.above, out.nan);
    pass = 0;
  }
  for (int64_t k = 0; k < nb && pass; k++)
    if (c[k] != wc[k]) {
      double e = (double)k * ((hi - lo) / (double)nb) + lo;
      tc_fail(R, "%s: bin %" PRId64 " (edge %.17g): count %" PRIu64 ", want %" PRIu64, desc, k, e,
              c[k], wc[k]);
      pass = 0;
    }
  double mag = 0;
  for (int64_t i = 0; w && i < n; i++) mag += fabs(w[i]);
  for (int64_t k = 0; w && k < nb && pass; k++) {
    double want = ws[k], got = s[k];
    int ok;
    if (!isfinite(want)) {
      ok = isnan(want) ? isnan(got) : got == want; /* as the plain sum gives */
    } else {
      double m = (double)n + 8, u = 0x1p-53;
      double bound = u * fabs(want) + (acc == TALLY_ACCURACY_FAST ? 2 * m * u : m * 0x1p-100) * mag;
      ok = fabs(got - want) <= bound * (1 + 0x1p-20) + 0x1p-1074;
    }
    if (!ok) {
      tc_fail(R, "%s: bin %" PRId64 ": weight sum %.17g, want %.17g", desc, k, got, want);
      pass = 0;
    }
  }
done:
  free(c);
  free(wc);
  free(s);
  free(ws);
  return pass;
}

/* ±Inf weights, both in one bin (NaN, as the plain sum gives), and huge finite weights
 * whose sum overflows to ±Inf: every other bin keeps its (compensated) finite sum. */
static void nonfinite_weights(tc_run *R) {
  static const int64_t ns[] = {1000, 200003};
  for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
    for (int fast = 0; fast < 2; fast++) {
      uint64_t id;
      if (!tc_begin(R, &id)) continue;
      tt_rng rng;
      tt_rng_stream(&rng, R->seed, id);
      int64_t n = ns[ni], nb = 16;
      double *x = tc_alloc(sizeof(double) * (size_t)n), *w = tc_alloc(sizeof(double) * (size_t)n);
      for (int64_t i = 0; i < n; i++) {
        x[i] = 16 * tt_rng_unit(&rng);
        w[i] = exp(tt_rng_normal(&rng)) * (tt_rng_next(&rng) & 1 ? 1 : -1);
      }
      /* bins 1..5 get the specials, at random positions: bin b holds x in [b, b+1) */
      for (int k = 0; k < 40; k++) {
        int64_t i = (int64_t)tt_rng_below(&rng, (uint64_t)n);
        int b = 1 + k % 5;
        x[i] = b + 0.5 * tt_rng_unit(&rng);
        switch (b) {
        case 1: w[i] = INFINITY; break;                        /* +Inf */
        case 2: w[i] = -INFINITY; break;                       /* -Inf */
        case 3: w[i] = k % 2 ? INFINITY : -INFINITY; break;    /* both: NaN */
        case 4: w[i] = 0x1.fp1023 * (1 + tt_rng_unit(&rng) / 32); break; /* overflows to +Inf */
        default: w[i] = -0x1.fp1023; break;                    /* overflows to -Inf */
        }
      }
      char desc[200];
      snprintf(desc, sizeof desc, "case=%" PRIu64 " hist f64 n=%" PRId64 " weights with ±Inf and "
               "overflow, accuracy=%s", id, n, fast ? "fast" : "default");
      check_hist(R, desc, x, w, n, nb, 0, 16, fast ? TALLY_ACCURACY_FAST : TALLY_ACCURACY_DEFAULT, 60);
      free(x);
      free(w);
    }
}

/* Even bins: each edge k = k·((hi − lo)/nbins) + lo (edge nbins = hi), probed at the edge
 * and one ulp either side, over ranges whose edges may coincide (a step below the spacing
 * of doubles near lo), plus lo itself many times (the bin search must be bounded there). */
static void even_edges(tc_run *R) {
  static const struct { double lo, hi; int64_t nb; } cfg[] = {
      {-1e300, 1e300, 1 << 20},         {-3.7, 12.9, 1000},
      {0, 1, 3},                        {0, 1, 1},
      {1e15, 1e15 + 1024, 1 << 20},     {1, NAN /* one ulp above lo */, 1 << 20},
      {1e300, NAN, 65536},
      {0, 0x1p-1064 /* 1024 subnormal ulps */, 1 << 20},
      {-1e-300, 1e-300, 1 << 20},       {0x1p60, 0x1p60 + 0x1p28, 1 << 20},
      {-1, 1, 65537},                   {0, 0, 0} /* random */};
  for (size_t ci = 0; ci < sizeof cfg / sizeof *cfg; ci++) {
    uint64_t id;
    if (!tc_begin(R, &id)) continue;
    tt_rng rng;
    tt_rng_stream(&rng, R->seed, id);
    double lo = cfg[ci].lo, hi = cfg[ci].hi;
    int64_t nb = cfg[ci].nb;
    if (isnan(hi)) hi = nextafter(lo, INFINITY);
    if (nb == 0) { /* a random range and bin count */
      lo = 100 * tt_rng_normal(&rng);
      hi = lo + ldexp(1 + tt_rng_unit(&rng), (int)tt_rng_below(&rng, 40) - 20);
      nb = 1 + (int64_t)tt_rng_below(&rng, 300000);
    }
    if (tt_rng_next(&rng) & 1) { /* mirrored */
      double t = lo;
      lo = -hi;
      hi = -t;
    }
    double step = (hi - lo) / (double)nb;
    int64_t probes = nb < 4096 ? nb + 1 : 20000, nlo = 30000;
    int64_t n = 3 * (probes + 4) + nlo, m = 0;
    double *x = tc_alloc(sizeof(double) * (size_t)n);
    for (int64_t p = 0; p < probes + 4; p++) {
      int64_t k = p < probes ? (nb < 4096 ? p : (int64_t)tt_rng_below(&rng, (uint64_t)nb + 1))
                             : (p - probes) % 2 ? nb : (p - probes) * (nb - 1) / 2; /* 0, nb, nb-1 */
      double e = k == nb ? hi : (double)k * step + lo;
      x[m++] = e;
      x[m++] = nextafter(e, -INFINITY);
      x[m++] = nextafter(e, INFINITY);
    }
    while (m < n) x[m++] = lo;
    for (int64_t i = n - 1; i > 0; i--) { /* shuffle */
      int64_t j = (int64_t)tt_rng_below(&rng, (uint64_t)i + 1);
      double t = x[i];
      x[i] = x[j];
      x[j] = t;
    }
    char desc[240];
    snprintf(desc, sizeof desc, "case=%" PRIu64 " hist f64 even bins at their edges: nbins=%" PRId64
             " range [%.17g, %.17g] n=%" PRId64, id, nb, lo, hi, n);
    check_hist(R, desc, x, NULL, n, nb, lo, hi, TALLY_ACCURACY_DEFAULT, 2);
    free(x);
  }
}

/* f32 values at even edges: each edge rounded to the nearest float and the two floats on
 * either side (edge k = k·step + lo in f64, so a float can sit just below, on or above
 * it), plus ±0, the smallest subnormals, ±FLT_MAX, ±Inf and NaN; ranges with -0.0 as a
 * bound, bounds beyond FLT_MAX, a subnormal range, edges closer than a float's spacing
 * (many round to the same float), one bin, a range far from 0 against its width (lo's
 * float is off by a hundredth of a bin: HIST_FRAC's margin must take that in), bin counts
 * just past a power of two and small (CUDA's HIST_FRAC 2 reads the fraction from the
 * guess's bits, 23 - p of them for 2^p >= nbins); drop and clamp. The GPU kernels compare
 * floats with f32 edges rounded up and confirm a guess with a pair of them or its
 * fraction: every comparison must give the f64 edge's answer. */
static void f32_edges(tc_run *R) {
  static const struct { double lo, hi; int64_t nb; } cfg[] = {
      {-1, 1, 256},          {-0.0, 1, 10},          {0, 1e-40, 7},         {-1e300, 1e300, 1000},
      {-3.4e38, 3.4e38, 255}, {0.1, 0.7, 3},          {1, 1 + 0x1p-20, 1024}, {-5, 5, 1},
      {-0.3, 0.0, 2},        {1e-3, 1e4, 8191},      {1000.1, 1000.9, 256}, {-7.25, -7.0, 100},
      {0, 1, 257},           {-2.5, 3.75, 513},      {3, 4, 2},             {-1e-3, 2e-3, 129}};
  static const float specials[] = {0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 0x1p-126f, 3.4028235e38f,
                                   -3.4028235e38f, INFINITY, -INFINITY, NAN};
  for (size_t ci = 0; ci < sizeof cfg / sizeof *cfg; ci++)
    for (int clamp = 0; clamp < 2; clamp++) {
      uint64_t id;
      if (!tc_begin(R, &id)) continue;
      tt_rng rng;
      tt_rng_stream(&rng, R->seed, id);
      double lo = cfg[ci].lo, hi = cfg[ci].hi, step = (hi - lo) / (double)cfg[ci].nb;
      int64_t nb = cfg[ci].nb, ns = (int64_t)(sizeof specials / sizeof *specials);
      int64_t n = 5 * (nb + 1) + ns + 1000, m = 0;
      float *x = tc_alloc(sizeof(float) * (size_t)n);
      for (int64_t k = 0; k <= nb; k++) {
        float f = (float)(k == nb ? hi : (double)k * step + lo);
        x[m++] = f;
        x[m++] = nextafterf(f, -INFINITY);
        x[m++] = nextafterf(f, INFINITY);
        x[m++] = nextafterf(nextafterf(f, -INFINITY), -INFINITY);
        x[m++] = nextafterf(nextafterf(f, INFINITY), INFINITY);
      }
      for (int64_t i = 0; i < ns; i++) x[m++] = specials[i];
      while (m < n) x[m++] = (float)(lo + (hi - lo) * tt_rng_unit(&rng)); /* inside, at random */
      for (int64_t i = n - 1; i > 0; i--) {
        int64_t j = (int64_t)tt_rng_below(&rng, (uint64_t)i + 1);
        float t = x[i];
        x[i] = x[j];
        x[j] = t;
      }
      uint64_t *c = tc_alloc(sizeof(uint64_t) * (size_t)nb), *want = tc_alloc(sizeof(uint64_t) * (size_t)nb);
      double *unused_sums = tc_alloc(sizeof(double) * (size_t)nb);
      memset(c, 0xa5, sizeof(uint64_t) * (size_t)nb);
      tally_hist_spec spec;
      tally_hist_spec_init(&spec);
      spec.nbins = nb;
      spec.lo = lo;
      spec.hi = hi;
      spec.outside = clamp ? TALLY_HIST_CLAMP : TALLY_HIST_DROP;
      tally_array in = tally_array_1d(x, TALLY_F32, n), ca = tally_array_1d(c, TALLY_U64, nb);
      tally_hist_stats st;
      char desc[200];
      snprintf(desc, sizeof desc, "case=%" PRIu64 " hist f32 at f32 edges: nbins=%" PRId64
               " range [%.17g, %.17g] outside=%s n=%" PRId64, id, nb, lo, hi, clamp ? "clamp" : "drop", n);
      tally_status r = tally_histogram(R->ctx, &in, NULL, &spec, &ca, NULL, &st);
      if (r != TALLY_OK) {
        tc_fail(R, "%s: %s: %s", desc, tally_status_name(r), tally_errmsg(R->ctx));
      } else {
        tt_hist_outside out;
        tt_hist_reference(TALLY_F32, x, n, TALLY_F64, NULL, nb, NULL, lo, hi, clamp, want, unused_sums, &out);
        int pass = st.below == out.below && st.above == out.above && st.nan == out.nan;
        if (!pass)
          tc_fail(R, "%s: below/above/nan %" PRId64 "/%" PRId64 "/%" PRId64 ", want %" PRId64 "/%" PRId64
                  "/%" PRId64, desc, st.below, st.above, st.nan, out.below, out.above, out.nan);
        for (int64_t k = 0; k < nb && pass; k++)
          if (c[k] != want[k]) {
            tc_fail(R, "%s: bin %" PRId64 " (edge %.17g): count %" PRIu64 ", want %" PRIu64, desc, k,
                    k == nb ? hi : (double)k * step + lo, c[k], want[k]);
            pass = 0;
          }
      }
      free(x);
      free(c);
      free(want);
      free(unused_sums);
    }
}

void tc_group_hist_edges(tc_run *R) {
  nonfinite_weights(R);
  even_edges(R);
  f32_edges(R);
}

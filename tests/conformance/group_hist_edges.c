/* tally_histogram, the hard cases: weight sums that are not finite (±Inf weights, both in
 * one bin, finite weights whose sum overflows). Checked against tests/support/ref_scan.c
 * (bins by bisection over the documented edge formula, weights summed exactly) on random
 * data. */
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

void tc_group_hist_edges(tc_run *R) {
  nonfinite_weights(R);
}

/* tally_histogram's arguments, the harder cases: edges inside the outputs, the automatic
 * range of constant input at any magnitude, and the message of a failed MINMAX pass. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "rng.h"
#include "tally.h"

static tally_context *ctx;


/* The edges are read while counts and weight_sums are written: no overlap. */
static void edges_overlap(void) {
  _Alignas(64) static union { double d[64]; uint64_t u[64]; } m;
  _Alignas(64) double x[32], w[32];
  for (int i = 0; i < 32; i++) x[i] = i / 4.0, w[i] = 1;
  for (int i = 0; i < 64; i++) m.d[i] = i; /* increasing: valid edges anywhere in m */
  tally_array in = tally_array_1d(x, TALLY_F64, 32), wa = tally_array_1d(w, TALLY_F64, 32);
  tally_array co = tally_array_1d(m.u, TALLY_U64, 8), sa = tally_array_1d(m.d + 20, TALLY_F64, 8);
  tally_hist_spec sp;
  tally_hist_spec_init(&sp);
  sp.nbins = 8;
  sp.edges = m.d + 7; /* edges[0] is counts[7] */
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &sp, &co, NULL, NULL), TALLY_EINVAL, "spec->edges", "counts");
  sp.edges = m.d + 8; /* just after counts */
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &sp, &co, NULL, NULL), TALLY_OK, "");
  for (int i = 0; i < 64; i++) m.d[i] = i;
  sp.edges = m.d + 12; /* edges[8] is weight_sums[0] */
  TU_EXPECT(tally_histogram(ctx, &in, &wa, &sp, &co, &sa, NULL), TALLY_EINVAL, "spec->edges", "weight_sums");
  for (int i = 0; i < 64; i++) m.d[i] = i;
  sp.edges = m.d + 28; /* just after weight_sums */
  TU_EXPECT(tally_histogram(ctx, &in, &wa, &sp, &co, &sa, NULL), TALLY_OK, "");
}

/* The largest k < nb with lo + k·((hi − lo)/nb) <= v (the documented edge rule). */
static int64_t ref_bin(double v, double lo, double hi, int64_t nb) {
  int64_t k = 0;
  for (int64_t j = 1; j < nb; j++)
    if ((double)j * ((hi - lo) / (double)nb) + lo <= v) k = j;
  return k;
}

/* Constant input: lo < hi always, v inside [lo, hi], every element counted in v's bin. */
static void auto_constant(tt_rng *rng) {
  const double vals[] = {1e300, -1e300, 0x1p60, -0x1p60, 0x1p53, 0x1p52 + 2, DBL_MAX, -DBL_MAX, 3.0};
  for (size_t vi = 0; vi < sizeof vals / sizeof *vals; vi++)
    for (int as_int = 0; as_int < 2; as_int++) {
      double v = vals[vi];
      if (as_int && fabs(v) > 0x1p62) continue;
      int64_t n = 1 + (int64_t)tt_rng_below(rng, 500), nb = 1 + (int64_t)tt_rng_below(rng, 9);
      double *x = malloc(sizeof(double) * (size_t)n);
      int64_t *xi = malloc(sizeof(int64_t) * (size_t)n);
      uint64_t *c = malloc(sizeof(uint64_t) * (size_t)nb);
      for (int64_t i = 0; i < n; i++) x[i] = v, xi[i] = (int64_t)v;
      memset(c, 0xa5, sizeof(uint64_t) * (size_t)nb);
      tally_array in = as_int ? tally_array_1d(xi, TALLY_I64, n) : tally_array_1d(x, TALLY_F64, n);
      tally_array co = tally_array_1d(c, TALLY_U64, nb);
      tally_hist_spec sp;
      tally_hist_spec_init(&sp);
      sp.nbins = nb;
      sp.auto_range = 1;
      tally_hist_stats st;
      tally_status s = tally_histogram(ctx, &in, NULL, &sp, &co, NULL, &st);
      CHECK(s == TALLY_OK, "auto range of %g x %lld (%s): %s: %s", v, (long long)n,
            as_int ? "i64" : "f64", tally_status_name(s), tally_errmsg(ctx));
      if (s == TALLY_OK) {
        double wlo = v - 0.5 < v ? v - 0.5 : nextafter(v, -INFINITY);
        double whi = v + 0.5 > v ? v + 0.5 : nextafter(v, INFINITY);
        if (isinf(wlo)) wlo = v;
        if (isinf(whi)) whi = v;
        CHECK(st.lo < st.hi && st.lo <= v && v <= st.hi && st.lo == wlo && st.hi == whi,
              "auto range of constant %.17g: [%.17g, %.17g], want [%.17g, %.17g]", v, st.lo, st.hi,
              wlo, whi);
        int64_t k = ref_bin(v, st.lo, st.hi, nb);
        for (int64_t b = 0; b < nb; b++)
          CHECK(c[b] == (b == k ? (uint64_t)n : 0), "constant %.17g, %lld bins: bin %lld holds %llu, "
                "want %lld", v, (long long)nb, (long long)b, (unsigned long long)c[b],
                (long long)(b == k ? n : 0));
        CHECK(st.counted == n, "constant %.17g: counted %lld of %lld", v, (long long)st.counted,
              (long long)n);
      }
      free(x);
      free(xi);
      free(c);
    }
}

/* A failed MINMAX pass (here: the input's byte span covers the pass's own result buffer on
 * the stack, which tally_reduce refuses) is reported with its message intact. */
static void minmax_message(void) {
  double *heap = malloc(sizeof(double)); /* below the stack, above static data */
  double top = 1.5; /* this frame: above the frames tally_histogram calls */
  static uint64_t c[4];
  *heap = 2.5;
  int64_t stride = (int64_t)(((intptr_t)heap - (intptr_t)&top) / (intptr_t)sizeof(double));
  tally_array in = tally_array_strided(&top, TALLY_F64, 2, stride);
  tally_array co = tally_array_1d(c, TALLY_U64, 4);
  tally_hist_spec sp;
  tally_hist_spec_init(&sp);
  sp.nbins = 4;
  sp.auto_range = 1;
  tally_status s = tally_histogram(ctx, &in, NULL, &sp, &co, NULL, NULL);
  free(heap);
  if (s == TALLY_OK) { /* the stack is not where this test expects it: nothing to check */
    printf("note: the MINMAX pass did not fail here; its message is not checked\n");
    return;
  }
  const char *m = tally_errmsg(ctx);
  const char *prefix = "spec->auto_range: the MINMAX pass failed: out: its memory overlaps in (";
  CHECK(s == TALLY_EINVAL && strncmp(m, prefix, strlen(prefix)) == 0 &&
            strstr(m + 1, "spec->auto_range") == NULL,
        "failed MINMAX pass: %s: '%s', want '%s...'", tally_status_name(s), m, prefix);
}

/* spec->variant: unknown names, the GPU rung on the CPU, the rung with weights; on an
 * OpenCL device (PoCL in CI) the rung counts like best. */
static void hist_variants(tt_rng *rng) {
  enum { N = 5000, NB = 37 };
  static float x[N];
  static double w[N];
  static uint64_t best[NB], simple[NB];
  for (int i = 0; i < N; i++) x[i] = (float)(tt_rng_unit(rng) * 12.0 - 1.0), w[i] = 1;
  x[7] = NAN;
  tally_array in = tally_array_1d(x, TALLY_F32, N), wa = tally_array_1d(w, TALLY_F64, N);
  tally_array cb = tally_array_1d(best, TALLY_U64, NB), cs = tally_array_1d(simple, TALLY_U64, NB);
  static double sums[NB];
  tally_array sa = tally_array_1d(sums, TALLY_F64, NB);
  tally_hist_spec sp;
  tally_hist_spec_init(&sp);
  sp.nbins = NB;
  sp.lo = 0;
  sp.hi = 10;
  sp.variant = "best";
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &sp, &cb, NULL, NULL), TALLY_OK, "");
  sp.variant = "hist_atomic";
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &sp, &cs, NULL, NULL), TALLY_EINVAL, "spec->variant",
            "hist_atomic", "hist_simple");
  sp.variant = "hist_simple";
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &sp, &cs, NULL, NULL), TALLY_EUNSUPPORTED,
            "spec->variant", "hist_simple", "cpu");
#ifdef TALLY_TEST_SANITIZED
  const int try_opencl = 0; /* the device compiler is not ours to sanitize */
#else
  const int try_opencl = 1;
#endif
  tally_context *ocl;
  if (try_opencl && tally_open("opencl", &ocl) == TALLY_OK) {
    tally_context *keep = ctx;
    ctx = ocl;
    TU_EXPECT(tally_histogram(ctx, &in, &wa, &sp, &cs, &sa, NULL), TALLY_EUNSUPPORTED,
              "spec->variant", "weights");
    memset(simple, 0xa5, sizeof simple);
    tally_hist_stats st;
    tally_status s = tally_histogram(ctx, &in, NULL, &sp, &cs, NULL, &st);
    if (s == TALLY_EUNSUPPORTED) { /* no 64-bit atomics on this device: said so */
      TU_EXPECT(s, TALLY_EUNSUPPORTED, "atomics");
    } else {
      TU_EXPECT(s, TALLY_OK, "");
      CHECK(memcmp(best, simple, sizeof best) == 0, "opencl hist_simple: counts differ from best");
      CHECK(st.nan == 1, "opencl hist_simple: %lld NaNs, want 1", (long long)st.nan);
    }
    tally_close(ocl);
    ctx = keep;
  }
}

int main(void) {
  tt_rng rng;
  tt_rng_seed(&rng, tt_test_seed("test_histargs"));
  if (tally_open("cpu", &ctx) != TALLY_OK) {
    printf("FAIL: tally_open(cpu): %s\n", tally_errmsg(NULL));
    return 1;
  }
  edges_overlap();
  auto_constant(&rng);
  minmax_message();
  hist_variants(&rng);
  tally_close(ctx);
  return tu_done("histargs");
}

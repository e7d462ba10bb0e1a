/* tally_histogram: even bins, explicit edges and the automatic range; DROP and CLAMP;
 * NaN, ±Inf, values exactly on the edges, negative integers, every dtype; weights in
 * DEFAULT and FAST; skewed data (all in one bin); strided input; thread counts (CPU: the
 * same bits for 1, 2 and 4 threads); device arrays. Counts and outside counts are checked
 * exactly, weight sums against the exact sum, by tests/support/ref_scan.c. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "elem.h"
#include "ref_scan.h"
#include "tc.h"

#define GUARD 8

/* runs: runs of 1 to 40 equal values, each run's value drawn afresh (the GPU kernels'
 * run-length bookkeeping, and one-byte input counted four at a time, at every boundary) */
typedef enum { H_UNIFORM, H_NORMAL, H_SKEW, H_EDGES, H_RUNS, H_SPECIALS, H_KIND_COUNT } hkind;
static const char *const kind_names[] = {"uniform", "normal", "skewed", "on-edges", "runs", "nan-inf"};

typedef struct {
  tally_dtype dt;
  int64_t n, nbins;
  int range;        /* 0 even [lo, hi], 1 explicit edges, 2 automatic */
  int clamp;
  hkind kind;
  int weights;      /* 0 none, else the weights' dtype + 1 */
  tally_accuracy acc;
  int stride;       /* 1 or 3 (or -1: reversed) */
} hc_case;

static void describe(const hc_case *c, uint64_t id, const char *dev, char *buf, size_t len) {
  snprintf(buf, len, "case=%" PRIu64 " hist dtype=%s n=%" PRId64 " nbins=%" PRId64 " range=%s "
           "outside=%s data=%s weights=%s accuracy=%s stride=%d%s%s", id, tally_dtype_name(c->dt),
           c->n, c->nbins, c->range == 0 ? "even" : c->range == 1 ? "edges" : "auto",
           c->clamp ? "clamp" : "drop", kind_names[c->kind],
           c->weights ? tally_dtype_name((tally_dtype)(c->weights - 1)) : "none",
           c->acc == TALLY_ACCURACY_FAST ? "fast" : "default", c->stride, dev ? " device=" : "",
           dev ? dev : "");
}

/* A value of the data's natural range for dt: floats in about [-4, 4), integers over
 * their range (small dtypes) or ±1000 (others). */
static double span_of(tally_dtype dt, double *lo) {
  if (tt_is_float(dt)) { *lo = -4; return 8; }
  if (dt == TALLY_BOOL) { *lo = 0; return 1; }
  if (tt_size(dt) == 1) { *lo = (double)tt_int_min(dt); return (double)(tt_int_max(dt) - tt_int_min(dt)); }
  *lo = tt_is_signed(dt) ? -1000 : 0;
  return 2000;
}

static void store(tally_dtype dt, void *x, int64_t i, double v) {
  if (tt_is_float(dt)) tt_store_f(dt, x, i, v);
  else tt_store_int(dt, x, i, (__int128)floor(v));
}

/* Bins: even [lo, hi) over part of the data's range (some data outside), or edges. */
static void draw_bins(tt_rng *r, const hc_case *c, double *lo, double *hi, double *edges) {
  double base, span = span_of(c->dt, &base);
  *lo = base + span * 0.1 * tt_rng_unit(r);
  *hi = base + span * (0.9 + 0.1 * tt_rng_unit(r));
  if (!tt_is_float(c->dt) && tt_rng_next(r) & 1) { *lo = floor(*lo); *hi = ceil(*hi); } /* integer bounds */
  if (c->range == 1) {
    edges[0] = *lo;
    for (int64_t k = 1; k <= c->nbins; k++) /* variable widths */
      edges[k] = edges[k - 1] + (*hi - *lo) / (double)c->nbins * (0.25 + 1.5 * tt_rng_unit(r));
    if (!tt_is_float(c->dt) && c->nbins < 100)
      for (int64_t k = 1; k <= c->nbins; k++) /* integer edges where they stay increasing */
        if (floor(edges[k]) > edges[k - 1]) edges[k] = floor(edges[k]);
  }
}

static void draw_data(tt_rng *r, const hc_case *c, void *x, const double *edges, double lo, double hi) {
  double base, span = span_of(c->dt, &base);
  double one = base + span * tt_rng_unit(r);
  int64_t run_left = 0;
  for (int64_t i = 0; i < c->n; i++) {
    double v;
    switch (c->kind) {
    case H_RUNS:
      if (run_left-- == 0) {
        one = base + span * tt_rng_unit(r);
        run_left = (int64_t)tt_rng_below(r, 40);
      }
      v = one;
      break;
    case H_NORMAL: v = base + span / 2 + span / 6 * tt_rng_normal(r); break;
    case H_SKEW: v = one; break;
    case H_EDGES: { /* exactly on an edge (or lo, hi), sometimes just below one */
      int64_t k = (int64_t)tt_rng_below(r, (uint64_t)c->nbins + 1);
      v = edges ? edges[k] : (k == c->nbins ? hi : (double)k * ((hi - lo) / (double)c->nbins) + lo);
      if (tt_is_float(c->dt) && (tt_rng_next(r) & 3) == 0) v = nextafter(v, -INFINITY);
      break;
    }
    default: v = base + span * tt_rng_unit(r); break;
    }
    if (c->dt == TALLY_BOOL && c->kind != H_SKEW && c->kind != H_RUNS) v = (double)(tt_rng_next(r) & 1);
    if (tt_is_float(c->dt)) {
      v = fmin(fmax(v, -60000), 60000); /* within f16's range */
      if (c->kind == H_SPECIALS) {
        uint64_t t = tt_rng_below(r, 10);
        if (t == 0) v = NAN;
        else if (t == 1) v = INFINITY;
        else if (t == 2) v = -INFINITY;
      }
    } else {
      double ilo = (double)tt_int_min(c->dt), ihi = (double)tt_int_max(c->dt);
      v = fmin(fmax(v, ilo), ihi);
    }
    store(c->dt, x, i, v);
  }
}

static int all_bytes(const unsigned char *p, size_t len, unsigned char b) {
  for (size_t i = 0; i < len; i++)
    if (p[i] != b) return 0;
  return 1;
}

/* 1 passed. counts_out/sums_out receive the results when not NULL. */
static int run_on(tc_run *R, tally_context *ctx, const char *dev, const hc_case *c, uint64_t id,
                  uint64_t *counts_out, double *sums_out, int device_mem) {
  char desc[512], why[512] = "";
  describe(c, id, dev, desc, sizeof desc);
  tt_rng rng;
  tt_rng_stream(&rng, R->seed, id);
  int64_t n = c->n, nb = c->nbins, es = (int64_t)tt_size(c->dt);
  double lo, hi;
  double *edges = tc_alloc(sizeof(double) * (size_t)(nb + 1));
  draw_bins(&rng, c, &lo, &hi, edges);
  void *x = tc_alloc((size_t)(n * es) + 1);
  draw_data(&rng, c, x, c->range == 1 ? edges : NULL, lo, hi);
  tally_dtype wdt = c->weights ? (tally_dtype)(c->weights - 1) : TALLY_F64;
  void *w = NULL;
  if (c->weights) {
    w = tc_alloc((size_t)n * tt_size(wdt) + 1);
    tt_genopt g = {0, TT_NORMAL};
    tt_generate(&rng, tt_is_float(wdt) ? TT_LOGNORMAL : TT_NORMAL, wdt, w, n, &g);
  }
  /* Place the input: contiguous, stride 3, or reversed (the reference gets it in order). */
  tc_placed px = {0}, pw = {0};
  tc_layout L = c->stride == 3 ? TC_STRIDE3 : c->stride == -1 ? TC_REVERSE : TC_CONTIG;
  tc_place(L, c->dt, x, 1, n, (int)tt_rng_below(&rng, 4), &px);
  if (w) tc_place(L, wdt, w, 1, n, 0, &pw);

  tally_hist_spec spec;
  tally_hist_spec_init(&spec);
  spec.nbins = nb;
  spec.lo = lo;
  spec.hi = hi;
  spec.edges = c->range == 1 ? edges : NULL;
  spec.auto_range = c->range == 2;
  spec.outside = c->clamp ? TALLY_HIST_CLAMP : TALLY_HIST_DROP;
  spec.accuracy = c->acc;
  spec.variant = R->hist_variant;

  uint64_t *cb = tc_alloc(sizeof(uint64_t) * (size_t)(nb + 2 * GUARD));
  double *sb = tc_alloc(sizeof(double) * (size_t)(nb + 2 * GUARD));
  memset(cb, 0xa5, sizeof(uint64_t) * (size_t)(nb + 2 * GUARD));
  memset(sb, 0xa5, sizeof(double) * (size_t)(nb + 2 * GUARD));
  tally_array counts = tally_array_1d(cb + GUARD, TALLY_U64, nb);
  tally_array sums = tally_array_1d(sb + GUARD, TALLY_F64, nb);
  tally_hist_stats st;
  memset(&st, 0xa5, sizeof st);
  tally_status s;
  void *dx = NULL, *dw = NULL, *dc = NULL, *ds = NULL;
  int pass = 1;
  if (device_mem) {
    size_t xb = (size_t)(n * es) + 1, wb = w ? (size_t)n * tt_size(wdt) + 1 : 1;
    /* device_mem 2: the counts 2 apart (the gaps poisoned, and checked untouched) */
    size_t cstride = device_mem == 2 ? 2 : 1, cbytes = (size_t)nb * 8 * cstride;
    /* CUDA: the input 0-3 elements past the allocation's start (the kernels' unaligned
     * head); OpenCL device arrays are whole cl_mem buffers (tally.h). */
    size_t xoff = (size_t)tt_rng_below(&rng, 4) * (size_t)es * (strcmp(R->device, "cuda") == 0);
    s = tally_mem_alloc(ctx, xb + xoff, &dx);
    if (!s) s = tally_mem_alloc(ctx, wb, &dw);
    if (!s) s = tally_mem_alloc(ctx, cbytes, &dc);
    if (!s) s = tally_mem_alloc(ctx, (size_t)nb * 8, &ds);
    if (!s) s = tally_mem_copy(ctx, (char *)dx + xoff, TALLY_MEM_DEVICE, x, TALLY_MEM_HOST, xb - 1);
    if (!s && w) s = tally_mem_copy(ctx, dw, TALLY_MEM_DEVICE, w, TALLY_MEM_HOST, wb - 1);
    uint64_t *spread = s ? NULL : tc_alloc(cbytes);
    if (spread) {
      memset(spread, 0xa5, cbytes);
      s = tally_mem_copy(ctx, dc, TALLY_MEM_DEVICE, spread, TALLY_MEM_HOST, cbytes);
    }
    if (s) {
      free(spread);
      tc_fail(R, "%s: device memory: %s: %s", desc, tally_status_name(s), tally_errmsg(ctx));
      pass = 0;
      goto done;
    }
    tally_array din = tally_array_1d((char *)dx + xoff, c->dt, n), dwa = tally_array_1d(dw, wdt, n);
    tally_array dca = tally_array_1d(dc, TALLY_U64, nb), dsa = tally_array_1d(ds, TALLY_F64, nb);
    dca.strides[0] = (int64_t)cstride;
    din.mem = dwa.mem = dca.mem = dsa.mem = TALLY_MEM_DEVICE;
    s = tally_histogram(ctx, &din, w ? &dwa : NULL, &spec, &dca, w ? &dsa : NULL, &st);
    if (s == TALLY_EUNSUPPORTED) {
      R->skipped_device++;
      R->cases--;
      printf("  skipped (device arrays): %s: %s\n", desc, tally_errmsg(ctx));
      free(spread);
      goto done;
    }
    if (!s) s = tally_mem_copy(ctx, spread, TALLY_MEM_HOST, dc, TALLY_MEM_DEVICE, cbytes);
    for (int64_t k = 0; !s && k < nb; k++) {
      cb[GUARD + k] = spread[k * (int64_t)cstride];
      for (size_t g = 1; g < cstride; g++)
        if (spread[k * (int64_t)cstride + (int64_t)g] != 0xa5a5a5a5a5a5a5a5ULL) {
          snprintf(why, sizeof why, "wrote between the strided counts (after bin %" PRId64 ")", k);
          pass = 0;
        }
    }
    free(spread);
    if (!s && w) s = tally_mem_copy(ctx, sb + GUARD, TALLY_MEM_HOST, ds, TALLY_MEM_DEVICE, (size_t)nb * 8);
  } else {
    s = tally_histogram(ctx, &px.arr, w ? &pw.arr : NULL, &spec, &counts, w ? &sums : NULL, &st);
  }
  if (s != TALLY_OK) {
    tc_fail(R, "%s: %s: %s", desc, tally_status_name(s), tally_errmsg(ctx));
    pass = 0;
    goto done;
  }
  /* The range used: auto from the data (numpy's rules), else as given. */
  double ulo = lo, uhi = hi;
  if (c->range == 2) {
    double mn = INFINITY, mx = -INFINITY;
    for (int64_t i = 0; i < n; i++) {
      double v = tt_is_float(c->dt) ? tt_load_f(c->dt, x, i) : (double)tt_load_int(c->dt, x, i);
      if (v == v) mn = fmin(mn, v), mx = fmax(mx, v);
    }
    if (mn > mx) ulo = 0, uhi = 1;
    else if (mn == mx) ulo = mn - 0.5, uhi = mx + 0.5;
    else ulo = mn, uhi = mx;
  }
  if (c->range == 1) ulo = edges[0], uhi = edges[nb];
  uint64_t *wc = malloc(sizeof(uint64_t) * (size_t)nb);
  double *wsum = malloc(sizeof(double) * (size_t)nb);
  tt_hist_outside out;
  tt_hist_reference(c->dt, x, n, wdt, w, nb, c->range == 1 ? edges : NULL, ulo, uhi, c->clamp, wc,
                    wsum, &out);
  const uint64_t *gc = cb + GUARD;
  const double *gs = sb + GUARD;
  if (!all_bytes((unsigned char *)cb, GUARD * 8, 0xa5) || !all_bytes((unsigned char *)(cb + GUARD + nb), GUARD * 8, 0xa5) ||
      !all_bytes((unsigned char *)sb, GUARD * 8, 0xa5) || !all_bytes((unsigned char *)(sb + GUARD + nb), GUARD * 8, 0xa5)) {
    snprintf(why, sizeof why, "wrote outside counts or weight_sums");
    pass = 0;
  }
  if (pass && !w && !all_bytes((unsigned char *)gs, (size_t)nb * 8, 0xa5)) {
    snprintf(why, sizeof why, "wrote weight sums without weights");
    pass = 0;
  }
  uint64_t counted = 0;
  for (int64_t k = 0; k < nb && pass; k++) {
    counted += wc[k];
    if (gc[k] != wc[k]) {
      snprintf(why, sizeof why, "bin %" PRId64 ": count %" PRIu64 ", want %" PRIu64, k, gc[k], wc[k]);
      pass = 0;
    }
  }
  if (pass && (st.nan != out.nan || st.below != out.below || st.above != out.above || st.n != n ||
               st.counted != (int64_t)counted || st.lo != ulo || st.hi != uhi)) {
    snprintf(why, sizeof why, "stats: n %" PRId64 " counted %" PRId64 " below %" PRId64 " above %" PRId64
             " nan %" PRId64 " range [%.17g, %.17g]; want %" PRId64 " %" PRIu64 " %" PRId64 " %" PRId64
             " %" PRId64 " [%.17g, %.17g]", st.n, st.counted, st.below, st.above, st.nan, st.lo, st.hi,
             n, counted, out.below, out.above, out.nan, ulo, uhi);
    pass = 0;
  }
  if (pass && w) {
    /* The bound: one rounding, plus (DEFAULT) compensated or (FAST) plain sums' error
     * on Σ|w| (over all elements: a loose but simple magnitude). */
    double total = 0;
    for (int64_t i = 0; i < n; i++) total += fabs(tt_load_f(wdt, w, i));
    for (int64_t k = 0; k < nb && pass; k++) {
      double want = wsum[k], got = gs[k];
      double u = 0x1p-53, m = (double)n + 8;
      double bound = u * fabs(want) + (c->acc == TALLY_ACCURACY_FAST ? 2 * m * u : m * 0x1p-100) * total;
      bound = bound * (1 + 0x1p-20) + 0x1p-1074;
      double err = fabs(got - want);
      if (!(err <= bound)) {
        snprintf(why, sizeof why, "bin %" PRId64 ": weight sum %.17g, exact %.17g (error %.3g > %.3g)",
                 k, got, want, err, bound);
        pass = 0;
      }
    }
  }
  if (counts_out) memcpy(counts_out, gc, (size_t)nb * 8);
  if (sums_out && w) memcpy(sums_out, gs, (size_t)nb * 8);
  free(wc);
  free(wsum);
  if (!pass) tc_fail(R, "%s: %s", desc, why);
done:
  if (device_mem) {
    tally_mem_free(ctx, dx);
    tally_mem_free(ctx, dw);
    tally_mem_free(ctx, dc);
    tally_mem_free(ctx, ds);
  }
  tc_unplace(&px);
  if (w) tc_unplace(&pw);
  free(edges);
  free(x);
  free(w);
  free(cb);
  free(sb);
  return pass;
}

static int one(tc_run *R, const hc_case *c) {
  uint64_t id;
  if (!tc_begin(R, &id)) return 1;
  return run_on(R, R->ctx, NULL, c, id, NULL, NULL, 0);
}

void tc_group_hist(tc_run *R) {
  static const tally_dtype dts[] = {TALLY_U8, TALLY_I8, TALLY_I16, TALLY_I32, TALLY_I64, TALLY_U64,
                                    TALLY_F16, TALLY_BF16, TALLY_F32, TALLY_F64, TALLY_BOOL, TALLY_U32};
  static const int64_t ns[] = {0, 1, 17, 1000, 65537, 1048579};
  static const int64_t nbs[] = {1, 2, 7, 256, 3000, 100000};
  int rot = 0;
  for (size_t di = 0; di < sizeof dts / sizeof *dts; di++)
    for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
      for (int k = 0; k < (ns[ni] > 100000 ? 2 : 6); k++) {
        if (R->quick && ns[ni] > 100000) continue;
        rot++;
        hc_case c = {0};
        c.dt = dts[di];
        c.n = ns[ni];
        c.nbins = nbs[(rot * 5 + k) % 6];
        if (c.nbins > 3000 && ns[ni] < 65537 && (rot & 1)) c.nbins = 10;
        c.range = rot % 3;
        c.clamp = (rot / 3) & 1;
        c.kind = (hkind)((rot / 2 + k) % H_KIND_COUNT);
        if (c.kind == H_SPECIALS && !tt_is_float(c.dt)) c.kind = H_NORMAL;
        if (c.range == 2 && c.kind == H_SPECIALS) c.kind = H_EDGES; /* auto range refuses Inf */
        c.weights = rot % 4 == 1 ? TALLY_F64 + 1 : rot % 4 == 3 ? TALLY_F32 + 1 : rot % 8 == 2 ? TALLY_I32 + 1 : 0;
        if (c.nbins > 3000) c.weights = 0; /* the exact reference per bin is heavy */
        if (R->hist_variant) c.weights = 0; /* the ladder's rung counts only */
        c.acc = (rot / 4) & 1 ? TALLY_ACCURACY_FAST : TALLY_ACCURACY_DEFAULT;
        c.stride = rot % 5 == 0 ? 3 : rot % 5 == 1 ? -1 : 1;
        one(R, &c);
      }

  /* Auto range with ±Inf is refused, naming the range; all-NaN gives [0, 1]. */
  {
    uint64_t id;
    if (tc_begin(R, &id)) {
      float v[4] = {1, INFINITY, 2, NAN}, nans[3] = {NAN, NAN, NAN};
      uint64_t cnt[4];
      tally_hist_spec sp;
      tally_hist_spec_init(&sp);
      sp.nbins = 4;
      sp.auto_range = 1;
      tally_array in = tally_array_1d(v, TALLY_F32, 4), co = tally_array_1d(cnt, TALLY_U64, 4);
      tally_status s = tally_histogram(R->ctx, &in, NULL, &sp, &co, NULL, NULL);
      if (s != TALLY_EINVAL || !strstr(tally_errmsg(R->ctx), "auto_range"))
        tc_fail(R, "case=%" PRIu64 " hist auto range over +Inf: %s (%s), want TALLY_EINVAL naming "
                "auto_range", id, tally_status_name(s), tally_errmsg(R->ctx));
      tally_hist_stats st;
      in = tally_array_1d(nans, TALLY_F32, 3);
      s = tally_histogram(R->ctx, &in, NULL, &sp, &co, NULL, &st);
      if (s != TALLY_OK || st.lo != 0 || st.hi != 1 || st.nan != 3 || cnt[0] + cnt[1] + cnt[2] + cnt[3] != 0)
        tc_fail(R, "case=%" PRIu64 " hist auto range of all-NaN: %s, range [%g, %g], nan %lld", id,
                tally_status_name(s), st.lo, st.hi, (long long)st.nan);
    }
  }

  /* CPU: 1, 2 and 4 threads give the same counts and weight sums. */
  tally_context_info info;
  if (tally_context_describe(R->ctx, &info) == TALLY_OK && strcmp(info.backend, "cpu") == 0) {
    static const char *const devs[] = {"cpu:threads=1,parallel_bytes=0", "cpu:threads=2,parallel_bytes=0",
                                       "cpu:threads=4,parallel_bytes=0"};
    static const tally_dtype tdt[] = {TALLY_F32, TALLY_U8, TALLY_I64};
    for (int k = 0; k < 3; k++) {
      uint64_t id;
      if (!tc_begin(R, &id)) continue;
      hc_case c = {tdt[k], R->quick ? 200003 : 1000003, k == 1 ? 256 : 100, k, k == 2, k == 1 ? H_SKEW : H_NORMAL,
                   TALLY_F64 + 1, k == 2 ? TALLY_ACCURACY_FAST : TALLY_ACCURACY_DEFAULT, 1};
      uint64_t *cs[3];
      double *ss[3];
      int pass = 1;
      for (int t = 0; t < 3; t++) {
        cs[t] = calloc((size_t)c.nbins, 8);
        ss[t] = calloc((size_t)c.nbins, 8);
        tally_context *ctx;
        if (tally_open(devs[t], &ctx) != TALLY_OK) { pass = 0; continue; }
        pass &= run_on(R, ctx, devs[t], &c, id, cs[t], ss[t], 0);
        tally_close(ctx);
      }
      size_t b = (size_t)c.nbins * 8;
      if (pass && (memcmp(cs[0], cs[1], b) || memcmp(cs[0], cs[2], b) || memcmp(ss[0], ss[1], b) ||
                   memcmp(ss[0], ss[2], b)))
        tc_fail(R, "case=%" PRIu64 " hist %s: results differ between 1, 2 and 4 threads", id,
                tally_dtype_name(c.dt));
      for (int t = 0; t < 3; t++) free(cs[t]), free(ss[t]);
    }
  }

  /* Device arrays: counted, or skipped (and counted as skipped) where the backend cannot. */
  for (int k = 0; k < 4; k++) { /* k >= 2: counts 2 apart, and f32 without weights */
    uint64_t id;
    if (!tc_begin(R, &id)) continue;
    int u8 = k & 1;
    hc_case c = {u8 ? TALLY_U8 : TALLY_F32, 50001, k >= 2 ? 300 : 64, u8 ? 2 : 0, k == 3, H_UNIFORM,
                 k == 0 ? TALLY_F32 + 1 : 0, TALLY_ACCURACY_DEFAULT, 1};
    run_on(R, R->ctx, k >= 2 ? "device arrays, counts 2 apart" : "device arrays", &c, id, NULL, NULL,
           k >= 2 ? 2 : 1);
  }
  tc_group_hist_edges(R);
}

/* tally_scan_inplace: multi-threaded scans IN PLACE (out over the input itself), many
 * chunks each, on 2 and 8 threads, checked value by value against the serial reference of
 * tests/support/ref_scan.c (computed here from a copy of the input) and bit for bit against
 * a one-thread scan out of place (every thread count gives the same bits). A task that
 * computed another chunk's aggregate from input already overwritten by that chunk's
 * outputs gave wrong carries; the race needs repetitions to show, so each case runs a few
 * times on fresh data. Exit 0 / 1. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "elem.h"
#include "ref_scan.h"
#include "tc.h"

#define GUARD 64 /* bytes of poison on each side of every buffer */

static const char *const devices[] = {"cpu:threads=2,parallel_bytes=0",
                                      "cpu:threads=8,parallel_bytes=0"};
#define NDEV (int)(sizeof devices / sizeof devices[0])

typedef struct {
  tally_op op;
  tally_dtype dt;
  tally_accuracy acc;
} combo;

static const combo combos[] = {
    {TALLY_SUM, TALLY_I64, TALLY_ACCURACY_DEFAULT},    {TALLY_SUM, TALLY_F64, TALLY_ACCURACY_DEFAULT},
    {TALLY_SUM, TALLY_F64, TALLY_ACCURACY_FAST},       {TALLY_AFFINE, TALLY_I64, TALLY_ACCURACY_DEFAULT},
    {TALLY_AFFINE, TALLY_F64, TALLY_ACCURACY_DEFAULT},
};

static int poisoned(const unsigned char *p, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (p[i] != 0xa5) return 0;
  return 1;
}

/* A buffer of `bytes` with GUARD poisoned bytes on each side; returns the inside. */
static unsigned char *guarded(size_t bytes) {
  unsigned char *b = tc_alloc(bytes + 2 * GUARD);
  memset(b, 0xa5, bytes + 2 * GUARD);
  return b + GUARD;
}
static int guards_ok(const unsigned char *p, size_t bytes) {
  return poisoned(p - GUARD, GUARD) && poisoned(p + bytes, GUARD);
}

/* One case: fresh data, the one-thread out-of-place baseline, then the in-place scan on
 * ctx. 1: passed. */
static int one(tc_run *R, tally_context *ctx, const char *dev, tally_context *serial,
               const combo *c, int64_t n, int exclusive, int with_init) {
  uint64_t id;
  if (!tc_begin(R, &id)) return 1;
  char desc[300];
  snprintf(desc, sizeof desc, "case=%" PRIu64 " in-place scan %s %s %s n=%" PRId64 " %s init=%d on %s",
           id, tally_op_name(c->op), tally_dtype_name(c->dt),
           c->acc == TALLY_ACCURACY_FAST ? "fast" : "default", n,
           exclusive ? "exclusive" : "inclusive", with_init, dev);
  tt_rng rng;
  tt_rng_stream(&rng, R->seed, id);
  int aff = c->op == TALLY_AFFINE, W = aff ? 2 : 1;
  size_t es = tt_size(c->dt), bytes = (size_t)n * W * es;
  /* x (the a's) and y (the b's): the logical input, kept for the reference */
  void *x = tc_alloc((size_t)n * es), *y = aff ? tc_alloc((size_t)n * es) : NULL;
  if (c->dt == TALLY_I64) {
    for (int64_t i = 0; i < n; i++) ((int64_t *)x)[i] = (int64_t)tt_rng_next(&rng);
    for (int64_t i = 0; aff && i < n; i++) ((int64_t *)y)[i] = (int64_t)tt_rng_next(&rng);
  } else {
    tt_generate(&rng, aff ? TT_NEAR_ONE : TT_NORMAL, c->dt, x, n, NULL);
    if (aff) tt_generate(&rng, TT_NORMAL, c->dt, y, n, NULL);
  }
  unsigned char init[16];
  for (int w = 0; w < W; w++) {
    if (c->dt == TALLY_I64) tt_store_int(c->dt, init, w, (__int128)(int64_t)tt_rng_next(&rng));
    else tt_store_f(c->dt, init, w, aff && w == 0 ? 1 + 0.01 * tt_rng_normal(&rng) : tt_rng_normal(&rng));
  }
  tally_scan_options o;
  tally_scan_options_init(&o);
  o.exclusive = exclusive;
  o.init = with_init ? init : NULL;
  o.accuracy = c->acc;

  /* The data as the library sees it: one array, or (a, b) interleaved. */
  unsigned char *io = guarded(bytes), *base = guarded(bytes), *warm = guarded(bytes);
  for (int64_t i = 0; i < n; i++) {
    memcpy(io + (size_t)(i * W) * es, (char *)x + i * es, es);
    if (aff) memcpy(io + (size_t)(i * W + 1) * es, (char *)y + i * es, es);
  }
  tally_array in = tally_array_strided(io, c->dt, n, W);
  tally_array in2 = tally_array_strided(io + es, c->dt, n, W);
  tally_array out = aff ? tally_array_2d(io, c->dt, n, 2) : tally_array_1d(io, c->dt, n);
  tally_array bout = aff ? tally_array_2d(base, c->dt, n, 2) : tally_array_1d(base, c->dt, n);
  tally_array wout = aff ? tally_array_2d(warm, c->dt, n, 2) : tally_array_1d(warm, c->dt, n);
  const tally_array *in2p = aff ? &in2 : NULL;
  int pass = 1;
  const char *what = "";
  char why[600] = "";
  tally_status st = tally_scan(serial, c->op, &in, in2p, &bout, &o);
  if (st) what = "the one-thread baseline";
  /* wake the threads (an out-of-place call), so that even the smallest sizes run on all */
  if (!st && (st = tally_scan(ctx, c->op, &in, in2p, &wout, &o))) what = "the warm-up call";
  if (!st && (st = tally_scan(ctx, c->op, &in, in2p, &out, &o))) what = "the in-place call";
  if (st) {
    tc_fail(R, "%s: %s: %s: %s", desc, what, tally_status_name(st), tally_errmsg(ctx));
    pass = 0;
  } else if (!guards_ok(io, bytes) || !guards_ok(base, bytes)) {
    tc_fail(R, "%s: wrote outside the output", desc);
    pass = 0;
  } else {
    tt_scan_spec spec = {c->op, c->dt, c->acc, TALLY_NAN_PROPAGATE, exclusive, o.init};
    double worst = 0;
    if (!tt_scan_check(&spec, x, y, n, NULL, io, &worst, why, sizeof why)) {
      tc_fail(R, "%s: %s", desc, why);
      pass = 0;
    } else if (memcmp(io, base, bytes) != 0) {
      size_t b = 0;
      while (io[b] == base[b]) b++;
      tc_fail(R, "%s: value %zu differs from the one-thread scan out of place", desc, b / es);
      pass = 0;
    }
  }
  free(x);
  free(y);
  free(io - GUARD);
  free(base - GUARD);
  free(warm - GUARD);
  return pass;
}

/* Many small in-place SUM scans of i64 (exact: checked against a serial sum here), fresh
 * data each time: before the fix about one in a hundred of these went wrong. */
static void stress(tc_run *R, tally_context *ctx, const char *dev, int reps) {
  uint64_t id;
  if (!tc_begin(R, &id)) return;
  tt_rng rng;
  tt_rng_stream(&rng, R->seed, id);
  const int64_t n = 9 * 32768 + 5;
  int64_t *x = tc_alloc(sizeof(int64_t) * (size_t)n), *want = tc_alloc(sizeof(int64_t) * (size_t)n);
  int64_t *warm = tc_alloc(sizeof(int64_t) * (size_t)n);
  int bad = 0;
  for (int r = 0; r < reps && !bad; r++) {
    uint64_t acc = 0;
    for (int64_t i = 0; i < n; i++) {
      x[i] = (int64_t)tt_rng_next(&rng);
      acc += (uint64_t)x[i];
      want[i] = (int64_t)acc;
    }
    tally_array a = tally_array_1d(x, TALLY_I64, n), w = tally_array_1d(warm, TALLY_I64, n);
    tally_status st = tally_scan(ctx, TALLY_SUM, &a, NULL, &w, NULL);
    if (!st) st = tally_scan(ctx, TALLY_SUM, &a, NULL, &a, NULL);
    if (st) {
      tc_fail(R, "case=%" PRIu64 " in-place stress on %s: %s: %s", id, dev, tally_status_name(st),
              tally_errmsg(ctx));
      bad = 1;
    }
    for (int64_t i = 0; i < n && !bad; i++)
      if (x[i] != want[i]) {
        tc_fail(R, "case=%" PRIu64 " in-place stress sum i64 n=%" PRId64 " on %s: run %d of %d: "
                "element %" PRId64 " is %" PRId64 ", want %" PRId64, id, n, dev, r + 1, reps, i,
                x[i], want[i]);
        bad = 1;
      }
  }
  free(x);
  free(want);
  free(warm);
}

int main(int argc, char **argv) {
  tc_run R;
  memset(&R, 0, sizeof R);
  R.only_case = argc > 2 && strcmp(argv[1], "--case") == 0 ? strtoll(argv[2], NULL, 10) : -1;
  R.seed = tt_test_seed("tally_scan_inplace");
  tally_context *serial, *ctx[NDEV];
  if (tally_open("cpu:threads=1", &serial) != TALLY_OK) {
    printf("FAIL: tally_open(cpu:threads=1): %s\n", tally_errmsg(NULL));
    return 1;
  }
  for (int d = 0; d < NDEV; d++)
    if (tally_open(devices[d], &ctx[d]) != TALLY_OK) {
      printf("FAIL: tally_open(%s): %s\n", devices[d], tally_errmsg(NULL));
      return 1;
    }
  /* chunks are 2^15 elements: 5, 17 and 64 of them (the last one partial) */
  /* The race showed at the start of a scan, where chunks' totals are not yet computed
   * ahead: small scans, many times, and a larger one. */
  const int64_t C = 32768, sizes[] = {3 * C + 7, 5 * C - 13, 17 * C + 11};
#ifdef TALLY_TEST_SANITIZED
  const int scale = 1;
#else
  const int scale = 2;
#endif
  const int reps[] = {2 * scale, scale, scale};
  int k = 0;
  for (int d = 0; d < NDEV; d++)
    for (size_t ci = 0; ci < sizeof combos / sizeof *combos; ci++)
      for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
        for (int ex = 0; ex < 2; ex++)
          for (int r = 0; r < reps[si]; r++, k++)
            one(&R, ctx[d], devices[d], serial, &combos[ci], sizes[si], ex, (k >> 1) & 1);
  for (int d = 0; d < NDEV; d++) stress(&R, ctx[d], devices[d], 500 * scale);
  for (int d = 0; d < NDEV; d++) tally_close(ctx[d]);
  tally_close(serial);
  printf("%s: %" PRId64 " cases, %" PRId64 " failures (seed %" PRIu64 ")\n",
         R.failures ? "FAILED" : "PASSED", R.cases, R.failures, R.seed);
  return R.failures ? 1 : 0;
}

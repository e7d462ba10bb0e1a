/* test_gpu_scan_repeat: a GPU scan gives the same bits every run (SEMANTICS.md, scans,
 * "Backends"). The carries of f64 sums, products and AFFINE are not exact; their grouping
 * is fixed by the tile numbers alone (the tree of src/gpu/scan.clh), not by which tiles
 * happen to be done when a tile looks back, or (the compensated f64 sum's bins) they are
 * one function of the tiles' totals in any grouping. Each case scans thousands of tiles (far more
 * than the GPU holds at once, so tiles finish out of order) several times, the output
 * poisoned before each run, and compares every output's bits with the first run's; and
 * checks every output against a long double reference (a scan that wrote garbage the same
 * way each time must still fail). Fresh random data, mixed signs and magnitudes, seed
 * logged (TALLY_TEST_SEED repeats a run). Then more than two rounds of the scan kernel's
 * epochs (its tile slots are not cleared between scans), every output checked exactly.
 *
 * Exit 0: passed; 1: failures; 77: no CUDA device here (skipped). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_util.h"
#include "rng.h"

enum { RUNS = 4 };
/* 1,229-6,145 tiles of each case's shape (src/cuda/scan.c): by default the radix-32 tree of
 * carries for all but f64 AFFINE, whose 6,145 tiles take the binary indexed tree, and the
 * compensated f64 sum, which carries in bins. */
static const int64_t N = 3 * (INT64_C(1) << 22) + 77;

typedef struct {
  const char *name;
  tally_op op;
  tally_dtype dt;
  tally_accuracy acc;
  int segments; /* head flags about every 1000 elements */
} scase;

static const scase cases[] = {
    {"f64 SUM default", TALLY_SUM, TALLY_F64, TALLY_ACCURACY_DEFAULT, 0},
    {"f64 SUM default, segmented", TALLY_SUM, TALLY_F64, TALLY_ACCURACY_DEFAULT, 1},
    {"f64 SUM fast", TALLY_SUM, TALLY_F64, TALLY_ACCURACY_FAST, 0},
    {"f64 PROD", TALLY_PROD, TALLY_F64, TALLY_ACCURACY_DEFAULT, 0},
    {"f32 PROD", TALLY_PROD, TALLY_F32, TALLY_ACCURACY_DEFAULT, 0},
    {"f64 AFFINE", TALLY_AFFINE, TALLY_F64, TALLY_ACCURACY_DEFAULT, 0},
};

static double get(const void *p, tally_dtype dt, int64_t i) {
  return dt == TALLY_F64 ? ((const double *)p)[i] : (double)((const float *)p)[i];
}
static void set(void *p, tally_dtype dt, int64_t i, double v) {
  if (dt == TALLY_F64) ((double *)p)[i] = v;
  else ((float *)p)[i] = (float)v;
}

/* Sums: magnitudes from 2^-20 to 2^20 and both signs, so every grouping rounds
 * differently. Products and AFFINE's a: near 1, so millions of them stay finite. */
static void fill(const scase *c, void *x, void *y, uint8_t *flags, tt_rng *r) {
  for (int64_t i = 0; i < N; i++) {
    double v;
    if (c->op == TALLY_SUM) {
      v = (tt_rng_unit(r) + 0.01) * ldexp(1.0, (int)tt_rng_below(r, 41) - 20);
      if (tt_rng_below(r, 2)) v = -v;
    } else {
      v = 1.0 + (tt_rng_unit(r) - 0.5) * 2e-3;
    }
    set(x, c->dt, i, v);
    if (y) set(y, c->dt, i, (tt_rng_unit(r) - 0.5) * 8.0);
    if (flags) flags[i] = tt_rng_below(r, 1000) == 0;
  }
}

/* Every output against the long double scan: within 1e-9 (f32 results: 2e-7) of the scale (SUM: the prefix
 * of |x| in its segment; PROD: the value; AFFINE: each of A and the prefix of |a|, |b|). */
static int64_t check_ref(const scase *c, const void *x, const void *y, const uint8_t *flags,
                         const void *out) {
  const long double tol = c->dt == TALLY_F64 ? 1e-9L : 2e-7L; /* f32: the result's rounding */
  long double s = 0, sa = 0, A = 1, B = 0, Babs = 0;
  for (int64_t i = 0; i < N; i++) {
    double v = get(x, c->dt, i);
    if (c->op == TALLY_SUM) {
      if (i == 0 || (flags && flags[i])) s = sa = 0;
      s += v;
      sa += fabs(v);
      if (fabsl(get(out, c->dt, i) - s) > tol * sa + 1e-300L) return i;
    } else if (c->op == TALLY_PROD) {
      A *= v;
      if (fabsl(get(out, c->dt, i) - A) > tol * fabsl(A)) return i;
    } else { /* AFFINE: (A, B) after element i maps t -> a[i](...(a[0] t + b[0])...) + b[i] */
      double b = get(y, c->dt, i);
      A *= v;
      B = v * B + b;
      Babs = fabs(v) * Babs + fabs(b);
      if (fabsl(get(out, c->dt, 2 * i) - A) > tol * fabsl(A) ||
          fabsl(get(out, c->dt, 2 * i + 1) - B) > tol * Babs + 1e-300L)
        return i;
    }
  }
  return -1;
}

static void run_case(tally_context *gpu, const scase *c, uint64_t seed, int ci) {
  const size_t es = tally_dtype_size(c->dt), width = c->op == TALLY_AFFINE ? 2 : 1;
  void *x = malloc((size_t)N * es), *y = c->op == TALLY_AFFINE ? malloc((size_t)N * es) : NULL;
  uint8_t *flags = c->segments ? malloc((size_t)N) : NULL;
  unsigned char *first = malloc((size_t)N * es * width), *out = malloc((size_t)N * es * width);
  if (!x || !first || !out || (c->op == TALLY_AFFINE && !y) || (c->segments && !flags)) {
    TG_CHECK(0, "%s: no host memory", c->name);
    goto done;
  }
  tt_rng r;
  tt_rng_stream(&r, seed, (uint64_t)ci);
  fill(c, x, y, flags, &r);
  tally_array in = tally_array_1d(x, c->dt, N), in2 = tally_array_1d(y, c->dt, N);
  tally_array o = width == 2 ? tally_array_2d(out, c->dt, N, 2) : tally_array_1d(out, c->dt, N);
  tally_scan_options opt;
  tally_scan_options_init(&opt);
  opt.accuracy = c->acc;
  opt.flags = flags;
  int64_t differing = 0, first_diff = -1;
  for (int run = 0; run < RUNS; run++) {
    tg_poison(out, (size_t)N * es * width);
    tally_status s = tally_scan(gpu, c->op, &in, y ? &in2 : NULL, &o, &opt);
    TG_CHECK(s == TALLY_OK, "%s: tally_scan: %s: %s", c->name, tally_status_name(s), tally_errmsg(gpu));
    if (s != TALLY_OK) goto done;
    if (run == 0) {
      memcpy(first, out, (size_t)N * es * width);
      int64_t bad = check_ref(c, x, y, flags, out);
      TG_CHECK(bad < 0, "%s: output %lld is off the long double reference", c->name, (long long)bad);
      continue;
    }
    for (int64_t i = 0; i < N * (int64_t)width; i++)
      if (memcmp(first + i * es, out + i * es, es) != 0) {
        if (first_diff < 0) first_diff = i;
        differing++;
      }
  }
  TG_CHECK(differing == 0, "%s: %lld output values changed bits between runs (the first: %lld)",
           c->name, (long long)differing, (long long)first_diff);
  printf("%-28s %lld elements, %d runs: %s\n", c->name, (long long)N, RUNS,
         differing ? "bits changed" : "same bits");
done:
  free(x);
  free(y);
  free(flags);
  free(first);
  free(out);
}

/* scan_1pass does not clear its tile slots between scans: each scan writes them under an
 * epoch of its own and ignores the others (src/gpu/scan.clh), and the slots are cleared
 * every TALLY__SCAN_EPOCHS (1024) scans. Here more than two rounds of epochs of i64 SUM
 * scans on device arrays, sizes growing and shrinking (a small scan after a large one
 * finds the large one's slots, written under another epoch), each output poisoned first
 * and checked exactly against the wrapping sum. */
static void epochs(tally_context *gpu, uint64_t seed) {
  static const int64_t sizes[] = {300001, 1, 4097, 70000, 7, 3 * 4096, 150001, 2 * 4096 + 1};
  const int nsizes = (int)(sizeof sizes / sizeof sizes[0]), calls = 2 * 1024 + 41;
  const int64_t nmax = 300001 + 2;
  int64_t *x = malloc((size_t)nmax * 8), *got = malloc((size_t)nmax * 8);
  void *dx = NULL, *dout = NULL;
  tally_status s = x && got ? TALLY_OK : TALLY_ENOMEM;
  if (!s) s = tally_mem_alloc(gpu, (size_t)nmax * 8, &dx);
  if (!s) s = tally_mem_alloc(gpu, (size_t)nmax * 8, &dout);
  tt_rng r;
  tt_rng_stream(&r, seed, 1000);
  for (int64_t i = 0; x && i < nmax; i++) x[i] = (int64_t)tt_rng_next(&r);
  if (!s) s = tally_mem_copy(gpu, dx, TALLY_MEM_DEVICE, x, TALLY_MEM_HOST, (size_t)nmax * 8);
  TG_CHECK(s == TALLY_OK, "epochs: set-up: %s", tally_status_name(s));
  int failed = 0;
  for (int k = 0; !s && k < calls && failed < 5; k++) {
    const int64_t n = sizes[k % nsizes], off = k % 3; /* the data move under the tiles */
    memset(got, 0xa5, (size_t)n * 8);
    s = tally_mem_copy(gpu, dout, TALLY_MEM_DEVICE, got, TALLY_MEM_HOST, (size_t)n * 8);
    tally_array in = tally_array_1d((char *)dx + 8 * off, TALLY_I64, n);
    tally_array o = tally_array_1d(dout, TALLY_I64, n);
    in.mem = o.mem = TALLY_MEM_DEVICE;
    if (!s) s = tally_scan(gpu, TALLY_SUM, &in, NULL, &o, NULL);
    if (!s) s = tally_mem_copy(gpu, got, TALLY_MEM_HOST, dout, TALLY_MEM_DEVICE, (size_t)n * 8);
    TG_CHECK(s == TALLY_OK, "epochs: scan %d (n=%lld): %s: %s", k, (long long)n,
             tally_status_name(s), tally_errmsg(gpu));
    if (s) break;
    uint64_t sum = 0;
    int64_t bad = -1;
    for (int64_t i = 0; i < n && bad < 0; i++) {
      sum += (uint64_t)x[off + i];
      if ((uint64_t)got[i] != sum) bad = i;
    }
    TG_CHECK(bad < 0, "epochs: scan %d (n=%lld, data from %lld): element %lld is %lld, want %lld",
             k, (long long)n, (long long)off, (long long)bad, bad < 0 ? 0LL : (long long)got[bad],
             bad < 0 ? 0LL : (long long)sum);
    failed += bad >= 0;
  }
  tally_mem_free(gpu, dx);
  tally_mem_free(gpu, dout);
  free(x);
  free(got);
}

int main(int argc, char **argv) {
  const char *device = argc > 1 ? argv[1] : "cuda";
  setvbuf(stdout, NULL, _IOLBF, 0);
  tally_context *gpu;
  int rc = tg_open(device, &gpu);
  if (rc) return rc;
  uint64_t seed = tt_test_seed("test_gpu_scan_repeat");
  for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) run_case(gpu, &cases[i], seed, i);
  epochs(gpu, seed);
  tally_close(gpu);
  return tg_done("test_gpu_scan_repeat");
}

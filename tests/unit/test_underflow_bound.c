/* The conformance reference's PROD and AFFINE bounds (tests/support/ref_float.c) on data
 * that underflow the accumulator and then rise, against the CPU backend: the sequential
 * variant and the best one (1 thread, every ISA this CPU runs; 3 threads).
 *
 * The reference used to add underflow as m·t (t: the accumulator's smallest subnormal),
 * as if an error made below the normal range stayed that small; a rise after a subnormal
 * stretch multiplies it by the rise. Two kinds of data, per accumulator (f64, or f32 for
 * f32 FAST):
 *   forward: a few near-one maps with ordinary b's, a drop (two or eight factors whose
 *     product is just under the normal range, f64 2^-1040, f32 2^-130), a hold of
 *     near-one a's (each product rounds there) with tiny b's, a rise (about 2^1000, f32
 *     2^120) last. Index order underflows: the sequential variant must exceed the old
 *     bound (checked on f64; an f32 result's final rounding, 2^-24, hides what an f64
 *     accumulator loses at this depth, and f32 FAST's sequential variant accumulates in
 *     f64).
 *   reverse: the rise first, near-one maps, then from a quarter in the drop and the hold.
 *     Index order never underflows (the rise keeps the prefix normal), but a part
 *     composed from the identity (the CPU's pieces and chunks, the GPUs' blocks) does,
 *     and its A's error is carried by the rise before it: the bound must count earlier
 *     factors as well as later ones.
 * Every result must pass the reference (tt_reference, tt_check), whose bound must still
 * pin it: below M/16, M = |A| or B's recurrence on magnitudes, where M is 2^24 times the
 * smallest normal and more (B cancels: its value may be far smaller).
 * How many results would have failed the old bound, and the bound with later factors
 * alone (t·(T + (m+1)·Q), T = Σ P_k, Q = max P_k), is printed. The same data scanned
 * (PROD, AFFINE; f64, f32 FAST) against ref_scan.c's reference, every output checked. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "elem.h"
#include "ref.h"
#include "ref_scan.h"
#include "rng.h"
#include "tally.h"

enum { FWD, REV };
static const char *const kind_name[] = {"forward", "reverse"};

/* ±[1, 2)·2^e. */
static double pow2r(tt_rng *r, int e, int sign) {
  double v = ldexp(1.0 + tt_rng_unit(r), e);
  return sign && tt_rng_below(r, 2) ? -v : v;
}

/* x: the a's, y: the b's (AFFINE), n elements of dtype dt; acc32: an f32 accumulator. */
static void fill(int kind, tally_dtype dt, int acc32, int64_t n, void *x, void *y, tt_rng *r) {
  const int f64 = dt == TALLY_F64;
  /* The drop's and the rise's factors: k of 2^de·[1, 2) and k of 2^re·[1, 2) (k·de is
   * at most the level under the normal range; k·re brings it back near 2^-40, f32 2^-10). */
  const int k = acc32 || f64 ? 2 : 8;
  const int de = acc32 ? -65 : f64 ? -520 : -130, re = acc32 ? 60 : f64 ? 500 : 125;
  /* The hold's b's: f64 subnormals of 2^-1074..2^-1050; f32 FAST's 2^-149..2^-140; zero
   * for f32 data in an f64 accumulator (the rise would carry them past f32's range). */
  const int blo = acc32 ? -149 : -1074, bhi = acc32 ? -141 : -1051;
  const int64_t pre = (int64_t)tt_rng_below(r, (uint64_t)(n / 16 < 16 ? n / 16 + 1 : 17));
  for (int64_t i = 0; i < n; i++) {
    double a = (tt_rng_below(r, 16) ? 1.0 : -1.0) * (1.0 - 0x1p-20 * tt_rng_unit(r));
    int be = blo + (int)tt_rng_below(r, (uint64_t)(bhi - blo + 1));
    double b = f64 || acc32 ? ldexp(1.0 + tt_rng_unit(r), be) : 0.0;
    tt_store_f(dt, x, i, a);
    tt_store_f(dt, y, i, b);
  }
  /* The drop's first element: reverse puts it a quarter in, past the CPU's first piece
   * (which holds the rise), so that the piece it starts composes from the identity. */
  int64_t d = kind == FWD ? pre : n / 4 + pre;
  int64_t u = kind == FWD ? n - k : 0;     /* the rise's */
  for (int64_t i = kind == FWD ? 0 : k; i < d; i++)
    tt_store_f(dt, y, i, pow2r(r, -4 + (int)tt_rng_below(r, 8), 1));
  for (int64_t i = d; i < d + k; i++) tt_store_f(dt, x, i, pow2r(r, de, 1));
  for (int64_t i = u; i < u + k; i++) tt_store_f(dt, x, i, pow2r(r, re, 0));
}

/* The old bound (ref_float.c before the fix) and the later-factors-only one, from the
 * long double composition, for value w (0: A or the product, 1: B); *mag: |A| or the
 * recurrence on magnitudes for B. */
static void old_bounds(const tt_spec *s, tally_dtype rd, const void *x, const void *y, int64_t n, int w,
                       double *old, double *later, long double *mag) {
  long double Aabs = 1, Babs = 0, T = 0, Q = 0, A = 1, B = 0;
  for (int64_t i = 0; i < n; i++) {
    long double a = tt_load_f(s->dt, x, i), b = y ? tt_load_f(s->dt, y, i) : 0;
    A *= a, B = a * B + b;
    Aabs *= fabsl(a), Babs = fabsl(a) * Babs + fabsl(b);
    T = fabsl(a) * T + 1, Q = fmaxl(fabsl(a) * Q, 1);
  }
  int fast = s->acc == TALLY_ACCURACY_FAST && !s->sequential;
  double u = tt_unit(rd), ua = fast ? u : 0x1p-53, t = fast ? 0x1p-149 : 0x1p-1074;
  double tr = rd == TALLY_F64 ? 0x1p-1074 : 0x1p-150, m = (double)n;
  long double rel = w ? (2 * m + 2) * ua * Babs + u * fabsl(B) + m * 0x1p-63 * Babs
                      : (m + 1) * ua * Aabs + u * fabsl(A) + m * 0x1p-63 * Aabs;
  *mag = w ? Babs : Aabs;
  *old = (double)(rel + m * t) + tr;
  *later = (double)(rel + t * (T + (m + 1) * Q)) + tr;
}

/* Outputs of an inclusive scan (no init) over the old bound of ref_scan.c's fcheck, which
 * added underflow as 4(k+8)·t. */
static long scan_over_old(tally_op op, tally_dtype dt, int fast, const void *x, const void *y, int64_t n,
                          tally_dtype rd, const void *out) {
  const int W = op == TALLY_AFFINE ? 2 : 1;
  const double ua = dt != TALLY_F64 && fast ? 0x1p-24 : 0x1p-53, t = ua == 0x1p-24 ? 0x1p-149 : 0x1p-1074;
  long double A = 1, B = 0, MA = 1, MB = 0;
  long over = 0;
  for (int64_t i = 0; i < n; i++) {
    long double a = tt_load_f(dt, x, i), b = W == 2 ? tt_load_f(dt, y, i) : 0;
    A *= a, B = a * B + b, MA *= fabsl(a), MB = fabsl(a) * MB + fabsl(b);
    double k = (double)(i + 1) + 8;
    for (int w = 0; w < W; w++) {
      long double want = w ? B : A, mag = w ? MB : MA;
      double bound = (double)(tt_unit(rd) * fabsl(want) + 4 * k * ua * mag) * (1 + 0x1p-20) +
                     (rd == TALLY_F64 ? 0x1p-1074 : 0x1p-150) + 4 * k * t;
      over += fabsl(tt_load_f(rd, out, i * W + w) - want) > bound;
    }
  }
  return over;
}

#define NCTX 5
static tally_context *ctx[NCTX];
static const char *const ctx_name[NCTX] = {"cpu:threads=1", "cpu:threads=1,isa=scalar",
                                           "cpu:threads=1,isa=avx2", "cpu:threads=1,isa=avx512",
                                           "cpu:threads=3"};
/* Context 0 runs the sequential variant, the others the best. */

int main(void) {
  uint64_t seed = tt_test_seed("test_underflow_bound");
  for (int c = 0; c < NCTX; c++) {
    if (tally_open(ctx_name[c], &ctx[c]) != TALLY_OK) ctx[c] = NULL;
    if (c < 2) CHECK(ctx[c] != NULL, "%s does not open: %s", ctx_name[c], tally_errmsg(NULL));
  }
  if (!ctx[0] || !ctx[1]) return tu_done("underflow_bound");

  static const int64_t sizes[] = {40, 600, 5000, 70000, 1100001};
  const int64_t nmax = sizes[sizeof sizes / sizeof *sizes - 1];
  void *x = malloc((size_t)nmax * 8), *y = malloc((size_t)nmax * 8);
  static const struct { tally_dtype dt; tally_accuracy acc; } cfgs[] = {
      {TALLY_F64, TALLY_ACCURACY_DEFAULT},
      {TALLY_F32, TALLY_ACCURACY_DEFAULT},
      {TALLY_F32, TALLY_ACCURACY_FAST}};
  uint64_t stream = 0;
  for (int op2 = 0; op2 < 2; op2++)
    for (size_t ci = 0; ci < sizeof cfgs / sizeof *cfgs; ci++)
      for (int kind = 0; kind < 2; kind++) {
        const tally_op op = op2 ? TALLY_AFFINE : TALLY_PROD;
        const tally_dtype dt = cfgs[ci].dt;
        const int acc32 = cfgs[ci].acc == TALLY_ACCURACY_FAST;
        /* Per context: cases, over the old bound, over the later-only one, the worst
         * error / bound. */
        long runs[NCTX] = {0}, over_old[NCTX] = {0}, over_later[NCTX] = {0};
        double worst[NCTX] = {0};
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
          const int64_t n = sizes[si];
          if (acc32 && n > 5000) continue; /* (m + 1)·2^-24 and more: the bound pins little */
          tt_rng r;
          tt_rng_stream(&r, seed, ++stream);
          fill(kind, dt, acc32, n, x, y, &r);
          for (int c = 0; c < NCTX; c++) {
            if (!ctx[c]) continue;
            tt_spec s = {op, dt, cfgs[ci].acc, TALLY_NAN_PROPAGATE, 0, c == 0};
            tt_expect e;
            tt_reference(&s, x, op == TALLY_AFFINE ? y : NULL, n, &e);
            tally_options opt;
            tally_options_init(&opt);
            opt.accuracy = cfgs[ci].acc;
            if (c == 0) opt.variant = "sequential";
            unsigned char out[16];
            memset(out, 0x5a, sizeof out); /* poison: 1.5e16 (f32), 2e127 (f64): far from any result */
            tally_array in = tally_array_1d(x, dt, n), in2 = tally_array_1d(y, dt, n);
            tally_array o = tally_array_1d(out, e.rdtype, e.width);
            char what[200];
            snprintf(what, sizeof what, "%s %s%s %s n=%lld on %s%s (stream %llu)", tally_op_name(op),
                     tally_dtype_name(dt), acc32 ? " fast" : "", kind_name[kind], (long long)n, ctx_name[c],
                     c == 0 ? " sequential" : "", (unsigned long long)stream);
            tally_status st = tally_reduce(ctx[c], op, &in, op == TALLY_AFFINE ? &in2 : NULL, &o, &opt);
            CHECK(st == TALLY_OK, "%s: %s", what, tally_errmsg(ctx[c]));
            if (st != TALLY_OK) continue;
            int oo = 0, ol = 0;
            for (int w = 0; w < e.width; w++) {
              double ratio;
              char why[300];
              CHECK(e.v[w].kind == TT_K_NEAR, "%s: value %d: the reference is not a bound", what, w);
              CHECK(tt_check(&e, w, out, w, &ratio, why, sizeof why), "%s: %s", what, why);
              double got = tt_load_f(e.rdtype, out, w), err = (double)fabsl((long double)got - e.v[w].val);
              double old, later;
              long double mag;
              old_bounds(&s, e.rdtype, x, op == TALLY_AFFINE ? y : NULL, n, w, &old, &later, &mag);
              if (mag >= (e.rdtype == TALLY_F64 ? 0x1p-998L : 0x1p-102L))
                CHECK(e.v[w].bound < mag / 16, "%s: value %d: bound %g pins little of %Lg (magnitude %Lg)",
                      what, w, e.v[w].bound, e.v[w].val, mag);
              oo |= err > old, ol |= err > later;
              if (ratio > worst[c]) worst[c] = ratio;
            }
            runs[c]++, over_old[c] += oo, over_later[c] += ol;
          }
        }
        for (int c = 0; c < NCTX; c++)
          if (runs[c])
            printf("%s %s%s %s on %s%s: %ld cases, %ld over the old bound, %ld over later factors' alone; "
                   "worst error/bound %.3g\n",
                   tally_op_name(op), tally_dtype_name(dt), acc32 ? " fast" : "", kind_name[kind],
                   ctx_name[c], c == 0 ? " sequential" : "", runs[c], over_old[c], over_later[c], worst[c]);
        /* The data do what they are for: index order over f64 underflows, and the
         * sequential variant's error shows it (the old bound fails, the later-factors one
         * holds). */
        if (kind == FWD && dt == TALLY_F64) {
          CHECK(over_old[0] > 0, "%s %s forward, sequential: no case over the old bound", tally_op_name(op),
                tally_dtype_name(dt));
          CHECK(over_later[0] == 0, "%s %s forward, sequential: over the later-factors bound",
                tally_op_name(op), tally_dtype_name(dt));
        }
      }
  /* Scans: each output a prefix composition, the reference ref_scan.c's (tt_scan_check),
   * on the best scan with 1 and 3 threads. */
  void *out = malloc((size_t)nmax * 16);
  for (int op2 = 0; op2 < 2; op2++)
    for (int fast = 0; fast < 2; fast++)
      for (int kind = 0; kind < 2; kind++) {
        const tally_op op = op2 ? TALLY_AFFINE : TALLY_PROD;
        const tally_dtype dt = fast ? TALLY_F32 : TALLY_F64;
        long runs = 0, over_old = 0;
        double worst = 0;
        for (size_t si = 1; si < sizeof sizes / sizeof *sizes; si++) {
          const int64_t n = sizes[si];
          if (fast && n > 5000) continue;
          tt_rng r;
          tt_rng_stream(&r, seed, ++stream);
          fill(kind, dt, fast, n, x, y, &r);
          tt_scan_spec ss = {op, dt, fast ? TALLY_ACCURACY_FAST : TALLY_ACCURACY_DEFAULT,
                             TALLY_NAN_PROPAGATE, 0, NULL};
          int ok;
          const tally_dtype rd = tt_scan_rdtype(op, dt, &ok);
          const int W = op == TALLY_AFFINE ? 2 : 1;
          for (int c = 1; c < NCTX; c += 3) {
            tally_scan_options so;
            tally_scan_options_init(&so);
            so.accuracy = ss.acc;
            memset(out, 0x5a, (size_t)(n * W) * tt_size(rd)); /* poison */
            tally_array in = tally_array_1d(x, dt, n), in2 = tally_array_1d(y, dt, n);
            tally_array o = tally_array_1d(out, rd, n * W);
            char what[200], why[500];
            snprintf(what, sizeof what, "scan %s %s%s %s n=%lld on %s (stream %llu)", tally_op_name(op),
                     tally_dtype_name(dt), fast ? " fast" : "", kind_name[kind], (long long)n, ctx_name[c],
                     (unsigned long long)stream);
            tally_status st = tally_scan(ctx[c], op, &in, op == TALLY_AFFINE ? &in2 : NULL, &o, &so);
            CHECK(st == TALLY_OK, "%s: %s", what, tally_errmsg(ctx[c]));
            if (st != TALLY_OK) continue;
            CHECK(tt_scan_check(&ss, x, op == TALLY_AFFINE ? y : NULL, n, NULL, out, &worst, why, sizeof why),
                  "%s: %s", what, why);
            runs++;
            over_old += scan_over_old(op, dt, fast, x, y, n, rd, out) > 0;
          }
        }
        printf("scan %s %s%s %s: %ld cases, %ld with outputs over the old bound; worst error/bound %.3g\n",
               tally_op_name(op), tally_dtype_name(dt), fast ? " fast" : "", kind_name[kind], runs, over_old,
               worst);
        if (kind == FWD && !fast)
          CHECK(over_old > 0, "scan %s f64 forward: no case over the old bound", tally_op_name(op));
      }
  free(out);
  free(x);
  free(y);
  for (int c = 0; c < NCTX; c++) tally_close(ctx[c]);
  return tu_done("underflow_bound");
}

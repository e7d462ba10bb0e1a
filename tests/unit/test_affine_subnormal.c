/* AFFINE on f32 and f64 data that keep the ACCUMULATOR's products subnormal for long
 * stretches (f64 data and f32 DEFAULT accumulate in f64, f32 FAST in f32: src/cpu/kernels.c,
 * affine_body), against a reference in long double, and the same bits for 1, 2 and 3
 * threads and every ISA this CPU runs. It also prints (does not check) the time per element
 * of such data against ordinary data: subnormal products take microcode assists on Intel.
 *
 * Why the data look as they do. The kernel composes each chunk in 8 pieces, each from the
 * identity, so a product that is subnormal in the sequential order need not be in a piece:
 * the product must fall below the normal range inside a piece. An "episode" is a drop (a few
 * a's whose product is about 2^-1040, f32 FAST 2^-131: 34 or 18 bits left), a hold of
 * thousands of a's in (1 - 2^-20, 1] (either sign), over which the product and, with tiny
 * b's, B stay subnormal and every multiplication rounds there, then a rise (about 2^1000,
 * f32 FAST 2^121) that brings what the hold left back up, so that its rounding (or a flush
 * to zero) shows in the result. A rise can't undo a drop (2^1040 overflows): a third
 * element, a power of two far from both (no chunk of 2^16 holds the rise and it, no piece
 * the next drop and it), brings the whole product back near 1 before the next drop, so
 * that the merges of the chunks' parts see subnormal products too, not zeros. Episodes are
 * 150000 elements and more apart. f32 DEFAULT keeps the episode's b's zero: the rise would
 * carry them past f32's range. Kinds: one episode over the whole input (drop first, rise
 * last), several episodes, and a random mix of near-one a's with rare tiny ones and of
 * normal and subnormal b's. NaNs are sprinkled on the near-one maps, propagated and ignored.
 *
 * The bound. No bound is documented for AFFINE reductions (SEMANTICS.md; the conformance
 * reference, tests/support/ref_float.c, added underflow as m·2^-1074, not amplified: a rise
 * after a subnormal stretch amplifies it, in any order, the sequential one included; it
 * now amplifies it, see tt_amp_step there and tests/unit/test_underflow_bound.c). Each
 * rounding of the accumulator errs by at most u of its value or by t (the accumulator's
 * smallest subnormal) below the normal range, and the error is then multiplied by the
 * product P_k of the later a's. So |r - v| <= (ops)·u·M + t·(sum of P_k + merges·max P_k)
 * + the final rounding, M the recurrence on magnitudes; ops per map: 1 for A, 2 for B, plus
 * 8 merges per chunk of at least 2^12 maps (7 of pieces, 1 of chunks). B has one more
 * term: a partial's A is merged into B as A·B', B' the B of the partial before it, so a
 * subnormal rounding of that A (t) reaches B as t·|B'|·P_k. The bound takes |B'| at most
 * the largest magnitude recurrence so far, and counts only the maps where some partial's
 * product can be below the normal range, plus the merges where any can (seed
 * 216962505923943: a piece's A of 63·t after a tiny a, merged into a B of 2^10.6, put B
 * 408·t off where the other terms allowed 240). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "rng.h"
#include "tally.h"

/* A CHECK that prints only the first 30 failures. */
#define CHECKQ(cond, ...)                                           \
  do {                                                              \
    if (tu_failures < 30) CHECK(cond, __VA_ARGS__);                 \
    else tu_checks++, tu_failures += !(cond);                       \
  } while (0)

/* The data, per accumulator. */
typedef struct {
  int dn, de, rn, re;   /* a drop: dn a's of 2^de·[1, 2); a rise: rn a's of 2^re·[1, 2) */
  int hb_lo, hb_hi;     /* exponents of the hold's b's (lo > hi: ±0) */
  int ob_lo, ob_hi;     /* exponents of the other b's */
  int sub_lo, sub_hi;   /* the mix's tiny a's and tiny b's */
} shape;
static const shape SH_F64 = {2, -520, 2, 500, -1074, -1050, -1074, -1000, -1074, -1023};
static const shape SH_F32_IN_F64 = {8, -130, 8, 124, 1, 0, -149, -100, -149, -127};
static const shape SH_F32_FAST = {2, -66, 2, 60, -149, -142, -149, -100, -149, -127};

enum { K_ONE, K_EPISODES, K_MIX, NKIND };
static const char *const kind_name[] = {"one episode", "episodes", "mix"};
#define SLOT 150000 /* elements per episode, at least (fill) */
#define GAP 12000   /* the timings' episodes: a piece (8159 + 271 elements at most) holds one drop */

static double load(int f64, const void *p, int64_t i) {
  return f64 ? ((const double *)p)[i] : (double)((const float *)p)[i];
}
static void put(int f64, void *p, int64_t i, double v) {
  if (f64) ((double *)p)[i] = v;
  else ((float *)p)[i] = (float)v;
}
static double sgn(tt_rng *r, uint64_t odds) { return tt_rng_below(r, odds) == 0 ? -1.0 : 1.0; }
/* ±[1, 2)·2^e, e uniform in [lo, hi]; ±0 if lo > hi. */
static double pow2r(tt_rng *r, int lo, int hi) {
  double s = sgn(r, 2);
  if (lo > hi) return s * 0.0;
  return s * ldexp(1.0 + tt_rng_unit(r), lo + (int)tt_rng_below(r, (uint64_t)(hi - lo + 1)));
}
static double hold_a(tt_rng *r) { return sgn(r, 16) * (1.0 - 0x1p-20 * tt_rng_unit(r)); }

/* x (the a's) and y (the b's) of one kind. Episodes (kind K_EPISODES): gap 0 for the
 * checks, a gap for the timings (every gap elements: the whole product underflows to zero,
 * the pieces' don't). */
static void fill(int f64, const shape *sh, int kind, int64_t n, int64_t gap, void *x, void *y, tt_rng *r) {
  if (kind == K_MIX) {
    for (int64_t i = 0; i < n; i++) {
      put(f64, x, i, tt_rng_below(r, 4096) == 0 ? pow2r(r, sh->sub_lo, sh->sub_hi)
                                               : sgn(r, 8) * (1.0 + (tt_rng_unit(r) - 0.5) * 0x1p-6));
      put(f64, y, i, tt_rng_below(r, 2) ? pow2r(r, sh->sub_lo, sh->sub_hi) : pow2r(r, -10, 10));
    }
    return;
  }
  for (int64_t i = 0; i < n; i++) put(f64, x, i, hold_a(r)), put(f64, y, i, pow2r(r, sh->ob_lo, sh->ob_hi));
  const int64_t len = sh->dn + sh->rn;
  int64_t E = kind == K_ONE ? 1 : gap ? n / gap : n / SLOT, slot;
  E = E < 1 ? 1 : E, slot = n / E;
  for (int64_t e = 0; e < E; e++) {
    int64_t p = e * slot + (kind == K_ONE ? 0 : (int64_t)tt_rng_below(r, (uint64_t)(E > 1 && !gap ? slot / 8 : slot / 4 + 1)));
    int64_t room = (e + 1) * slot - p - len;
    if (room < 1) { /* too short for a rise: a drop alone, where it fits */
      for (int64_t i = p; i < p + sh->dn && i < n; i++) put(f64, x, i, pow2r(r, sh->de, sh->de));
      continue;
    }
    int64_t H = kind == K_ONE ? room
                : E > 1 && !gap ? 4096 + (int64_t)tt_rng_below(r, (uint64_t)slot / 4)
                                : room / 2 + (int64_t)tt_rng_below(r, (uint64_t)room / 2 + 1);
    long double net = 1;
    for (int64_t i = p; i < p + sh->dn; i++) put(f64, x, i, pow2r(r, sh->de, sh->de)), net *= load(f64, x, i);
    for (int64_t i = p; i < p + len + H; i++) put(f64, y, i, pow2r(r, sh->hb_lo, sh->hb_hi));
    for (int64_t i = p + sh->dn + H; i < p + len + H; i++) put(f64, x, i, fabs(pow2r(r, sh->re, sh->re))), net *= load(f64, x, i);
    /* The recovery, a power of two 65536 and more after the rise (no chunk holds both,
     * whose product would overflow) and a piece and more before the next drop (which it
     * would lift out of the subnormal range), brings the whole product back near 1, so
     * that the next drop leaves it subnormal, not zero. */
    if (E > 1 && !gap) put(f64, x, (e + 1) * slot - 8500 - (int64_t)tt_rng_below(r, 4096), ldexp(1.0, -ilogbl(net)));
  }
}

/* Quiet NaNs (either sign) in a or b of about n/2000 near-one maps. */
static void add_nans(int f64, void *x, void *y, int64_t n, tt_rng *r) {
  for (int64_t k = 1 + n / 2000; k > 0; k--) {
    int64_t i = (int64_t)tt_rng_below(r, (uint64_t)n);
    double a = fabs(load(f64, x, i));
    if (a >= 0.5 && a <= 2) put(f64, tt_rng_below(r, 2) ? x : y, i, sgn(r, 2) * NAN);
  }
}

/* The sequential composition in long double (64-bit mantissa, no underflow here) and the
 * bounds of the header. */
typedef struct {
  long double A, B, eA, eB;
  int nanA, nanB;
} ref_t;
static ref_t reference(int f64, int fast, int ign, const void *x, const void *y, int64_t n) {
  const int acc64 = f64 || !fast;
  const long double sub_exp = acc64 ? -1022 : -126; /* log2 of the accumulator's least normal */
  long double A = 1, B = 0, Aabs = 1, Babs = 0, T = 0, Q = 0;
  long double L = 0, Lmax = 0, Hb = 0, TA = 0; /* the A term of B's bound (header) */
  int64_t m = 0;
  ref_t R = {0, 0, 0, 0, 0, 0};
  for (int64_t i = 0; i < n; i++) {
    double a = load(f64, x, i), b = load(f64, y, i);
    if (isnan(a) || isnan(b)) {
      if (ign) continue;
      R.nanA |= isnan(a), R.nanB |= isnan(b); /* B is NaN; A goes on (a NaN b leaves it a number) */
      if (isnan(b)) b = 0;
    }
    long double fa = fabsl((long double)a);
    /* Can some partial's A that ends here be subnormal? The smallest |product| of a's
     * ending here is 2^(L - Lmax), Lmax over the earlier prefixes and the empty one. */
    L += fa > 0 ? log2l(fa) : -INFINITY;
    const int sub_here = L - Lmax < sub_exp + 1;
    Lmax = L > Lmax ? L : Lmax;
    Hb = Babs > Hb ? Babs : Hb; /* bounds |B| of any partial ending before this map */
    TA = fa * TA + (sub_here ? Hb : 0); /* Σ P_k·Hb over the A roundings that may be subnormal */
    A = a * A;
    B = a * B + b;
    Aabs = fa * Aabs;
    Babs = fa * Babs + fabs(b);
    T = fa * T + 1; /* Σ P_k */
    Q = fa * Q > 1 ? fa * Q : 1; /* max P_k */
    m++;
  }
  const long double ua = acc64 ? 0x1p-53L : 0x1p-24L, t = acc64 ? 0x1p-1074L : 0x1p-149L;
  const long double ur = f64 ? 0x1p-53L : 0x1p-24L, tr = f64 ? 0x1p-1074L : 0x1p-149L;
  const long double M = 8.0L * (n / 4096 + 1) + 8, under = t * (T + M * Q);
  R.A = A, R.B = B;
  R.eA = (m + M + 1) * ua * Aabs + ur * fabsl(A) + m * 0x1p-62L * Aabs + under + tr;
  const long double underA = t * (TA + (TA > 0 ? M * Q * Hb : 0));
  R.eB = (2 * m + 2 * M + 2) * ua * Babs + ur * fabsl(B) + m * 0x1p-62L * Babs + under + underA + tr;
  return R;
}

#define NCTX 9
static tally_context *ctx[NCTX];
static char ctx_name[NCTX][40];
static double worst[2]; /* the largest error / bound of A and of B over the cases (printed) */
static void note_worst(int k, long double err, long double bound) {
  if (bound > 0 && (double)(err / bound) > worst[k]) worst[k] = (double)(err / bound);
}

/* Result k (0: A, 1: B) of out as long double, and its bits. */
static long double val(int f64, const unsigned char *out, int k) {
  if (f64) { double d; memcpy(&d, out + 8 * k, 8); return d; }
  float f; memcpy(&f, out + 4 * k, 4); return f;
}
static int same_bits(int f64, const unsigned char *a, const unsigned char *b) {
  for (int k = 0; k < 2; k++) {
    long double va = val(f64, a, k), vb = val(f64, b, k);
    if (!(isnan(va) && isnan(vb)) && memcmp(a + k * (f64 ? 8 : 4), b + k * (f64 ? 8 : 4), f64 ? 8 : 4)) return 0;
  }
  return 1;
}

/* One case on every context: threads=1 scalar against the reference, the others bit for bit
 * against it. */
static void run_case(int f64, int fast, int ign, const void *x, const void *y, int64_t n, const char *what) {
  ref_t R = reference(f64, fast, ign, x, y, n);
  tally_options opt;
  tally_options_init(&opt);
  opt.accuracy = fast ? TALLY_ACCURACY_FAST : TALLY_ACCURACY_DEFAULT;
  opt.nan = ign ? TALLY_NAN_IGNORE : TALLY_NAN_PROPAGATE;
  tally_dtype dt = f64 ? TALLY_F64 : TALLY_F32;
  unsigned char first[16];
  int have = 0;
  for (int c = 0; c < NCTX; c++) {
    if (!ctx[c]) continue;
    unsigned char out[16];
    memset(out, 0x5a, sizeof out); /* poison: 1.5e16 (f32), 2e127 (f64): far from any result */
    tally_array in = tally_array_1d((void *)x, dt, n), in2 = tally_array_1d((void *)y, dt, n);
    tally_array o = tally_array_1d(out, dt, 2);
    tally_status s = tally_reduce(ctx[c], TALLY_AFFINE, &in, &in2, &o, &opt);
    CHECKQ(s == TALLY_OK, "%s on %s: %s", what, ctx_name[c], tally_errmsg(ctx[c]));
    if (s != TALLY_OK) continue;
    if (have) {
      CHECKQ(same_bits(f64, out, first), "%s: %s gives (%La, %La), %s (%La, %La)", what, ctx_name[c],
             val(f64, out, 0), val(f64, out, 1), ctx_name[0], val(f64, first, 0), val(f64, first, 1));
      continue;
    }
    memcpy(first, out, sizeof out), have = 1;
    long double gA = val(f64, out, 0), gB = val(f64, out, 1);
    if (!R.nanA && !R.nanB) note_worst(0, fabsl(gA - R.A), R.eA), note_worst(1, fabsl(gB - R.B), R.eB);
    if (R.nanA) CHECKQ(isnan(gA), "%s: A = %La, expected NaN", what, gA);
    else CHECKQ((R.nanB && isnan(gA)) || fabsl(gA - R.A) <= R.eA, "%s: A = %La, expected %La ± %La (off by %La)",
                what, gA, R.A, R.eA, fabsl(gA - R.A));
    if (R.nanA || R.nanB) CHECKQ(isnan(gB), "%s: B = %La, expected NaN", what, gB);
    else CHECKQ(fabsl(gB - R.B) <= R.eB, "%s: B = %La, expected %La ± %La (off by %La)", what, gB, R.B, R.eB,
                fabsl(gB - R.B));
  }
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
/* The best of 5 calls (after one), in ns per element. */
static double time_affine(tally_context *c, int f64, int fast, void *x, void *y, int64_t n) {
  tally_options opt;
  tally_options_init(&opt);
  opt.accuracy = fast ? TALLY_ACCURACY_FAST : TALLY_ACCURACY_DEFAULT;
  tally_dtype dt = f64 ? TALLY_F64 : TALLY_F32;
  unsigned char out[16];
  tally_array in = tally_array_1d(x, dt, n), in2 = tally_array_1d(y, dt, n), o = tally_array_1d(out, dt, 2);
  double best = INFINITY;
  for (int k = 0; k < 6; k++) {
    double t0 = now();
    tally_status s = tally_reduce(c, TALLY_AFFINE, &in, &in2, &o, &opt);
    double t = now() - t0;
    CHECK(s == TALLY_OK, "timing: %s", tally_errmsg(c));
    if (k > 0 && t < best) best = t;
  }
  return best * 1e9 / (double)n;
}

int main(void) {
  uint64_t seed = tt_test_seed("test_affine_subnormal");
  static const char *const isas[] = {"scalar", "avx2", "avx512"};
  for (int t = 1; t <= 3; t++)
    for (int k = 0; k < 3; k++) {
      int c = 3 * (t - 1) + k;
      snprintf(ctx_name[c], sizeof ctx_name[c], "cpu:threads=%d,isa=%s", t, isas[k]);
      if (tally_open(ctx_name[c], &ctx[c]) != TALLY_OK) ctx[c] = NULL;
      if (k == 0) CHECK(ctx[c] != NULL, "%s does not open: %s", ctx_name[c], tally_errmsg(NULL));
      if (ctx[c]) printf("affine_subnormal: %s\n", ctx_name[c]);
    }
  if (!ctx[0]) return tu_done("affine_subnormal");

  /* Small, around the pieces (n/8 > 64: pieces of n/8 - 33, the rest to the last piece) and
   * the chunks (2^12 .. 2^16), and over 4 MiB (threads used: cpu:parallel_bytes and the
   * 4 MiB under which a sleeping pool is not woken, src/cpu/reduce.c). */
  static const int64_t sizes[] = {1, 2, 7, 8, 9, 63, 64, 65, 519, 520, 521, 528, 529, 4095, 4096, 4097,
                                  4096 * 3 + 520, 30001, 65536 * 8 + 520, 1100001};
  const int64_t nmax = sizes[sizeof sizes / sizeof *sizes - 1];
  void *x = malloc((size_t)nmax * 8), *y = malloc((size_t)nmax * 8);
  uint64_t stream = 0;
  long cases = 0;
  for (int f64 = 0; f64 < 2; f64++)
    for (int fast = 0; fast < 2; fast++) {
      const shape *sh = f64 ? &SH_F64 : fast ? &SH_F32_FAST : &SH_F32_IN_F64;
      for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int kind = 0; kind < NKIND; kind++)
          for (int nans = 0; nans < 2; nans++) {
            int64_t n = sizes[s];
            tt_rng r;
            tt_rng_stream(&r, seed, ++stream);
            fill(f64, sh, kind, n, 0, x, y, &r);
            if (nans) add_nans(f64, x, y, n, &r);
            for (int ign = 0; ign < 2; ign++) {
              char what[160];
              snprintf(what, sizeof what, "%s %s n=%lld %s%s, NaNs %s (stream %llu)", f64 ? "f64" : "f32",
                       fast ? "fast" : "default", (long long)n, kind_name[kind], nans ? " with NaNs" : "",
                       ign ? "ignored" : "propagated", (unsigned long long)stream);
              run_case(f64, fast, ign, x, y, n, what);
              cases++;
            }
          }
    }
  printf("affine_subnormal: %ld cases; the largest error over its bound: A %.3g, B %.3g\n", cases, worst[0], worst[1]);
  free(x);
  free(y);

  /* Timing (printed, not checked), default threads and ISA: subnormal-heavy data (episodes
   * every GAP elements, without the recovery, which drive the whole product to zero but keep the
   * pieces' products and B subnormal over their holds) against the same hold a's with
   * b's of ordinary size (products stay near 1). */
  const int64_t tn = (int64_t)1 << 24;
  tally_context *tc = NULL;
  x = malloc((size_t)tn * 8), y = malloc((size_t)tn * 8);
  if (x && y && tally_open("cpu", &tc) == TALLY_OK) {
    for (int k = 0; k < 3; k++) {
      int f64 = k == 0, fast = k == 2;
      const shape *sh = f64 ? &SH_F64 : fast ? &SH_F32_FAST : &SH_F32_IN_F64;
      tt_rng r;
      tt_rng_stream(&r, seed, ++stream);
      fill(f64, sh, K_EPISODES, tn, GAP, x, y, &r);
      double sub = time_affine(tc, f64, fast, x, y, tn);
      for (int64_t i = 0; i < tn; i++) put(f64, x, i, hold_a(&r)), put(f64, y, i, pow2r(&r, -4, 4));
      double nor = time_affine(tc, f64, fast, x, y, tn);
      printf("timing: affine %s%s subnormal %.3f ns/elem, normal %.3f ns/elem, ratio %.2f (n=2^24)\n",
             f64 ? "f64" : "f32", f64 ? "" : fast ? " fast" : " default", sub, nor, sub / nor);
    }
  }
  tally_close(tc);
  free(x);
  free(y);
  for (int c = 0; c < NCTX; c++) tally_close(ctx[c]);
  return tu_done("affine_subnormal");
}

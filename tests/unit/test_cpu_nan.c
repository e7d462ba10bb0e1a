/* The CPU float kernels with NaNs in the input, AVX2 against scalar: the AVX2 build runs
 * its own loops in 256-bit registers (src/cpu/kernels.c, TALLY_AVX2_HALVES) that must give
 * the generic lanes' bits, NaNs ignored or propagated. For each float dtype, op, accuracy
 * and NaN mode, with NaNs at the start, the middle, the tail, in every lane, at random or
 * everywhere (or Infinities and no NaN), at sizes around the kernels' blocks, the result bits (and the status) of
 * "cpu:isa=avx2" must be those of "cpu:isa=scalar". The data cancel (the second half
 * mirrors the first, negated, with a last bit changed here and there), so the result is
 * small beside the partial sums and a lane added in another order, or a NaN not masked,
 * shows in the result's bits. Two NaN results count as equal (NaN payloads are
 * unspecified). Exit 77 where the CPU has no AVX2 (nothing compared). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "tally.h"

static const tally_dtype dts[] = {TALLY_F32, TALLY_F64, TALLY_F16, TALLY_BF16};
static const tally_op ops[] = {TALLY_SUM,  TALLY_MEAN,   TALLY_PROD,   TALLY_DOT,    TALLY_SUMSQ,
                               TALLY_NORM2, TALLY_VAR,   TALLY_STD,    TALLY_MIN,    TALLY_MAX,
                               TALLY_MINMAX, TALLY_ARGMIN, TALLY_ARGMAX};
static const int64_t sizes[] = {1, 2, 31, 32, 33, 64, 65, 127, 128, 129, 1000, 2047, 2048, 2080, 4097, 6208, 65536 + 7, 140001};
enum { PAT_NONE, PAT_START, PAT_MIDDLE, PAT_TAIL, PAT_LANES, PAT_RANDOM, PAT_ALL, PAT_INF, NPAT };
static const char *const patname[] = {"none", "start", "middle", "tail", "every lane", "random", "all", "Inf (no NaN)"};

static uint64_t rng(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 11;
}
static double unif(uint64_t *s) { return (double)(rng(s) & ((1ull << 52) - 1)) * 0x1p-52; } /* [0, 1) */

/* Is the result value at p (dtype rd) a NaN? */
static int is_nan(tally_dtype rd, const unsigned char *p) {
  uint64_t b8;
  uint32_t b4;
  uint16_t b2;
  switch (rd) {
  case TALLY_F64: memcpy(&b8, p, 8); return (b8 & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
  case TALLY_F32: memcpy(&b4, p, 4); return (b4 & 0x7fffffffu) > 0x7f800000u;
  case TALLY_F16: memcpy(&b2, p, 2); return (b2 & 0x7fffu) > 0x7c00u;
  case TALLY_BF16: memcpy(&b2, p, 2); return (b2 & 0x7fffu) > 0x7f80u;
  default: return 0;
  }
}

/* Same bits, value by value, but two NaNs count as equal: a NaN result's payload and sign
 * are unspecified (SEMANTICS.md, "NaN"; the NaN-propagating AVX2 paths do differ there). */
static int same(tally_op op, tally_dtype dt, const unsigned char *a, const unsigned char *b) {
  tally_dtype rd;
  if (tally_result_dtype(op, dt, &rd) != TALLY_OK) return memcmp(a, b, 16) == 0;
  size_t sz = rd == TALLY_F64 || rd == TALLY_I64 || rd == TALLY_U64 ? 8 : rd == TALLY_F32 ? 4 : 2;
  for (int v = 0; v < tally_result_width(op); v++)
    if (memcmp(a + v * sz, b + v * sz, sz) != 0 && !(is_nan(rd, a + v * sz) && is_nan(rd, b + v * sz))) return 0;
  return memcmp(a + tally_result_width(op) * sz, b + tally_result_width(op) * sz, 16 - tally_result_width(op) * sz) == 0;
}

static void put(tally_dtype dt, void *x, int64_t i, double v) {
  switch (dt) {
  case TALLY_F64: ((double *)x)[i] = v; break;
  case TALLY_F32: ((float *)x)[i] = (float)v; break;
  case TALLY_F16: ((uint16_t *)x)[i] = tally_f32_to_f16((float)v); break;
  default: ((uint16_t *)x)[i] = tally_f32_to_bf16((float)v); break;
  }
}
static double get(tally_dtype dt, const void *x, int64_t i) {
  switch (dt) {
  case TALLY_F64: return ((const double *)x)[i];
  case TALLY_F32: return ((const float *)x)[i];
  case TALLY_F16: return tally_f16_to_f32(((const uint16_t *)x)[i]);
  default: return tally_bf16_to_f32(((const uint16_t *)x)[i]);
  }
}
/* Element i one step up or down in its own type's bits (a last bit changed). */
static void nudge(tally_dtype dt, void *x, int64_t i, int up) {
  switch (dt) {
  case TALLY_F64: { uint64_t b; memcpy(&b, (double *)x + i, 8); b += up ? 1 : -1; memcpy((double *)x + i, &b, 8); break; }
  case TALLY_F32: { uint32_t b; memcpy(&b, (float *)x + i, 4); b += up ? 1 : -1; memcpy((float *)x + i, &b, 4); break; }
  default: ((uint16_t *)x)[i] = (uint16_t)(((uint16_t *)x)[i] + (up ? 1 : -1)); break;
  }
}
/* A quiet NaN of either sign. */
static void put_nan(tally_dtype dt, void *x, int64_t i, int neg) {
  switch (dt) {
  case TALLY_F64: { uint64_t b = 0x7ff8000000000000ull | (uint64_t)neg << 63; memcpy((double *)x + i, &b, 8); break; }
  case TALLY_F32: { uint32_t b = 0x7fc00000u | (uint32_t)neg << 31; memcpy((float *)x + i, &b, 4); break; }
  case TALLY_F16: ((uint16_t *)x)[i] = (uint16_t)(0x7e00u | (unsigned)neg << 15); break;
  default: ((uint16_t *)x)[i] = (uint16_t)(0x7fc0u | (unsigned)neg << 15); break;
  }
}

/* kind 0: values spread over many binades, the second half the first's mirror image
 * negated, with last bits nudged (sums, dot products and variances cancel); kind 1: near
 * 1, either sign (products stay in range); kind 2: as kind 0 over the dtype's whole range
 * (subnormals and f16's largest values included), mirrored exactly, the middle element
 * (n odd) zero. The results are 16- and 32-bit floats' in f32: kind 0's cancellation
 * leaves a result too large for f32 to show the f64 lanes' rounding, while kind 2's exact
 * sums (and DOT's) are 0, and what the lanes leave is their rounding, order and all. */
static void fill(tally_dtype dt, void *x, int64_t n, int kind, uint64_t seed) {
  int emin = dt == TALLY_F16 ? -7 : dt == TALLY_F64 ? -30 : -20, emax = -emin;
  if (kind == 2) {
    emin = dt == TALLY_F16 ? -24 : dt == TALLY_BF16 || dt == TALLY_F32 ? -140 : -60;
    emax = dt == TALLY_F16 ? 15 : dt == TALLY_BF16 || dt == TALLY_F32 ? 126 : 60;
  }
  for (int64_t i = 0; i < n; i++) {
    double v;
    if (kind == 1) v = (rng(&seed) & 1 ? -1.0 : 1.0) * (1.0 + (unif(&seed) - 0.5) * 0x1p-6);
    else v = (rng(&seed) & 1 ? -1.0 : 1.0) * ldexp(1.0 + unif(&seed), (int)(rng(&seed) % (uint64_t)(emax - emin + 1)) + emin);
    if (dt == TALLY_F16 && fabs(v) >= 65504.0) v = v < 0 ? -65504.0 : 65504.0; /* stay finite */
    put(dt, x, i, v);
  }
  if (kind != 1)
    for (int64_t i = 0; i < n / 2; i++) {
      put(dt, x, n - 1 - i, -get(dt, x, i));
      if (kind == 0 && rng(&seed) % 3 == 0) nudge(dt, x, n - 1 - i, (int)(rng(&seed) & 1));
    }
  if (kind == 2 && n % 2) put(dt, x, n / 2, 0.0);
}

/* +Inf (x) times zero (y) in the first third, -Inf further on: DOT's product there is a
 * NaN that "NaNs ignored" keeps (only NaN inputs are dropped), SUMSQ's is +Inf. */
static void add_infs(tally_dtype dt, void *x, void *y, int64_t n) {
  put(dt, x, n / 3, INFINITY);
  put(dt, y, n / 3, 0.0);
  if (n > 2) put(dt, x, 2 * n / 3, -INFINITY);
}

static void add_nans(tally_dtype dt, void *x, int64_t n, int pat, uint64_t seed) {
  switch (pat) {
  case PAT_START: put_nan(dt, x, 0, 0); break;
  case PAT_MIDDLE: put_nan(dt, x, n / 2, 1); break;
  case PAT_TAIL: put_nan(dt, x, n - 1, 0); break;
  case PAT_LANES: /* a NaN every 17 elements: every lane of every kernel, in turn */
    for (int64_t i = 3 % n; i < n; i += 17) put_nan(dt, x, i, (int)(i & 1));
    break;
  case PAT_RANDOM:
    for (int64_t i = 0; i < n; i++)
      if (rng(&seed) % 5 == 0) put_nan(dt, x, i, (int)(rng(&seed) & 1));
    break;
  case PAT_ALL:
    for (int64_t i = 0; i < n; i++) put_nan(dt, x, i, (int)(i & 1));
    break;
  default: break;
  }
}

/* The result's bits (zero-padded to 16 bytes) and status. */
static tally_status run(tally_context *ctx, tally_op op, tally_dtype dt, void *x, void *y, int64_t n,
                        const tally_options *opt, unsigned char out[16]) {
  tally_dtype rd;
  memset(out, 0, 16);
  if (tally_result_dtype(op, dt, &rd) != TALLY_OK) return TALLY_EUNSUPPORTED;
  tally_array in = tally_array_1d(x, dt, n), in2 = tally_array_1d(y, dt, n);
  tally_array o = tally_array_1d(out, rd, tally_result_width(op));
  return tally_reduce(ctx, op, &in, op == TALLY_DOT ? &in2 : NULL, &o, opt);
}

int main(void) {
  tally_context *sc = NULL, *av = NULL;
  CHECK(tally_open("cpu:isa=scalar", &sc) == TALLY_OK, "the scalar ISA does not open: %s", tally_errmsg(NULL));
  if (!sc) return tu_done("cpu_nan");
  if (tally_open("cpu:isa=avx2", &av) != TALLY_OK) {
    printf("cpu_nan: skipped: cpu:isa=avx2 does not open here (%s): nothing to compare\n", tally_errmsg(NULL));
    tally_close(sc);
    return 77;
  }
  const int64_t nmax = sizes[sizeof sizes / sizeof *sizes - 1];
  void *x = malloc((size_t)nmax * 8), *y = malloc((size_t)nmax * 8);
  long compared = 0;
  for (size_t d = 0; d < sizeof dts / sizeof *dts; d++)
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
      for (int pat = 0; pat < NPAT; pat++)
        for (int kind = 0; kind < 3; kind++) {
          tally_dtype dt = dts[d];
          int64_t n = sizes[s];
          uint64_t seed = 1000003 * d + 7919 * (uint64_t)s + 31 * (uint64_t)pat + (uint64_t)kind;
          fill(dt, x, n, kind, seed);
          fill(dt, y, n, kind, seed ^ 0x5555);
          if (kind != 1) /* y's second half as its first, so that x·y cancels too */
            for (int64_t i = n - n / 2; i < n; i++) put(dt, y, i, -get(dt, y, i));
          if (pat == PAT_INF) add_infs(dt, x, y, n);
          add_nans(dt, x, n, pat, seed + 1);
          if (pat == PAT_LANES || pat == PAT_RANDOM) add_nans(dt, y, n, pat == PAT_LANES ? PAT_MIDDLE : PAT_RANDOM, seed + 2);
          for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
            tally_op op = ops[o];
            if ((op == TALLY_PROD) != (kind == 1)) continue; /* products of near-1 data only */
            for (int acc = 0; acc < 2; acc++)
              for (int nan = 0; nan < 2; nan++) {
                tally_options opt;
                tally_options_init(&opt);
                opt.accuracy = acc ? TALLY_ACCURACY_FAST : TALLY_ACCURACY_DEFAULT;
                opt.nan = nan ? TALLY_NAN_IGNORE : TALLY_NAN_PROPAGATE;
                unsigned char a[16], b[16];
                tally_status sa = run(sc, op, dt, x, y, n, &opt, a), sb = run(av, op, dt, x, y, n, &opt, b);
                CHECK(sa == sb, "%s %s n=%lld NaNs %s %s %s: status %s (scalar) vs %s (avx2)", tally_op_name(op),
                      tally_dtype_name(dt), (long long)n, patname[pat], acc ? "fast" : "default",
                      nan ? "ignored" : "propagated", tally_status_name(sa), tally_status_name(sb));
                CHECK(sa != TALLY_OK || sb != TALLY_OK || same(op, dt, a, b),
                      "%s %s n=%lld NaNs %s %s %s: avx2 bits differ from scalar's", tally_op_name(op),
                      tally_dtype_name(dt), (long long)n, patname[pat], acc ? "fast" : "default",
                      nan ? "ignored" : "propagated");
                compared++;
              }
          }
        }
  printf("cpu_nan: %ld results compared, avx2 against scalar\n", compared);
  free(x);
  free(y);
  tally_close(sc);
  tally_close(av);
  return tu_done("cpu_nan");
}

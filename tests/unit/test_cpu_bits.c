/* CPU ANY, ALL, COUNT_NONZERO and BITAND/BITOR/BITXOR on every dtype and every ISA this
 * CPU runs, against a plain loop on the bit patterns: raw bool bytes 1..255, −0.0 and
 * the other sign-bit-only patterns (zero for floats, nonzero for integers), NaN, and a lone
 * element that decides the answer at the start, in the middle or in the tail after the
 * last full vector. The AVX2 paths count and fold in 256-bit registers; the conformance
 * data would pass some of their mistakes (a float compared without its sign bit cleared
 * at the wrong width, a dropped tail). Also DOT and SUMSQ of bool on raw bytes. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_isa_check.h"

#define NMAX (2 * 65536 + 333) /* more than one chunk, and a tail */

static const int64_t sizes[] = {NMAX, 4096 + 61, 255 * 128 + 200, 127, 5};

static uint64_t rng(uint64_t *s) { return tu_lcg(s) >> 11; }

static int is_float(tally_dtype dt) {
  return dt == TALLY_F16 || dt == TALLY_BF16 || dt == TALLY_F32 || dt == TALLY_F64;
}
static int nonzero(tally_dtype dt, size_t sz, uint64_t v) {
  uint64_t all = sz == 8 ? ~0ull : (1ull << (8 * sz)) - 1;
  uint64_t sign = 1ull << (8 * sz - 1);
  return (v & (is_float(dt) ? all & ~sign : all)) != 0;
}

/* kind 0: a mix of zeros, sign-bit-only patterns, single bits and random bits (NaN for
 * floats among them); 1: all ones but one element at `at` that is zero (a float's: −0.0);
 * 2: all zeros (floats: −0.0) but one element at `at` with one bit set. */
static void fill(tally_dtype dt, size_t sz, void *x, int64_t n, int kind, int64_t at, uint64_t seed) {
  uint64_t all = sz == 8 ? ~0ull : (1ull << (8 * sz)) - 1, sign = 1ull << (8 * sz - 1);
  uint64_t negz = is_float(dt) ? sign : 0;
  for (int64_t i = 0; i < n; i++) {
    uint64_t r = rng(&seed), v;
    if (kind == 1) v = all;
    else if (kind == 2) v = negz;
    else {
      int c = (int)(r % 8);
      uint64_t b = rng(&seed) ^ (rng(&seed) << 40);
      v = c < 3 ? 0 : c == 3 ? sign : c == 4 ? 1ull << (b % (8 * sz)) : b & all;
    }
    if (dt == TALLY_BOOL && kind == 1) v = 1 + r % 255; /* any nonzero byte is true */
    tu_put(x, sz, i, v);
  }
  if (kind == 1) tu_put(x, sz, at, negz);
  if (kind == 2) tu_put(x, sz, at, dt == TALLY_BOOL ? 128 : 1ull << (8 * sz - 2));
}

int main(void) {
  tally_context *ctx[TU_NISA];
  tu_isa_open(ctx);
  void *x = malloc((size_t)NMAX * 8);
  const tally_op ops[] = {TALLY_ANY, TALLY_ALL, TALLY_COUNT_NONZERO, TALLY_BITAND, TALLY_BITOR, TALLY_BITXOR};
  for (int dti = 0; dti < TALLY_DTYPE_COUNT_; dti++) {
    tally_dtype dt = (tally_dtype)dti;
    size_t sz = tally_dtype_size(dt);
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
      for (int kind = 0; kind < 3; kind++)
        for (int pos = 0; pos < (kind ? 3 : 1); pos++) {
          int64_t n = sizes[si], at = pos == 0 ? 0 : pos == 1 ? n / 2 : n - 1;
          fill(dt, sz, x, n, kind, at, 777 + (uint64_t)dti * 31 + si * 7 + (uint64_t)kind);
          int64_t cnt = 0;
          uint64_t band = ~0ull, bor = 0, bxor = 0;
          for (int64_t i = 0; i < n; i++) {
            uint64_t v = tu_get(x, sz, i);
            cnt += nonzero(dt, sz, v);
            band &= v, bor |= v, bxor ^= v;
          }
          if (dt == TALLY_BOOL) band = cnt == n, bor = cnt > 0, bxor = (uint64_t)cnt & 1;
          for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
            uint64_t want = ops[o] == TALLY_ANY ? cnt > 0 : ops[o] == TALLY_ALL ? cnt == n
                            : ops[o] == TALLY_COUNT_NONZERO ? (uint64_t)cnt
                            : ops[o] == TALLY_BITAND ? band : ops[o] == TALLY_BITOR ? bor : bxor;
            size_t w = ops[o] == TALLY_COUNT_NONZERO ? 8 : ops[o] == TALLY_ANY || ops[o] == TALLY_ALL ? 1 : sz;
            if (w < 8) want &= (1ull << (8 * w)) - 1;
            for (int k = 0; k < TU_NISA; k++) {
              unsigned char got[16];
              if (!ctx[k] || !tu_run(ctx[k], ops[o], dt, x, n, got)) continue;
              uint64_t g = tu_get(got, w, 0);
              CHECK(g == want, "%s %s n=%" PRId64 " kind %d at %" PRId64 " on %s: 0x%" PRIx64 ", expected 0x%" PRIx64,
                    tally_op_name(ops[o]), tally_dtype_name(dt), n, kind, at, tu_isas[k], g, want);
            }
          }
        }
  }
  /* DOT and SUMSQ of bool, on raw bytes: the places where both are nonzero. */
  unsigned char *y = malloc(NMAX);
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
    int64_t n = sizes[si];
    uint64_t seed = 99 + si;
    unsigned char *b = x;
    for (int64_t i = 0; i < n; i++) b[i] = rng(&seed) % 3 ? (unsigned char)rng(&seed) : 0, y[i] = rng(&seed) % 3 ? (unsigned char)rng(&seed) : 0;
    int64_t dot = 0, sq = 0;
    for (int64_t i = 0; i < n; i++) dot += b[i] && y[i], sq += b[i] != 0;
    for (int k = 0; k < TU_NISA; k++) {
      unsigned char got[16];
      int64_t g;
      if (!ctx[k]) continue;
      tally_array in = tally_array_1d(b, TALLY_BOOL, n), in2 = tally_array_1d(y, TALLY_BOOL, n), o = tally_array_1d(got, TALLY_I64, 1);
      CHECK(tally_reduce(ctx[k], TALLY_DOT, &in, &in2, &o, NULL) == TALLY_OK, "dot: %s", tally_errmsg(ctx[k]));
      memcpy(&g, got, 8);
      CHECK(g == dot, "dot bool n=%" PRId64 " on %s: %" PRId64 ", expected %" PRId64, n, tu_isas[k], g, dot);
      CHECK(tu_run(ctx[k], TALLY_SUMSQ, TALLY_BOOL, b, n, got), "sumsq bool");
      memcpy(&g, got, 8);
      CHECK(g == sq, "sumsq bool n=%" PRId64 " on %s: %" PRId64 ", expected %" PRId64, n, tu_isas[k], g, sq);
    }
  }
  free(y);
  free(x);
  tu_isa_close(ctx);
  return tu_done("cpu_bits");
}

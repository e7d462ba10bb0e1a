/* CPU kernels on extreme integer values, on every ISA this CPU runs: PROD of odd values
 * (a product that never turns 0 mod 2^64, so every factor shows) against a plain loop,
 * VAR of the type's ends against the exact value, and the bits of SUM, PROD, VAR, MIN
 * and MAX compared between ISAs. The conformance data are small values (PROD's are
 * 1, -1, 2, 3, 5), which a narrow product that overflows or a lane sum that wraps in the
 * AVX2 paths would pass. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_isa_check.h"

#define N (3 * 65536 + 77) /* several chunks and a tail */

static const tally_dtype dts[] = {TALLY_BOOL, TALLY_I8, TALLY_U8, TALLY_I16, TALLY_U16, TALLY_I32, TALLY_U32};

static uint64_t rng(uint64_t *s) { return tu_lcg(s) >> 33; }

/* Element i of x (dtype dt) as a signed value (bool: 0 or 1). */
static int64_t get(tally_dtype dt, const void *x, int64_t i) {
  size_t sz = tally_dtype_size(dt);
  uint64_t v = tu_get(x, sz, i), m = 1ull << (8 * sz - 1);
  if (dt == TALLY_BOOL) return v != 0;
  if (dt == TALLY_I8 || dt == TALLY_I16 || dt == TALLY_I32) return (int64_t)((v ^ m) - m); /* sign-extended */
  return (int64_t)v;
}

/* The type's ends and odd values near them (kind 0: odd, for PROD; 1: the two ends). */
static void fill(tally_dtype dt, void *x, int kind, uint64_t seed) {
  int64_t lo = 0, hi = 1;
  size_t sz = tally_dtype_size(dt);
  switch (dt) {
  case TALLY_I8: lo = INT8_MIN; hi = INT8_MAX; break;
  case TALLY_U8: hi = UINT8_MAX; break;
  case TALLY_I16: lo = INT16_MIN; hi = INT16_MAX; break;
  case TALLY_U16: hi = UINT16_MAX; break;
  case TALLY_I32: lo = INT32_MIN; hi = INT32_MAX; break;
  case TALLY_U32: hi = UINT32_MAX; break;
  default: break;
  }
  for (int64_t i = 0; i < N; i++) {
    uint64_t r = rng(&seed);
    int64_t v;
    if (dt == TALLY_BOOL) v = kind == 0 ? 1 + (int64_t)(r % 255) : (int64_t)(r % 3 == 0 ? 0 : 1 + r % 255);
    else if (kind == 1) v = r & 1 ? hi : lo;
    else {
      int64_t c = (int64_t)(r % 6); /* odd values at both ends and near 1 */
      v = c == 0 ? hi : c == 1 ? lo + 1 : c == 2 ? hi - 2 : c == 3 ? (lo < 0 ? -1 : 1) : c == 4 ? 3 : hi / 2 | 1;
      if (!(v & 1)) v |= 1;
    }
    tu_put(x, sz, i, (uint64_t)v);
  }
}

int main(void) {
  tally_context *ctx[TU_NISA];
  tu_isa_open(ctx);
  if (!ctx[0]) return tu_done("cpu_extremes");
  void *x = malloc((size_t)N * 4);
  const tally_op ops[] = {TALLY_SUM, TALLY_PROD, TALLY_VAR, TALLY_MIN, TALLY_MAX};
  for (size_t d = 0; d < sizeof dts / sizeof *dts; d++)
    for (int kind = 0; kind < 2; kind++) {
      tally_dtype dt = dts[d];
      fill(dt, x, kind, 12345 + d * 7 + (uint64_t)kind);
      for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
        unsigned char base[16], got[16];
        if (!tu_run(ctx[0], ops[o], dt, x, N, base)) continue;
        if (ops[o] == TALLY_PROD) { /* modulo 2^64, as int64 or uint64 */
          uint64_t p = 1, r;
          for (int64_t i = 0; i < N; i++) p *= (uint64_t)get(dt, x, i);
          memcpy(&r, base, 8);
          CHECK(r == p, "PROD %s kind %d: 0x%016" PRIx64 ", expected 0x%016" PRIx64, tally_dtype_name(dt), kind, r, p);
        }
        if (ops[o] == TALLY_VAR && kind == 1 && dt != TALLY_BOOL) { /* the two ends: exact */
          int64_t lo = INT64_MAX, hi = INT64_MIN, nhi = 0;
          for (int64_t i = 0; i < N; i++) {
            int64_t v = get(dt, x, i);
            if (v < lo) lo = v;
            if (v > hi) hi = v;
          }
          for (int64_t i = 0; i < N; i++) nhi += get(dt, x, i) == hi;
          double p = (double)nhi / N, w = (double)(hi - lo), want = p * (1 - p) * w * w, v;
          memcpy(&v, base, 8);
          CHECK(v > want * (1 - 1e-13) && v < want * (1 + 1e-13), "VAR %s: %.17g, expected %.17g", tally_dtype_name(dt), v, want);
        }
        for (int k = 1; k < TU_NISA; k++) {
          if (!ctx[k] || !tu_run(ctx[k], ops[o], dt, x, N, got)) continue;
          CHECK(memcmp(base, got, 16) == 0, "%s %s kind %d: %s differs from %s", tally_op_name(ops[o]),
                tally_dtype_name(dt), kind, tu_isas[k], tu_isas[0]);
        }
      }
    }
  free(x);
  tu_isa_close(ctx);
  return tu_done("cpu_extremes");
}

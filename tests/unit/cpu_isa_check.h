/* Shared by the unit tests that run the CPU kernels on every ISA this CPU runs and compare
 * them with a plain loop or with each other (test_cpu_bits.c, test_cpu_extremes.c): the
 * ISA list and its contexts, the generator they draw data from, element access by raw
 * bytes, and one reduction into a 16-byte result. Header-only (static inline), counting
 * its checks in check.h's counters. */
#ifndef TU_CPU_ISA_CHECK_H
#define TU_CPU_ISA_CHECK_H

#include <stdint.h>
#include <string.h>

#include "check.h"
#include "tally.h"

#define TU_NISA 3
/* ctx[k] below is opened with tu_isas[k]; the scalar one (k = 0) is the reference. */
static const char *const tu_isas[TU_NISA] = {"cpu:isa=scalar", "cpu:isa=avx2", "cpu:isa=avx512"};

/* Opens one context per ISA, NULL where this CPU or build does not run it; one check that
 * the scalar one opens. */
static inline void tu_isa_open(tally_context *ctx[TU_NISA]) {
  for (int k = 0; k < TU_NISA; k++)
    if (tally_open(tu_isas[k], &ctx[k]) != TALLY_OK) ctx[k] = NULL;
  CHECK(ctx[0] != NULL, "the scalar ISA does not open: %s", tally_errmsg(NULL));
}
static inline void tu_isa_close(tally_context *ctx[TU_NISA]) {
  for (int k = 0; k < TU_NISA; k++) tally_close(ctx[k]);
}

/* One step of the 64-bit LCG the tests draw from; the new state (callers take its high bits). */
static inline uint64_t tu_lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s;
}

/* Element i of x, elements of sz bytes (1..8), as its raw bits (little-endian, zero-extended),
 * and a store of v's low sz bytes. */
static inline uint64_t tu_get(const void *x, size_t sz, int64_t i) {
  uint64_t v = 0;
  memcpy(&v, (const char *)x + (size_t)i * sz, sz);
  return v;
}
static inline void tu_put(void *x, size_t sz, int64_t i, uint64_t v) {
  memcpy((char *)x + (size_t)i * sz, &v, sz);
}

/* op over x[0..n) of dtype dt on ctx, into out (zeroed first): tally_result_width(op) values
 * of op's result dtype. 0, and no check, where op is not defined on dt; else one check that
 * the reduction succeeded, and whether it did. */
static inline int tu_run(tally_context *ctx, tally_op op, tally_dtype dt, const void *x, int64_t n,
                         unsigned char out[16]) {
  tally_dtype rd;
  if (tally_result_dtype(op, dt, &rd) != TALLY_OK) return 0;
  memset(out, 0, 16);
  tally_array in = tally_array_1d((void *)x, dt, n), o = tally_array_1d(out, rd, tally_result_width(op));
  tally_status s = tally_reduce(ctx, op, &in, NULL, &o, NULL);
  CHECK(s == TALLY_OK, "reduce: %s", tally_errmsg(ctx));
  return s == TALLY_OK;
}

#endif

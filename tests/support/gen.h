/* Test data: every distribution the conformance suite draws from, for every dtype.
 * Values are generated as doubles (or integers) and stored rounded to the dtype. */
#ifndef TT_GEN_H
#define TT_GEN_H

#include <stdint.h>

#include "rng.h"
#include "tally.h"

typedef enum {
  TT_UNIFORM,   /* floats in [-1, 1); integers over the dtype's whole range; bool bytes */
  TT_CONSTANT,  /* one random value repeated */
  TT_MODK,      /* x[i] = i mod k (k = param, 0: a default per dtype) */
  TT_NORMAL,    /* N(0, 1) for floats; integers N(0, range/16), clamped */
  TT_LOGNORMAL, /* exp(N(0, 1.5)); integers scaled to the range, clamped */
  TT_CANCEL,    /* sin(i): sums cancel */
  TT_HUGE,      /* random sign and exponent over a wide range; integers of random width */
  TT_INF,       /* a few +Inf and/or -Inf among `base` values (floats) */
  TT_NAN,       /* NaN (random payload and sign) at position param, sometimes one more */
  TT_DENORMAL,  /* subnormals of the dtype, random sign, some zeros (floats) */
  TT_NEGZERO,   /* mostly -0.0 and +0.0, a few other values (floats) */
  TT_EXTREMES,  /* integers: MIN, MIN+1, -1, 0, 1, MAX-1, MAX; floats: ±max, ±min normal,
                   ±min subnormal, ±0, ±1 */
  TT_NEAR_ONE,  /* ±(1 + δ), |δ| ≤ min(1/4, 2/sqrt(n)): products stay in range */
  TT_OFFSET,    /* a large mean plus a small spread: variance by cancellation */
  TT_SPARSE,    /* all one value but one element (zero among nonzero or the reverse) */
  TT_ILLCOND,   /* f64: pairs v, -v + r (|v| up to 2^40, |r| ~ 1), shuffled: the sum is a
                   tiny part of Σ|x|, so only a compensated sum meets the DEFAULT bound
                   (DOT: tt_generate_dot_illcond) */
  TT_DIST_COUNT
} tt_dist;

const char *tt_dist_name(tt_dist d);
/* Whether the conformance suite checks op on dtype with this distribution (the bounds of
 * SEMANTICS.md assume no overflow; PROD on floats uses values near one). */
int tt_dist_applies(tt_dist d, tally_op op, tally_dtype t);

typedef struct {
  int64_t param;  /* TT_MODK: k; TT_NAN: position of the NaN (< 0: random) */
  tt_dist base;   /* TT_INF, TT_NAN: the distribution of the other values */
} tt_genopt;

/* Fill buf[0..n) with dtype t. opt may be NULL (defaults: base NORMAL, param 0). */
void tt_generate(tt_rng *r, tt_dist d, tally_dtype t, void *buf, int64_t n,
                 const tt_genopt *opt);

/* DOT's TT_ILLCOND: y in [1, 2) with random mantissas and x = t / y for ill-conditioned
 * terms t as above, so that the products' rounding errors, and the sum's, are far larger
 * than the exact dot product: TwoProduct and TwoSum are both needed. */
void tt_generate_dot_illcond(tt_rng *r, tally_dtype t, void *x, void *y, int64_t n);

/* Closed form of sum_{i<n} (i mod k). */
__int128 tt_modk_sum(int64_t n, int64_t k);

#endif

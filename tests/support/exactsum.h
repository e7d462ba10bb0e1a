/* An exact accumulator for sums of doubles (and of exact products of doubles), rounded
 * correctly at the end: the reference that tests and benchmarks measure float sums by.
 * Independent of the library: it shares no code with src/. */
#ifndef TALLY_EXACTSUM_H
#define TALLY_EXACTSUM_H

#include <stdint.h>

/* Value = sum over k of limb[k] * 2^(32k - 1088): 2^-1088 is below the smallest
 * subnormal, and 70 limbs reach 2^1152, room for 2^64 sums of the largest double. */
#define EXACTSUM_LIMBS 70

typedef struct {
  int64_t limb[EXACTSUM_LIMBS]; /* 32-bit digits with deferred carries */
  int64_t pending;              /* additions since the last carry propagation */
  int nan, pinf, ninf;          /* non-finite inputs seen */
} exactsum;

void exactsum_init(exactsum *a);
void exactsum_add(exactsum *a, double x);
/* Adds x*y exactly (TwoProduct with fma); x*y must not underflow below 2^-1022·2^53. */
void exactsum_add_product(exactsum *a, double x, double y);
void exactsum_merge(exactsum *a, const exactsum *b);
/* The exact sum rounded to nearest (ties to even), to double or to float directly (no
 * double rounding). Non-finite inputs give IEEE results: NaN, or ±Inf, or NaN for +Inf−Inf. */
double exactsum_round(const exactsum *a);
float exactsum_round_f32(const exactsum *a);
/* Sign of the exact sum: -1, 0, +1 (finite inputs only). */
int exactsum_sign(const exactsum *a);

#endif

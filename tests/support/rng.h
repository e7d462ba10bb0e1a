/* A seeded pseudo-random generator for the tests: xoshiro256** seeded by splitmix64.
 * Every test binary prints its seed first; $TALLY_TEST_SEED repeats a run. */
#ifndef TT_RNG_H
#define TT_RNG_H

#include <stdint.h>

typedef struct {
  uint64_t s[4];
} tt_rng;

/* One step of splitmix64 on *state. */
uint64_t tt_splitmix64(uint64_t *state);
/* Seed a generator; the same seed gives the same stream everywhere. */
void tt_rng_seed(tt_rng *r, uint64_t seed);
/* A generator for sub-stream `stream` of `seed` (e.g. one per test case). */
void tt_rng_stream(tt_rng *r, uint64_t seed, uint64_t stream);
uint64_t tt_rng_next(tt_rng *r);
/* Uniform in [0, n); n > 0. */
uint64_t tt_rng_below(tt_rng *r, uint64_t n);
/* Uniform double in [0, 1) with 53 random bits. */
double tt_rng_unit(tt_rng *r);
/* Standard normal (Box-Muller). */
double tt_rng_normal(tt_rng *r);

/* The seed of this run: $TALLY_TEST_SEED if set (decimal or 0x hex), else taken from the
 * clock. Prints "<prog>: seed <S> (TALLY_TEST_SEED=<S> repeats this run)". */
uint64_t tt_test_seed(const char *prog);

#endif

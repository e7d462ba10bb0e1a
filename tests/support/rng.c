/* See rng.h. */
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

uint64_t tt_splitmix64(uint64_t *state) {
  uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

void tt_rng_seed(tt_rng *r, uint64_t seed) {
  uint64_t st = seed;
  for (int i = 0; i < 4; i++) r->s[i] = tt_splitmix64(&st);
}

void tt_rng_stream(tt_rng *r, uint64_t seed, uint64_t stream) {
  uint64_t st = stream * UINT64_C(0xd1342543de82ef95) + 1;
  tt_rng_seed(r, seed ^ tt_splitmix64(&st));
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t tt_rng_next(tt_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

uint64_t tt_rng_below(tt_rng *r, uint64_t n) {
  /* Lemire's multiply-shift with rejection: unbiased. */
  unsigned __int128 m = (unsigned __int128)tt_rng_next(r) * n;
  uint64_t lo = (uint64_t)m;
  if (lo < n) {
    uint64_t t = -n % n;
    while (lo < t) {
      m = (unsigned __int128)tt_rng_next(r) * n;
      lo = (uint64_t)m;
    }
  }
  return (uint64_t)(m >> 64);
}

double tt_rng_unit(tt_rng *r) { return (double)(tt_rng_next(r) >> 11) * 0x1p-53; }

double tt_rng_normal(tt_rng *r) {
  double u1 = tt_rng_unit(r), u2 = tt_rng_unit(r);
  return sqrt(-2.0 * log(1.0 - u1)) * cos(6.283185307179586 * u2);
}

uint64_t tt_test_seed(const char *prog) {
  const char *env = getenv("TALLY_TEST_SEED");
  uint64_t seed;
  if (env && *env) {
    seed = strtoull(env, NULL, 0);
  } else {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    uint64_t st = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    seed = tt_splitmix64(&st) >> 16; /* short enough to type */
  }
  printf("%s: seed %llu (TALLY_TEST_SEED=%llu repeats this run)\n", prog,
         (unsigned long long)seed, (unsigned long long)seed);
  fflush(stdout);
  return seed;
}

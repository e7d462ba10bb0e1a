/* Exact references for arithmetic on integer and bool dtypes: SUM, PROD, SUMSQ, DOT and
 * AFFINE modulo 2^64; MEAN from the exact 128-bit sum; NORM2 from the exact sum of
 * squares. */
#include <math.h>

#include "elem.h"
#include "ref_impl.h"

/* x as a 64-bit two's complement pattern (sign-extended). */
static uint64_t u64_at(tally_dtype t, const void *x, int64_t i) {
  return (uint64_t)(unsigned __int128)tt_load_int(t, x, i);
}

/* Add v^2 exactly to a, for any 64-bit integer value v (signed or unsigned). */
static void add_square(exactsum *a, __int128 v) {
  if (v < 0) v = -v;
  double hi = ldexp((double)(uint64_t)(v >> 32), 32); /* exact: < 2^64 */
  double lo = (double)(uint64_t)(v & 0xffffffffu);
  exactsum_add_product(a, hi, hi);
  exactsum_add_product(a, 2.0 * hi, lo);
  exactsum_add_product(a, lo, lo);
}

void tt__ref_int(const tt_spec *s, const void *x, const void *y, int64_t n, tt_expect *e) {
  tally_dtype t = s->dt;
  switch (s->op) {
  case TALLY_SUM: {
    uint64_t acc = 0;
    for (int64_t i = 0; i < n; i++) acc += u64_at(t, x, i);
    tt_set_exact(&e->v[0], acc);
    break;
  }
  case TALLY_PROD: {
    uint64_t acc = 1;
    for (int64_t i = 0; i < n; i++) acc *= u64_at(t, x, i);
    tt_set_exact(&e->v[0], acc);
    break;
  }
  case TALLY_SUMSQ: case TALLY_DOT: {
    const void *z = s->op == TALLY_DOT ? y : x;
    uint64_t acc = 0;
    for (int64_t i = 0; i < n; i++) acc += u64_at(t, x, i) * u64_at(t, z, i);
    tt_set_exact(&e->v[0], acc);
    break;
  }
  case TALLY_MEAN: {
    if (n == 0) { e->status = TALLY_EEMPTY; return; }
    __int128 sum = 0;
    for (int64_t i = 0; i < n; i++) sum += tt_load_int(t, x, i);
    long double m = (long double)sum / (long double)n;
    /* Converting the 128-bit sum to f64 and dividing: two roundings (plus the reference's). */
    tt_set_near(&e->v[0], m, (double)(fabsl(m) * (2 * 0x1p-53 + 0x1p-62)));
    break;
  }
  case TALLY_NORM2: {
    exactsum a;
    exactsum_init(&a);
    for (int64_t i = 0; i < n; i++) add_square(&a, tt_load_int(t, x, i));
    double hi = exactsum_round(&a);
    exactsum rest = a;
    exactsum_add(&rest, -hi);
    long double S = (long double)hi + exactsum_round(&rest);
    long double N = sqrtl(S);
    /* Any f64 accumulation: each square and each addition rounds once (64-bit inputs
     * also round on conversion), then the square root. */
    double u = 0x1p-53, eS = (double)((n + 3) * u * S);
    double eN = N > 0 ? fmin(eS / (double)N, sqrt(eS)) : 0;
    tt_set_near(&e->v[0], N, eN + u * (double)N + (double)N * 0x1p-62);
    break;
  }
  case TALLY_AFFINE: {
    uint64_t A = 1, B = 0;
    for (int64_t i = 0; i < n; i++) {
      uint64_t a = u64_at(t, x, i), b = u64_at(t, y, i);
      A = a * A;
      B = a * B + b;
    }
    tt_set_exact(&e->v[0], A);
    tt_set_exact(&e->v[1], B);
    break;
  }
  default:
    break;
  }
}

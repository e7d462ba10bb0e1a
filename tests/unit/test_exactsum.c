/* tests/support/exactsum against MPFR: sums (and sums of exact products) of doubles of
 * every magnitude, rounded to double and to float, compared with MPFR's exact sum rounded
 * once; the sign; merging; non-finite inputs; sums below the smallest subnormal float. */
#include <math.h>
#include <mpfr.h>

#include "check.h"
#include "exactsum.h"
#include "rng.h"

#define PREC 2400 /* exact for any sum of up to 2^64 doubles, and for their products */

static double draw(tt_rng *r, int kind) {
  double m = 1.0 + tt_rng_unit(r), s = (tt_rng_next(r) & 1) ? -1.0 : 1.0;
  switch (kind) {
  case 0: return s * m;                                                   /* similar sizes */
  case 1: return s * ldexp(m, (int)tt_rng_below(r, 2046) - 1022);         /* every exponent */
  case 2: return s * ldexp((double)(1 + tt_rng_below(r, 1u << 20)), -1074); /* subnormals */
  case 3: return s * ldexp(m, (int)tt_rng_below(r, 100) + 900);           /* huge */
  default: return s * ldexp(m, (int)tt_rng_below(r, 40) - 170);           /* near float underflow */
  }
}

static void compare(const exactsum *a, mpfr_t ref, const char *what, int trial) {
  double d = exactsum_round(a), want = mpfr_get_d(ref, MPFR_RNDN);
  CHECK(d == want || (isnan(d) && isnan(want)), "%s %d: double %a, MPFR %a", what, trial, d, want);
  float f = exactsum_round_f32(a), wantf = mpfr_get_flt(ref, MPFR_RNDN);
  CHECK(f == wantf || (isnan(f) && isnan(wantf)), "%s %d: float %a, MPFR %a", what, trial, f, wantf);
  int sg = mpfr_sgn(ref);
  CHECK(exactsum_sign(a) == (sg > 0) - (sg < 0), "%s %d: sign %d, MPFR %d", what, trial, exactsum_sign(a), sg);
}

int main(void) {
  uint64_t seed = tt_test_seed("test_exactsum");
  tt_rng r;
  tt_rng_seed(&r, seed);
  mpfr_set_emin(mpfr_get_emin_min());
  mpfr_set_emax(mpfr_get_emax_max());
  mpfr_t ref, t, p;
  mpfr_inits2(PREC, ref, t, p, (mpfr_ptr)0);
  for (int trial = 0; trial < 3000; trial++) {
    int kind = trial % 5, n = 1 + (int)tt_rng_below(&r, trial < 2500 ? 60 : 3000);
    exactsum a, b;
    exactsum_init(&a);
    exactsum_init(&b);
    mpfr_set_zero(ref, 1);
    double first = 0;
    for (int i = 0; i < n; i++) {
      double x = draw(&r, tt_rng_below(&r, 4) ? kind : (int)tt_rng_below(&r, 5));
      if (i == 0) first = x;
      exactsum_add(i & 1 ? &b : &a, x);
      mpfr_add_d(ref, ref, x, MPFR_RNDN); /* exact at this precision */
    }
    if (trial % 3 == 0) { /* cancel the first term exactly: small results from large terms */
      exactsum_add(&a, -first);
      mpfr_sub_d(ref, ref, first, MPFR_RNDN);
    }
    exactsum_merge(&a, &b);
    compare(&a, ref, "sum", trial);
  }
  /* Sums of exact products. */
  for (int trial = 0; trial < 1000; trial++) {
    exactsum a;
    exactsum_init(&a);
    mpfr_set_zero(ref, 1);
    int n = 1 + (int)tt_rng_below(&r, 50);
    for (int i = 0; i < n; i++) {
      double x = ldexp(1.0 + tt_rng_unit(&r), (int)tt_rng_below(&r, 800) - 400);
      double y = ldexp((tt_rng_next(&r) & 1 ? -1 : 1) * (1.0 + tt_rng_unit(&r)), (int)tt_rng_below(&r, 800) - 400);
      exactsum_add_product(&a, x, y);
      mpfr_set_d(t, x, MPFR_RNDN);
      mpfr_mul_d(p, t, y, MPFR_RNDN);
      mpfr_add(ref, ref, p, MPFR_RNDN);
    }
    compare(&a, ref, "products", trial);
  }
  /* Many additions: carries through the deferred-carry path (every 2^29 additions). */
  {
    exactsum a;
    exactsum_init(&a);
    const int64_t N = ((int64_t)1 << 29) + 12345; /* odd: one more -2^1000 than 1.75*2^1000 */
    for (int64_t i = 0; i < N; i++) exactsum_add(&a, i & 1 ? 0x1.cp+1000 : -0x1p+1000);
    mpfr_set_d(t, 0x1.8p+999, MPFR_RNDN); /* 1.75*2^1000 - 2^1000 */
    mpfr_mul_si(t, t, N / 2, MPFR_RNDN);
    mpfr_sub_d(ref, t, 0x1p+1000, MPFR_RNDN);
    compare(&a, ref, "many", 0);
  }
  /* Non-finite inputs. */
  exactsum a;
  exactsum_init(&a);
  exactsum_add(&a, 1.0);
  exactsum_add(&a, INFINITY);
  CHECK(exactsum_round(&a) == INFINITY, "1 + Inf");
  exactsum_add(&a, -INFINITY);
  CHECK(isnan(exactsum_round(&a)), "Inf - Inf");
  exactsum_init(&a);
  exactsum_add(&a, NAN);
  CHECK(isnan(exactsum_round(&a)) && isnan(exactsum_round_f32(&a)), "NaN");
  exactsum_init(&a);
  CHECK(exactsum_round(&a) == 0 && exactsum_sign(&a) == 0, "empty sum");
  /* Overflow of the rounded result. */
  exactsum_init(&a);
  exactsum_add(&a, 0x1.fffffffffffffp+1023);
  exactsum_add(&a, 0x1p+970);
  CHECK(exactsum_round(&a) == INFINITY, "DBL_MAX + half an ulp rounds to +Inf");
  CHECK(exactsum_round_f32(&a) == INFINITY, "float of DBL_MAX");
  /* Near and below the smallest subnormal float: 2^e plus a smaller term 7 and 80 binary
   * places down, for e from 2^-180 to 2^-140. */
  for (int e = -180; e <= -140; e++)
    for (int gap = 7; gap <= 80; gap += 73) {
      exactsum_init(&a);
      exactsum_add(&a, ldexp(1.0, e));
      exactsum_add(&a, ldexp(1.0, e - gap));
      mpfr_set_d(ref, ldexp(1.0, e), MPFR_RNDN);
      mpfr_add_d(ref, ref, ldexp(1.0, e - gap), MPFR_RNDN);
      compare(&a, ref, "tiny", e);
    }
  mpfr_clears(ref, t, p, (mpfr_ptr)0);
  mpfr_free_cache();
  return tu_done("exactsum");
}

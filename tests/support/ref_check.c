/* See tt_check in ref.h: compare one result value with its expectation. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "elem.h"
#include "ref_impl.h"

static void describe(tally_dtype t, uint64_t bits, char *buf, size_t len) {
  if (tt_is_float(t)) {
    unsigned char b[8];
    tt_store_bits(t, b, 0, bits);
    snprintf(buf, len, "%.17g (0x%0*" PRIx64 ")", tt_load_f(t, b, 0), (int)tt_size(t) * 2, bits);
  } else if (tt_is_signed(t)) {
    unsigned char b[8];
    tt_store_bits(t, b, 0, bits);
    snprintf(buf, len, "%" PRId64, (int64_t)tt_load_int(t, b, 0));
  } else {
    snprintf(buf, len, "%" PRIu64, bits);
  }
}

/* A NaN result must be quiet (SEMANTICS.md, "NaN"): the top bit of its mantissa set. */
static int quiet(tally_dtype t, uint64_t bits) {
  int mant = t == TALLY_F16 ? 10 : t == TALLY_BF16 ? 7 : t == TALLY_F32 ? 23 : 52;
  return (int)((bits >> (mant - 1)) & 1);
}

int tt_check(const tt_expect *e, int w, const void *out, int64_t at, double *ratio, char *why,
             size_t len) {
  const tt_value *v = &e->v[w];
  tally_dtype t = e->rdtype;
  uint64_t bits = tt_load_bits(t, out, at);
  int isnan_r = tt_bits_isnan(t, bits);
  char got[64], want[64];
  describe(t, bits, got, sizeof got);
  *ratio = 0;
  switch (v->kind) {
  case TT_K_EXACT:
    if (tt_is_float(t) && tt_bits_isnan(t, v->bits) ? isnan_r && quiet(t, bits) : bits == v->bits)
      return 1;
    describe(t, v->bits, want, sizeof want);
    snprintf(why, len, "value %d: got %s, expected %s", w, got, want);
    return 0;
  case TT_K_NAN:
    if (isnan_r && quiet(t, bits)) return 1;
    snprintf(why, len, "value %d: got %s, expected a quiet NaN", w, got);
    return 0;
  case TT_K_NEAR_SUM: case TT_K_NEAR: case TT_K_NAN_OR_NEAR: {
    if (isnan_r && quiet(t, bits) && v->kind == TT_K_NAN_OR_NEAR) return 1;
    double r = tt_load_f(t, out, at);
    double err;
    if (v->kind == TT_K_NEAR_SUM) {
      exactsum d = v->sum;
      exactsum_add(&d, -r);
      err = fabs(exactsum_round(&d));
      snprintf(want, sizeof want, "%.17g", exactsum_round(&v->sum));
    } else {
      err = (double)fabsl((long double)r - v->val);
      snprintf(want, sizeof want, "%.17Lg", v->val);
    }
    if (isnan(err)) err = INFINITY;
    *ratio = v->bound > 0 ? err / v->bound : (err > 0 ? INFINITY : 0);
    if (err <= v->bound) return 1;
    snprintf(why, len, "value %d: got %s, expected %s; error %.3g > bound %.3g (%.3g x)", w,
             got, want, err, v->bound, *ratio);
    return 0;
  }
  }
  return 0;
}

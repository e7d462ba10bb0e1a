/* Exact references: MIN, MAX, MINMAX, ARGMIN, ARGMAX (ties → the first index; −0.0 below
 * +0.0; NaN rules), ANY, ALL, COUNT_NONZERO (NaN nonzero, −0.0 zero) and BIT* (bool as
 * 0/1). */
#include "elem.h"
#include "ref_impl.h"

/* An order key: integers by value, bool as 0/1, floats by the IEEE 754-2019 total order
 * restricted to non-NaN values (−0.0 < +0.0). */
static __int128 key_at(tally_dtype t, const void *x, int64_t i) {
  if (!tt_is_float(t)) return tt_load_int(t, x, i);
  uint64_t b = tt_load_bits(t, x, i);
  uint64_t sign = UINT64_C(1) << (tt_bits(t) - 1);
  __int128 mag = (__int128)(b & (sign - 1));
  return (b & sign) ? -mag - 1 : mag;
}

/* The result bits of the element at i for MIN/MAX: its own pattern (bool: 0 or 1). */
static uint64_t value_bits(tally_dtype t, const void *x, int64_t i) {
  if (t == TALLY_BOOL) return tt_load_bits(t, x, i) != 0;
  return tt_load_bits(t, x, i);
}

static void ref_minmax(const tt_spec *s, const void *x, int64_t n, tt_expect *e) {
  tally_dtype t = s->dt;
  int64_t imin = -1, imax = -1, inan = -1;
  __int128 kmin = 0, kmax = 0;
  for (int64_t i = 0; i < n; i++) {
    if (tt_isnan_at(t, x, i)) {
      if (inan < 0) inan = i;
      continue;
    }
    __int128 k = key_at(t, x, i);
    if (imin < 0 || k < kmin) { imin = i; kmin = k; }
    if (imax < 0 || k > kmax) { imax = i; kmax = k; }
  }
  if (n == 0) { e->status = TALLY_EEMPTY; return; }
  int nan_wins = inan >= 0 && s->nan == TALLY_NAN_PROPAGATE;
  int all_nan = imin < 0;
  switch (s->op) {
  case TALLY_ARGMIN: case TALLY_ARGMAX:
    if (nan_wins) tt_set_exact(&e->v[0], (uint64_t)inan);
    else if (all_nan) e->status = TALLY_EEMPTY;
    else tt_set_exact(&e->v[0], (uint64_t)(s->op == TALLY_ARGMIN ? imin : imax));
    break;
  default: {
    int64_t pick[2] = {imin, imax};
    int first = s->op == TALLY_MAX ? 1 : 0, count = s->op == TALLY_MINMAX ? 2 : 1;
    for (int w = 0; w < count; w++) {
      if (nan_wins || all_nan) tt_set_nan(&e->v[w]);
      else tt_set_exact(&e->v[w], value_bits(t, x, pick[first + w]));
    }
  }
  }
}

static void ref_logic(const tt_spec *s, const void *x, int64_t n, tt_expect *e) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; i++) count += tt_nonzero(s->dt, x, i);
  uint64_t r = s->op == TALLY_ANY ? count > 0 : s->op == TALLY_ALL ? count == n
                                                                   : (uint64_t)count;
  tt_set_exact(&e->v[0], r);
}

static void ref_bits(const tt_spec *s, const void *x, int64_t n, tt_expect *e) {
  tally_dtype t = s->dt;
  int w = tt_bits(t);
  uint64_t mask = w == 64 ? ~UINT64_C(0) : (UINT64_C(1) << w) - 1;
  uint64_t acc = s->op == TALLY_BITAND ? (t == TALLY_BOOL ? 1 : mask) : 0;
  for (int64_t i = 0; i < n; i++) {
    uint64_t b = t == TALLY_BOOL ? tt_load_bits(t, x, i) != 0 : tt_load_bits(t, x, i);
    if (s->op == TALLY_BITAND) acc &= b;
    else if (s->op == TALLY_BITOR) acc |= b;
    else acc ^= b;
  }
  tt_set_exact(&e->v[0], acc);
}

void tt__ref_order(const tt_spec *s, const void *x, int64_t n, tt_expect *e) {
  switch (s->op) {
  case TALLY_ANY: case TALLY_ALL: case TALLY_COUNT_NONZERO: ref_logic(s, x, n, e); break;
  case TALLY_BITAND: case TALLY_BITOR: case TALLY_BITXOR: ref_bits(s, x, n, e); break;
  default: ref_minmax(s, x, n, e); break;
  }
}

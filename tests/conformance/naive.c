/* The `naive` variant's expected results: the in-order loop with one accumulator of the
 * input type, written here independently: every operation rounds to the input type
 * (floats) or wraps to its width (integers), e.g. s = T(s + T(x*y)) for DOT.
 *   SUM, PROD, SUMSQ, DOT: bit for bit.
 *   MEAN = s / n; VAR = (Σx² − (Σx)²/n) / (n − ddof); STD = √VAR; NORM2 = √Σx²: integers
 *   finish in f64 (bit for bit); floats finish in the input type, within one unit in the
 *   last place of the input type (SEMANTICS.md does not fix how the count n is rounded). */
#include <math.h>
#include <string.h>

#include "elem.h"
#include "half.h"
#include "tc.h"

/* Round to the input float type. */
static double rt(tally_dtype t, double v) {
  switch (t) {
  case TALLY_F16: return tt_f16_to_f32(tt_f64_to_f16(v));
  case TALLY_BF16: return tt_bf16_to_f32(tt_f64_to_bf16(v));
  case TALLY_F32: return (float)v;
  default: return v;
  }
}

/* Wrap to the input integer type (as its value, sign- or zero-extended). */
static int64_t wt(tally_dtype t, uint64_t v) {
  unsigned char b[8];
  tt_store_bits(t, b, 0, v);
  return (int64_t)tt_load_int(t, b, 0);
}

/* One unit in the last place of the input type at v. */
static double ulp(tally_dtype t, double v) {
  int mant = t == TALLY_F16 ? 10 : t == TALLY_BF16 ? 7 : t == TALLY_F32 ? 23 : 52;
  int emin = t == TALLY_F16 ? -14 : t == TALLY_F64 ? -1022 : -126;
  int e = v != 0 && isfinite(v) ? ilogb(v) : emin;
  if (e < emin) e = emin;
  return ldexp(1.0, e - mant);
}

static void finish_float(tt_expect *e, tally_dtype t, double v) {
  if (!isfinite(v)) tt_set_exact(&e->v[0], tt_float_bits(e->rdtype, v));
  else tt_set_near(&e->v[0], v, ulp(t, v));
}

static void naive_float(const tt_spec *s, const void *x, const void *y, int64_t n, tt_expect *e) {
  tally_dtype t = s->dt;
  tally_op op = s->op;
  double acc = op == TALLY_PROD ? 1 : 0, sq = 0;
  int64_t m = 0;
  for (int64_t i = 0; i < n; i++) {
    double a = tt_load_f(t, x, i), b = op == TALLY_DOT ? tt_load_f(t, y, i) : a;
    if (s->nan == TALLY_NAN_IGNORE && (isnan(a) || isnan(b))) continue;
    m++;
    switch (op) {
    case TALLY_PROD: acc = rt(t, acc * a); break;
    case TALLY_SUMSQ: case TALLY_DOT: case TALLY_NORM2: acc = rt(t, acc + rt(t, a * b)); break;
    case TALLY_VAR: case TALLY_STD:
      acc = rt(t, acc + a);
      sq = rt(t, sq + rt(t, a * a));
      break;
    default: acc = rt(t, acc + a); break;
    }
  }
  switch (op) {
  case TALLY_MEAN:
    if (n == 0) { e->status = TALLY_EEMPTY; return; }
    finish_float(e, t, m ? rt(t, acc / (double)m) : NAN);
    return;
  case TALLY_NORM2: finish_float(e, t, rt(t, sqrt(acc))); return;
  case TALLY_VAR: case TALLY_STD: {
    if (n == 0) { e->status = TALLY_EEMPTY; return; }
    if (m == 0) { finish_float(e, t, NAN); return; }
    if (m <= s->ddof) { e->status = TALLY_EINVAL; return; }
    double c = (double)m;
    double v = rt(t, rt(t, sq - rt(t, rt(t, acc * acc) / c)) / (c - s->ddof));
    finish_float(e, t, op == TALLY_STD ? rt(t, sqrt(v)) : v);
    return;
  }
  default:
    tt_set_exact(&e->v[0], tt_float_bits(e->rdtype, acc));
    return;
  }
}

static void naive_int(const tt_spec *s, const void *x, const void *y, int64_t n, tt_expect *e) {
  tally_dtype t = s->dt;
  tally_op op = s->op;
  int64_t acc = op == TALLY_PROD ? 1 : 0, sq = 0;
  for (int64_t i = 0; i < n; i++) {
    uint64_t a = (uint64_t)(int64_t)tt_load_int(t, x, i);
    uint64_t b = op == TALLY_DOT ? (uint64_t)(int64_t)tt_load_int(t, y, i) : a;
    switch (op) {
    case TALLY_PROD: acc = wt(t, (uint64_t)acc * a); break;
    case TALLY_SUMSQ: case TALLY_DOT: case TALLY_NORM2: acc = wt(t, (uint64_t)acc + a * b); break;
    case TALLY_VAR: case TALLY_STD:
      acc = wt(t, (uint64_t)acc + a);
      sq = wt(t, (uint64_t)sq + a * a);
      break;
    default: acc = wt(t, (uint64_t)acc + a); break;
    }
  }
  /* The accumulator's value as the f64 the loop finishes in. */
  double dacc = tt_is_unsigned(t) ? (double)(uint64_t)acc : (double)acc;
  double dsq = tt_is_unsigned(t) ? (double)(uint64_t)sq : (double)sq;
  switch (op) {
  case TALLY_MEAN:
    if (n == 0) { e->status = TALLY_EEMPTY; return; }
    tt_set_exact(&e->v[0], tt_float_bits(TALLY_F64, dacc / (double)n));
    return;
  case TALLY_NORM2: tt_set_exact(&e->v[0], tt_float_bits(TALLY_F64, sqrt(dacc))); return;
  case TALLY_VAR: case TALLY_STD: {
    if (n == 0) { e->status = TALLY_EEMPTY; return; }
    if (n <= s->ddof) { e->status = TALLY_EINVAL; return; }
    double c = (double)n, v = (dsq - dacc * dacc / c) / (c - s->ddof);
    tt_set_exact(&e->v[0], tt_float_bits(TALLY_F64, op == TALLY_STD ? sqrt(v) : v));
    return;
  }
  default:
    tt_set_exact(&e->v[0], (uint64_t)acc);
    return;
  }
}

void tc_naive_expect(const tt_spec *s, const void *x, const void *y, int64_t n, tt_expect *e) {
  memset(e, 0, sizeof *e);
  int ok;
  e->rdtype = tt_result_dtype(s->op, s->dt, &ok);
  e->width = 1;
  e->status = TALLY_OK;
  if (tt_is_float(s->dt)) naive_float(s, x, y, n, e);
  else naive_int(s, x, y, n, e);
}

/* Reference results, written independently of the library from docs/SEMANTICS.md: what a
 * reduction of n contiguous elements must return, either exactly (integers, MIN/MAX,
 * ARG*, logic, bits) or within the error bound the semantics state (float arithmetic). */
#ifndef TT_REF_H
#define TT_REF_H

#include <stddef.h>
#include <stdint.h>

#include "exactsum.h"
#include "tally.h"

typedef struct {
  tally_op op;
  tally_dtype dt;
  tally_accuracy acc;
  tally_nan nan;
  int ddof;
  int sequential; /* hold float results to the `sequential` variant's bound instead */
} tt_spec;

typedef enum {
  TT_K_EXACT,      /* the result's bit pattern must be `bits` (any NaN matches a NaN) */
  TT_K_NEAR_SUM,   /* |r - S| <= bound, S held exactly in `sum`: the error is exact */
  TT_K_NEAR,       /* |r - val| <= bound */
  TT_K_NAN,      /* r must be a NaN */
  TT_K_NAN_OR_NEAR /* r a NaN, or |r - val| <= bound */
} tt_kind;

typedef struct {
  tt_kind kind;
  uint64_t bits;
  long double val;
  double bound;
  exactsum sum;
} tt_value;

typedef struct {
  tally_status status; /* TALLY_OK, TALLY_EEMPTY (no value), TALLY_EINVAL (ddof) */
  tally_dtype rdtype;
  int width;
  tt_value v[2];
} tt_expect;

/* Expected result of s->op over x[0..n) (and y[0..n) for DOT and AFFINE). */
void tt_reference(const tt_spec *s, const void *x, const void *y, int64_t n, tt_expect *e);

/* Check value w of e against out[at] (elements of e->rdtype). Returns 1 when it passes;
 * *ratio gets error / bound (0 for exact values), why a description of a failure. */
int tt_check(const tt_expect *e, int w, const void *out, int64_t at, double *ratio,
             char *why, size_t len);

/* Fill one expected value: exact bits, any NaN, or val within bound. */
void tt_set_exact(tt_value *v, uint64_t bits);
void tt_set_nan(tt_value *v);
void tt_set_near(tt_value *v, long double val, double bound);

/* Underflow in products and affine compositions, as the factors around it carry it on
 * (ref_float.c, tt_amp_step): one step per factor or map (a, b), in index order. */
typedef struct {
  long double MA, MB; /* |A|, |B| of the maps so far */
  long double HA, HB; /* max over prefixes of MA, and of 1 + MB */
  long double QA, QB; /* max over contiguous partials s+1..e of MA_s·P_e, (1 + MB_s)·P_e */
  long double T;      /* sum over e of P_e */
} tt_amp;
void tt_amp_init(tt_amp *g);
void tt_amp_step(tt_amp *g, long double a, long double b);

/* Bits of v rounded to a float dtype (f32 or f64; or f16/bf16). */
uint64_t tt_float_bits(tally_dtype t, double v);
/* Unit roundoff of a float result dtype: 2^-24 for f32, 2^-53 for f64. */
double tt_unit(tally_dtype rdtype);

#endif

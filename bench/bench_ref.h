/* The exact (or nearly exact) result a reduction should give, computed once per
 * (op, dtype, n), and the relative error of a result against it:
 *   SUM, MEAN, DOT, SUMSQ, NORM2 of floats: exact sums (tests/support/exactsum.h), then
 *     one rounding to double (MEAN: the exact sum / n, NORM2: sqrt, in long double);
 *   integers (SUM, PROD, DOT, SUMSQ, AFFINE wrap modulo 2^64 as tally does), MIN, MAX,
 *     MINMAX, ANY, ALL, COUNT_NONZERO, BIT*: exact;
 *   ARGMIN, ARGMAX: the first extreme index (error 0 when equal, else 1);
 *   VAR, STD: a two-pass sum in long double, with the exact mean;
 *   PROD, AFFINE of floats: long double loops (relative error below n·2^-64).
 * All with ddof 0 and no NaN in the data (bench_fill makes none). */
#ifndef TALLY_BENCH_REF_H
#define TALLY_BENCH_REF_H

#include "tally.h"

#include <stdint.h>

typedef enum { REF_VALUE, REF_BITS, REF_INDEX } bench_ref_kind;

typedef struct {
  bench_ref_kind kind;
  int width;          /* 1, or 2 (MINMAX, AFFINE) */
  long double val[2]; /* REF_VALUE */
  uint64_t bits[2];   /* REF_BITS: the result's bits, sign- or zero-extended; REF_INDEX */
} bench_ref;

/* 0, or -1 if (op, t) has no reference here. x and y (DOT, AFFINE) hold n elements. */
int bench_ref_compute(tally_op op, tally_dtype t, const void *x, const void *y, int64_t n,
                      bench_ref *r);
/* Relative error |r - S| / |S| of a result of dtype rt (width values at result). Where S
 * is zero, not finite, or out of rt's normal range (a product that underflows), the error
 * is 0 if the result equals S rounded to rt and 1 otherwise. */
double bench_ref_error(const bench_ref *r, tally_dtype rt, const void *result);

#endif

/* Turning a slice's part into result values: shared by every backend. */
#ifndef TALLY_FINALIZE_H
#define TALLY_FINALIZE_H

#include "internal.h"
#include "part.h"

/* NORM2 of f64 when the plain sum of squares ss overflowed or underflowed: the backend
 * recomputes the slice scaled and returns the norm. */
typedef double (*tally__norm2_fn)(void *env, double ss);

/* Write slice k's result (n elements reduced) from part a to out[at] (and out[at + s1]
 * for two-value ops). Fails, without writing, for ARG* over all-NaN with NaN ignored and
 * for VAR/STD with n <= ddof; the message names the slice. */
tally_status tally__finalize(tally_context *ctx, const tally__problem *p, int64_t k, int64_t n,
                             const tally__part *a, void *out, int64_t at, int64_t s1,
                             tally__norm2_fn norm2_f64, void *env);

double tally__pair_value(const tally__part *a);

/* NORM2 of f64, the rescue of a sum of squares ss that overflowed or lost bits to
 * underflow. tally__norm2_needs_rescue: whether ss needs it (else the norm is sqrt(ss)).
 * tally__norm2_scale: from the slice's MINMAX part (its sort keys), either the answer
 * (returns 0: NaN, 0 or Inf) or the exponent e that brings max|x| near 1 (returns 1):
 * the caller sums the squares of x·2^-e and calls tally__norm2_unscale. */
int tally__norm2_needs_rescue(double ss);
int tally__norm2_scale(const tally__part *minmax, int ignore_nan, double *answer, int *e);
double tally__norm2_unscale(double scaled_ss, int e);
void tally__store_f64(tally_dtype rd, void *out, int64_t at, double v);
void tally__store_i64(tally_dtype rd, void *out, int64_t at, int64_t v);
/* Decode a sort key of input dtype dt into out[at] (same dtype). */
void tally__store_key(tally_dtype dt, void *out, int64_t at, int64_t key);
void tally__store_nan(tally_dtype rd, void *out, int64_t at);

#endif

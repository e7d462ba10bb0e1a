/* References for scans and histograms, written from docs/SEMANTICS.md independently of the
 * library: exact integer arithmetic modulo 2^64, exact MIN/MAX with the NaN and signed-zero
 * rules, correctly rounded float prefix sums (exactsum) with the stated error bounds, long
 * double products and affine maps with bounds on their magnitudes; histogram bins by the
 * edge rule with the counts kept exactly and the weights summed exactly. */
#ifndef TT_REF_SCAN_H
#define TT_REF_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "tally.h"

typedef struct {
  tally_op op;          /* SUM, PROD, MIN, MAX, AFFINE */
  tally_dtype dt;       /* input dtype */
  tally_accuracy acc;
  tally_nan nan;
  int exclusive;
  const void *init;     /* NULL or width values of the result dtype */
} tt_scan_spec;

/* The result dtype and width of a scan, by SEMANTICS.md (MIN/MAX: the input dtype). */
tally_dtype tt_scan_rdtype(tally_op op, tally_dtype dt, int *ok);

/* Check out[i*W + w] (result dtype, contiguous) for every element i of x[0..n) (and y for
 * AFFINE), segments starting where head[i] != 0 (head may be NULL; element 0 always
 * starts one). Returns 1 when every value passes; else 0 with the first failure in why.
 * *worst gets the largest error / bound seen (0 for exact values). */
int tt_scan_check(const tt_scan_spec *s, const void *x, const void *y, int64_t n,
                  const uint8_t *head, const void *out, double *worst, char *why, size_t len);

/* Histogram reference: counts[nbins] (and sums[nbins] of f64 weights, exactly summed and
 * correctly rounded, when w is not NULL) and the outside counts, by the edge rule. edges
 * NULL: even bins over [lo, hi] with edge k = k*((hi-lo)/nbins) + lo, the last edge hi. */
typedef struct {
  int64_t below, above, nan;
} tt_hist_outside;
void tt_hist_reference(tally_dtype dt, const void *x, int64_t n, tally_dtype wdt, const void *w,
                       int64_t nbins, const double *edges, double lo, double hi, int clamp,
                       uint64_t *counts, double *sums, tt_hist_outside *outside);

#endif

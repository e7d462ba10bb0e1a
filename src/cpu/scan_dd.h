/* The f64 DEFAULT (compensated) scan's arithmetic and its block, as plain C: the
 * definition of its bits. scan_kern.c runs it on any layout; scan_dd.c runs the same
 * operations in vector lanes on contiguous blocks, and falls back to it.
 *
 * A running double-double sum renormalised after each element is a chain of six
 * dependent additions per element (about 20 cycles); blocks of 8 by Hillis–Steele steps
 * avoid the chain but cost 24 pair additions per 8 elements. Instead a block of
 * DD_BLOCK elements is cut into DD_LANES lanes of DD_LANE consecutive elements, and
 * each lane runs its own sequential sum, the rounding error of each addition kept apart
 * (TwoSum, dd_step) and added in at each output, fl(h + l): the lanes' chains are
 * independent (one addition per element), and four lanes fill a vector. Lane j starts
 * from the block's running value S plus the totals of the lanes before it. With
 * T[j] the sequential sum of lane j (as an unnormalised pair), rows of four lanes
 * (a = 0..3: lanes 4a .. 4a + 3), ⊕ = dd_add and F = (−0, −0):
 *   E1[a] = T[4a], E2[a] = E1 ⊕ T[4a+1], E3[a] = E2 ⊕ T[4a+2],
 *   U[a] = E2 ⊕ (T[4a+2] ⊕ T[4a+3])                       (row a's total),
 *   y[a] = U[a] ⊕ U[a-1], z[a] = y[a] ⊕ y[a-2], R[a] = z[a-1] (a term before row 0: F),
 *   lane 4a + k starts from S ⊕ P, P = R[a] (k = 0) or R[a] ⊕ Ek[a];
 *   then S = S ⊕ z[3], T = T ⊕ z[3] (the running value and total move on by the block's).
 * (dd_add is commutative bit for bit: TwoSum's error term is exact either way.) The
 * rows are the positions of a vector, so each step is one vector addition. A shorter
 * block (the end of a run) has fewer or shorter lanes, the missing totals the empty sum.
 * Pieces of a run must start at multiples of DD_BLOCK (scan.c's pieces are).
 *
 * Error: a lane's error terms are summed in f64 over at most 16 elements, so their own
 * rounding stays below 16²/2 · 2^-106 · Σ|x|; with the carries' double-double additions
 * each result is within one rounding of the exact prefix plus k · 2^-100 · Σ|x| for
 * the k-th (tests/support/ref_scan.c's bound for this mode). */
#ifndef TALLY_CPU_SCAN_DD_H
#define TALLY_CPU_SCAN_DD_H

#include "scan.h"

#include <string.h>

#define DD_BLOCK 256
#define DD_LANE 16
#define DD_LANES (DD_BLOCK / DD_LANE) /* 16: four rows of four (see dd_prefix) */

typedef struct { double hi, lo; } dd; /* hi + lo */

static inline int dd_finite(double s) { return s - s == 0; }

/* (a.hi, a.lo) + (b.hi, b.lo), renormalised (|lo| ≤ ulp(hi)/2). A sum that is not finite
 * is the plain sum (s, 0): no Inf − Inf from the error terms. */
static inline dd dd_add(dd a, dd b) {
  double s = a.hi + b.hi;
  if (!dd_finite(s)) return (dd){s, 0.0};
  double bb = s - a.hi, e = (a.hi - (s - bb)) + (b.hi - bb); /* TwoSum */
  e += a.lo + b.lo;
  double h = s + e; /* FastTwoSum: renormalise so that hi is the rounded value */
  return (dd){h, e - (h - s)};
}

/* (h, l) + x, the error of h + x added to l, not renormalised. */
static inline void dd_step(double *h, double *l, double x) {
  double s = *h + x;
  if (!dd_finite(s)) { *h = s; *l = 0.0; return; }
  double bb = s - *h, e = (*h - (s - bb)) + (x - bb);
  *l = *l + e;
  *h = s;
}

/* Element i of a block (byte stride bx), NaN → +0.0 under ign. */
static inline double dd_load(const char *x, int64_t bx, int64_t i, int ign) {
  double v;
  memcpy(&v, x + i * bx, 8);
  return ign && v != v ? 0.0 : v;
}

/* Lane j's total (n elements at x): its sequential sum, an unnormalised pair. */
static inline dd dd_lane_total(const char *x, int64_t bx, int n, int ign) {
  double h = -0.0, l = 0.0;
  for (int i = 0; i < n; i++) dd_step(&h, &l, dd_load(x, bx, i, ign));
  return (dd){h, l};
}

/* The lanes' offsets from the block's running value (p[j], j < DD_LANES) and the
 * block's total (p[DD_LANES]) from the lane totals t (see the top). */
static inline void dd_prefix(const dd *t, dd *p) {
  const dd f = {-0.0, -0.0};
  dd e1[4], e2[4], e3[4], u[4], y[4], z[4];
  for (int a = 0; a < 4; a++) {
    const dd *r = t + 4 * a;
    e1[a] = r[0];
    e2[a] = dd_add(e1[a], r[1]);
    e3[a] = dd_add(e2[a], r[2]);
    u[a] = dd_add(e2[a], dd_add(r[2], r[3]));
  }
  for (int a = 0; a < 4; a++) y[a] = dd_add(u[a], a >= 1 ? u[a - 1] : f);
  for (int a = 0; a < 4; a++) z[a] = dd_add(y[a], a >= 2 ? y[a - 2] : f);
  for (int a = 0; a < 4; a++) {
    dd r = a >= 1 ? z[a - 1] : f;
    p[4 * a] = r;
    p[4 * a + 1] = dd_add(r, e1[a]);
    p[4 * a + 2] = dd_add(r, e2[a]);
    p[4 * a + 3] = dd_add(r, e3[a]);
  }
  p[DD_LANES] = z[3];
}

/* One block of b ≤ DD_BLOCK elements from the running value s, folding the total t
 * (both updated); the outputs (byte stride bo) when write. Pass A reads every element
 * before pass B writes any, and pass B reads each before writing it: in place works. */
static inline void dd_block(const char *x, int64_t bx, char *o, int64_t bo, int b, dd *s, dd *t,
                            int write, int excl, int ign) {
  dd tot[DD_LANES], p[DD_LANES + 1];
  for (int j = 0; j < DD_LANES; j++) {
    int n = b - j * DD_LANE < DD_LANE ? b - j * DD_LANE : DD_LANE;
    tot[j] = n > 0 ? dd_lane_total(x + j * DD_LANE * bx, bx, n, ign) : (dd){-0.0, 0.0};
  }
  dd_prefix(tot, p);
  for (int j = 0; write && j * DD_LANE < b; j++) {
    int n = b - j * DD_LANE < DD_LANE ? b - j * DD_LANE : DD_LANE;
    dd c = dd_add(*s, p[j]);
    double h = c.hi, l = c.lo;
    for (int i = 0; i < n; i++) {
      int64_t at = j * DD_LANE + i;
      double v = dd_load(x, bx, at, ign), r;
      if (excl) r = h + l;
      dd_step(&h, &l, v);
      if (!excl) r = h + l;
      memcpy(o + at * bo, &r, 8);
    }
  }
  *s = dd_add(*s, p[DD_LANES]);
  *t = dd_add(*t, p[DD_LANES]);
}

#endif

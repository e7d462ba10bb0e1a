/* The partial result of a reduction over a run of elements, and how two are merged.
 *
 * Every CPU kernel reduces its elements into lanes, folds the lanes in a fixed order into
 * a local part, and merges that into the caller's part: acc = acc ⊕ local. The driver
 * merges chunk parts in index order with the same functions, so a result depends only on
 * the data and its layout, never on the thread count.
 *
 * Shared by the per-ISA kernel files and the driver. Everything here is plain scalar C
 * compiled with -ffp-contract=off, so it rounds identically under every ISA's flags. */
#ifndef TALLY_CPU_PART_H
#define TALLY_CPU_PART_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "tally.h"

/* Kernel families: one per way of accumulating. Several ops share one (SUM and MEAN;
 * DOT, SUMSQ and NORM2; MIN, MAX and MINMAX; ANY, ALL and COUNT_NONZERO). */
typedef enum {
  TALLY__FAM_SUM,
  TALLY__FAM_PROD,
  TALLY__FAM_DOT,
  TALLY__FAM_MINMAX,
  TALLY__FAM_ARGMIN,
  TALLY__FAM_ARGMAX,
  TALLY__FAM_VAR,
  TALLY__FAM_COUNT,
  TALLY__FAM_BITAND,
  TALLY__FAM_BITOR,
  TALLY__FAM_BITXOR,
  TALLY__FAM_AFFINE,
  TALLY__FAM_COUNT_
} tally__family;

typedef struct {
  double hi, lo;          /* float sums/dots: hi + lo (compensated); PROD: hi; VAR: mean, M2;
                             AFFINE on floats: A, B */
  int64_t n;              /* VAR: count; SUM with NaN skipped: count of non-NaN; COUNT: nonzero */
  int64_t idx;            /* ARG*: index of the best element so far, -1 if none */
  int64_t k0, k1;         /* MINMAX: min and max keys; ARG*: best key; BIT*: bits;
                             PROD on ints: k0; AFFINE on ints: A, B (mod 2^64) */
  unsigned __int128 wide; /* integer SUM/DOT: the sum, exact or modulo 2^64 */
  int32_t nan;            /* MINMAX: a NaN was seen */
} tally__part;

/* The family that accumulates op on dtype: several ops share one; the bitwise folds of
 * bool are counts (and = all, or = any, xor = parity). */
static inline tally__family tally__family_of(tally_op op, tally_dtype dt) {
  switch (op) {
  case TALLY_SUM: case TALLY_MEAN: return TALLY__FAM_SUM;
  case TALLY_PROD: return TALLY__FAM_PROD;
  case TALLY_DOT: case TALLY_SUMSQ: case TALLY_NORM2: return TALLY__FAM_DOT;
  case TALLY_MIN: case TALLY_MAX: case TALLY_MINMAX: return TALLY__FAM_MINMAX;
  case TALLY_ARGMIN: return TALLY__FAM_ARGMIN;
  case TALLY_ARGMAX: return TALLY__FAM_ARGMAX;
  case TALLY_VAR: case TALLY_STD: return TALLY__FAM_VAR;
  case TALLY_ANY: case TALLY_ALL: case TALLY_COUNT_NONZERO: return TALLY__FAM_COUNT;
  case TALLY_BITAND: return dt == TALLY_BOOL ? TALLY__FAM_COUNT : TALLY__FAM_BITAND;
  case TALLY_BITOR: return dt == TALLY_BOOL ? TALLY__FAM_COUNT : TALLY__FAM_BITOR;
  case TALLY_BITXOR: return dt == TALLY_BOOL ? TALLY__FAM_COUNT : TALLY__FAM_BITXOR;
  default: return TALLY__FAM_AFFINE;
  }
}

/* What a kernel needs to know beyond its data. */
typedef struct {
  int fast;        /* TALLY_ACCURACY_FAST */
  int ignore_nan;  /* TALLY_NAN_IGNORE */
  int exact;       /* integer SUM for MEAN: 128-bit exact even for 64-bit inputs */
  int square;      /* DOT family: x·x (SUMSQ, NORM2), y unused */
  double scale;    /* DOT family on f64: multiply inputs by this power of two first */
  double shift;    /* VAR family: subtract this from every element first (the slice's first
                      element): Chan's merges of many small groups then work near zero,
                      where rounding the running mean costs nothing */
} tally__kparams;

/* Reduce n elements x[idx*sx] (and y[idx*sy]) into *acc; idx0 is the index of the first
 * element in its slice (ARG*). n is at most TALLY__CHUNK. */
typedef void (*tally__kernel)(tally__part *acc, const void *x, const void *y, int64_t sx,
                              int64_t sy, int64_t n, int64_t idx0, const tally__kparams *kp);

/* Elements per chunk: the unit of parallel work and of determinism. At most 2^16: small
 * enough for 32-bit lane indices and exact 64-bit lane sums of 32-bit integers, large
 * enough that a chunk's fold and merge cost nothing next to its loads. Shorter runs get
 * shorter chunks (down to 2^12), at least 8 of them, so that mid-sized inputs split
 * across threads. The length depends only on the run's length: never on threads. */
#define TALLY__CHUNK ((int64_t)1 << 16)
#define TALLY__CHUNK_MIN ((int64_t)1 << 12)

static inline int64_t tally__chunk_len(int64_t n) {
  int64_t c = TALLY__CHUNK_MIN;
  while (c < TALLY__CHUNK && c * 8 < n) c *= 2;
  return c;
}

/* Sort keys: integers that order like the floats (−0.0 below +0.0, NaNs outside ±Inf). */
#define TALLY__KEY32_PINF ((int64_t)0x7f800000)
#define TALLY__KEY32_NINF ((int64_t)(int32_t)0x807fffff)
#define TALLY__KEY64_PINF ((int64_t)0x7ff0000000000000)
#define TALLY__KEY64_NINF ((int64_t)0x800fffffffffffff)

static inline void tally__part_init(tally__part *p, tally__family fam, int key64) {
  memset(p, 0, sizeof *p);
  p->idx = -1;
  switch (fam) {
  case TALLY__FAM_PROD: p->hi = 1.0; p->k0 = 1; break;
  case TALLY__FAM_MINMAX: p->k0 = INT64_MAX; p->k1 = INT64_MIN; break;
  case TALLY__FAM_BITAND: p->k0 = -1; break;
  case TALLY__FAM_AFFINE: p->hi = 1.0; p->k0 = 1; break;
  default: break;
  }
  (void)key64;
}

/* (hi, lo) += (h, l), keeping hi's rounding error in lo (TwoSum; Knuth). */
static inline void tally__twosum_merge(double *hi, double *lo, double h, double l) {
  double s = *hi + h;
  double z = s - *hi;
  double e = (*hi - (s - z)) + (h - z);
  *hi = s;
  *lo = *lo + (l + e);
}

/* acc = acc ⊕ r for the family. ARG*: r covers later indices than acc. */
static inline void tally__part_merge(tally__part *acc, const tally__part *r, tally__family fam) {
  switch (fam) {
  case TALLY__FAM_SUM:
  case TALLY__FAM_DOT:
    tally__twosum_merge(&acc->hi, &acc->lo, r->hi, r->lo);
    acc->wide += r->wide;
    acc->n += r->n;
    break;
  case TALLY__FAM_PROD:
    acc->hi *= r->hi;
    acc->k0 = (int64_t)((uint64_t)acc->k0 * (uint64_t)r->k0);
    break;
  case TALLY__FAM_MINMAX:
    if (r->k0 < acc->k0) acc->k0 = r->k0;
    if (r->k1 > acc->k1) acc->k1 = r->k1;
    acc->nan |= r->nan;
    break;
  /* Equal keys: the lower index, so that parts of interleaved runs (GPU ladder variants
   * fold strided sets) merge right; for runs in index order it is the earlier part. */
  case TALLY__FAM_ARGMIN:
    if (r->idx >= 0 && (acc->idx < 0 || r->k0 < acc->k0 || (r->k0 == acc->k0 && r->idx < acc->idx))) {
      acc->k0 = r->k0;
      acc->idx = r->idx;
    }
    break;
  case TALLY__FAM_ARGMAX:
    if (r->idx >= 0 && (acc->idx < 0 || r->k0 > acc->k0 || (r->k0 == acc->k0 && r->idx < acc->idx))) {
      acc->k0 = r->k0;
      acc->idx = r->idx;
    }
    break;
  case TALLY__FAM_VAR:
    /* Chan et al.: merge (count, mean, M2) of two runs. */
    if (r->n == 0) break;
    if (acc->n == 0) { acc->n = r->n; acc->hi = r->hi; acc->lo = r->lo; break; }
    {
      double na = (double)acc->n, nb = (double)r->n, nn = na + nb;
      double delta = r->hi - acc->hi;
      acc->hi = acc->hi + delta * (nb / nn);
      acc->lo = acc->lo + r->lo + delta * delta * (na * nb / nn);
      acc->n += r->n;
    }
    break;
  case TALLY__FAM_COUNT: acc->n += r->n; break;
  case TALLY__FAM_BITAND: acc->k0 &= r->k0; break;
  case TALLY__FAM_BITOR: acc->k0 |= r->k0; break;
  case TALLY__FAM_BITXOR: acc->k0 ^= r->k0; break;
  case TALLY__FAM_AFFINE:
    /* r ∘ acc: x → r.A·(acc.A·x + acc.B) + r.B. */
    acc->lo = r->hi * acc->lo + r->lo;
    acc->hi = r->hi * acc->hi;
    acc->k1 = (int64_t)((uint64_t)r->k0 * (uint64_t)acc->k1 + (uint64_t)r->k1);
    acc->k0 = (int64_t)((uint64_t)r->k0 * (uint64_t)acc->k0);
    break;
  default: break;
  }
}

#endif

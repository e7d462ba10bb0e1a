/* The CPU histogram: private bins per part, merged in part order.
 *
 * The input is cut into P contiguous parts, P a function of nbins alone (at most 64, and
 * P·nbins ≤ 2^22 so the private bins stay small): never of the thread count. Each part
 * is one pool task with its own counts (and, with weights, its own compensated sums);
 * the calling thread merges parts in index order. Counts are exact whatever the order;
 * weight sums are deterministic because the parts are. For up to 2048 bins a part keeps
 * four interleaved copies of its counts (element i in copy i mod 4): input that falls in
 * one bin then increments four counters in turn instead of one, which keeps a store from
 * waiting on the one before it. One-byte inputs are binned through a 256-entry table. */
#include "cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PARTS 64
#define PART_CELLS ((int64_t)1 << 22)
#define COPIES_MAX_BINS 2048
#define OUT_BELOW -1
#define OUT_ABOVE -2
#define OUT_NAN -3

typedef struct {
  const tally__hist_problem *p;
  const char *x, *w;
  int64_t bx, bw;          /* byte strides */
  const double *e;         /* explicit edges, or NULL: even bins */
  double *even;            /* even bins up to EVEN_TABLE_MAX: their edges, as even_edge() */
  double lo, hi, step;     /* even bins: edge k = k·step + lo, edge nbins = hi */
  double scale;            /* even bins: nbins / (hi - lo) */
  int32_t lut[256];        /* one-byte inputs: value → bin or OUT_* */
  int use_lut, copies;
  int64_t nparts;
  uint64_t *counts;        /* nparts × copies × nbins */
  double *sums;            /* nparts × 2 × nbins (hi, lo) */
  int64_t (*stat)[3];      /* per part: below, above, nan */
} hjob;

/* Edge k of even bins, as numpy's linspace computes it: from a table where nbins is small
 * (a load is cheaper than the arithmetic), else computed (nbins may be 2^30). */
#define EVEN_TABLE_MAX 65536
static inline double even_edge(const hjob *j, int64_t k) {
  if (j->even) return j->even[k];
  return k == j->p->nbins ? j->hi : (double)k * j->step + j->lo;
}

/* Even bins, lo <= v <= hi: the largest k < nbins with even_edge(k) <= v (the edges do
 * not decrease; several may be equal where the step is below the spacing of doubles near
 * lo). The guess from (v - lo)·scale is off by at most a bin where the edges are apart
 * (a few roundings); where it is not confirmed within a step, bisection over the edges
 * (at most 31 steps for 2^30 bins) decides, never a walk over many bins. */
static inline int64_t even_bin(const hjob *j, double v) {
  int64_t nb = j->p->nbins;
  double f = (v - j->lo) * j->scale; /* >= 0, or NaN where scale overflowed */
  int64_t k = f < (double)nb ? (int64_t)f : nb - 1;
  if (v >= even_edge(j, k)) {
    if (k == nb - 1 || v < even_edge(j, k + 1)) return k;
    if (k + 1 == nb - 1 || v < even_edge(j, k + 2)) return k + 1;
  } else if (k > 0 && v >= even_edge(j, k - 1)) {
    return k - 1;
  }
  int64_t a = 0, b = nb; /* even_edge(a) <= v; b == nb or v < even_edge(b) */
  while (b - a > 1) {
    int64_t mid = a + (b - a) / 2;
    if (v >= even_edge(j, mid)) a = mid;
    else b = mid;
  }
  return a;
}

/* The bin of v, or OUT_*: bin k holds edge[k] <= v < edge[k+1], the last bin also v == hi. */
static inline int64_t bin_of(const hjob *j, double v) {
  if (v != v) return OUT_NAN;
  const double *e = j->e;
  int64_t nb = j->p->nbins;
  if (!e) {
    if (v < j->lo) return OUT_BELOW;
    if (v > j->hi) return OUT_ABOVE;
    return even_bin(j, v);
  }
  if (v < e[0]) return OUT_BELOW;
  if (v > e[nb]) return OUT_ABOVE;
  int64_t lo = 0, hi = nb; /* e[lo] <= v, and v < e[hi] unless v == e[nb] */
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (v >= e[mid]) lo = mid;
    else hi = mid;
  }
  return lo;
}

static double load_f(tally_dtype t, const char *p) {
  switch (t) {
  case TALLY_BOOL: return *(const uint8_t *)p != 0;
  case TALLY_I8: return *(const int8_t *)p;
  case TALLY_I16: return *(const int16_t *)p;
  case TALLY_I32: return *(const int32_t *)p;
  case TALLY_I64: return (double)*(const int64_t *)p;
  case TALLY_U8: return *(const uint8_t *)p;
  case TALLY_U16: return *(const uint16_t *)p;
  case TALLY_U32: return *(const uint32_t *)p;
  case TALLY_U64: return (double)*(const uint64_t *)p;
  case TALLY_F16: return tally_f16_to_f32(*(const uint16_t *)p);
  case TALLY_BF16: return tally_bf16_to_f32(*(const uint16_t *)p);
  case TALLY_F32: return *(const float *)p;
  default: return *(const double *)p;
  }
}

/* Where an out-of-range value goes: a bin (CLAMP), or nowhere (-1); counted in st. */
static inline int64_t place(const hjob *j, int64_t k, int64_t *st) {
  if (k >= 0) return k;
  st[k == OUT_BELOW ? 0 : k == OUT_ABOVE ? 1 : 2]++;
  if (k == OUT_NAN || j->p->outside == TALLY_HIST_DROP) return -1;
  return k == OUT_BELOW ? 0 : j->p->nbins - 1;
}

/* Counting loops, one per input type (the conversion inlined). The job's fields are
 * copied into locals: stores into the counts could otherwise alias them, and every
 * iteration would load them again. */
#define COUNT_LOOP(SUF, EXPR)                                                              \
  static void count_##SUF(const hjob *j, int64_t a, int64_t b, uint64_t *restrict c,       \
                          int64_t *st) {                                                   \
    const int64_t nb = j->p->nbins, cm = j->copies - 1, bx = j->bx;                        \
    const char *x = j->x;                                                                  \
    for (int64_t i = a; i < b; i++) {                                                      \
      const char *q = x + i * bx;                                                          \
      int64_t k = bin_of(j, (double)(EXPR));                                               \
      if (k < 0 && (k = place(j, k, st)) < 0) continue;                                    \
      c[(i & cm) * nb + k]++;                                                              \
    }                                                                                      \
  }
COUNT_LOOP(f32, *(const float *)q)
COUNT_LOOP(f64, *(const double *)q)
COUNT_LOOP(i32, *(const int32_t *)q)
COUNT_LOOP(i64, *(const int64_t *)q)
COUNT_LOOP(any, load_f(j->p->dtype, q))

static void count_lut(const hjob *j, int64_t a, int64_t b, uint64_t *restrict c, int64_t *st) {
  const int64_t nb = j->p->nbins, cm = j->copies - 1, bx = j->bx;
  const unsigned char *x = (const unsigned char *)j->x;
  int32_t lut[256];
  memcpy(lut, j->lut, sizeof lut);
  for (int64_t i = a; i < b; i++) {
    int64_t k = lut[x[i * bx]];
    if (k < 0 && (k = place(j, k, st)) < 0) continue;
    c[(i & cm) * nb + k]++;
  }
}

/* Neumaier's step: returns h + w, the error of that addition added to *lo. Once the sum
 * is not finite (an Inf or NaN weight, or overflow) it is the plain sum's IEEE result, and
 * the error term (Inf - Inf = NaN there) is left out. */
static inline double neumaier(double h, double w, double *lo) {
  double t = h + w;
  if (isfinite(t)) *lo += fabs(h) >= fabs(w) ? (h - t) + w : (w - t) + h;
  return t;
}

static void weigh(const hjob *j, int64_t a, int64_t b, uint64_t *c, double *s, int64_t *st) {
  int64_t nb = j->p->nbins;
  bool fast = j->p->accuracy == TALLY_ACCURACY_FAST;
  for (int64_t i = a; i < b; i++) {
    double v = load_f(j->p->dtype, j->x + i * j->bx);
    int64_t k = place(j, j->use_lut ? j->lut[*(const uint8_t *)(j->x + i * j->bx)] : bin_of(j, v), st);
    if (k < 0) continue;
    c[k]++;
    double w = load_f(j->p->wdtype, j->w + i * j->bw);
    if (fast) {
      s[k] += w;
    } else {
      s[k] = neumaier(s[k], w, &s[nb + k]);
    }
  }
}

static void part_task(void *arg, int64_t t) {
  hjob *j = arg;
  const tally__hist_problem *p = j->p;
  int64_t a = t * p->n / j->nparts, b = (t + 1) * p->n / j->nparts;
  uint64_t *c = j->counts + t * j->copies * p->nbins;
  int64_t *st = j->stat[t];
  if (p->has_weights) {
    weigh(j, a, b, c, j->sums + t * 2 * p->nbins, st);
    return;
  }
  if (j->use_lut) count_lut(j, a, b, c, st);
  else if (p->dtype == TALLY_F32) count_f32(j, a, b, c, st);
  else if (p->dtype == TALLY_F64) count_f64(j, a, b, c, st);
  else if (p->dtype == TALLY_I32) count_i32(j, a, b, c, st);
  else if (p->dtype == TALLY_I64) count_i64(j, a, b, c, st);
  else count_any(j, a, b, c, st);
}

tally_status tally__cpu_histogram(tally_context *ctx, const tally__hist_problem *p, const void *in,
                                  const void *weights, void *counts, void *weight_sums,
                                  tally_hist_stats *stats) {
  tally__cpu_ctx *c = (tally__cpu_ctx *)ctx;
  int64_t nb = p->nbins;
  hjob j;
  memset(&j, 0, sizeof j);
  j.p = p;
  j.x = in;
  j.w = weights;
  j.bx = p->sx * (int64_t)tally_dtype_size(p->dtype);
  j.bw = p->has_weights ? p->sw * (int64_t)tally_dtype_size(p->wdtype) : 0;
  j.e = p->edges;
  j.lo = p->lo;
  j.hi = p->hi;
  j.step = (p->hi - p->lo) / (double)nb; /* as numpy's linspace */
  j.scale = (double)nb / (p->hi - p->lo);
  if (!p->edges && nb <= EVEN_TABLE_MAX && (j.even = malloc((size_t)(nb + 1) * sizeof *j.even))) {
    for (int64_t k = 0; k < nb; k++) j.even[k] = (double)k * j.step + j.lo;
    j.even[nb] = j.hi;
  }
  tally__kind kind = tally__dtype_kind(p->dtype);
  j.use_lut = tally_dtype_size(p->dtype) == 1;
  if (j.use_lut)
    for (int v = 0; v < 256; v++) {
      double d = p->dtype == TALLY_BOOL ? (v != 0) : kind == TALLY__KIND_SINT ? (int8_t)v : v;
      j.lut[v] = (int32_t)bin_of(&j, d);
    }
  j.copies = !p->has_weights && nb <= COPIES_MAX_BINS ? 4 : 1;
  int64_t cells = nb * j.copies;
  j.nparts = PART_CELLS / cells;
  if (j.nparts > MAX_PARTS) j.nparts = MAX_PARTS;
  if (j.nparts < 1) j.nparts = 1;
  if (j.nparts > p->n) j.nparts = p->n > 0 ? p->n : 1;
  j.counts = calloc((size_t)(j.nparts * cells), sizeof *j.counts);
  j.sums = p->has_weights ? calloc((size_t)(j.nparts * 2 * nb), sizeof *j.sums) : NULL;
  j.stat = calloc((size_t)j.nparts, sizeof *j.stat);
  tally_status s = TALLY_OK;
  if (!j.counts || !j.stat || (p->has_weights && !j.sums)) {
    s = tally__fail(ctx, TALLY_ENOMEM, "histogram: out of memory for %lld private bins",
                    (long long)(j.nparts * cells));
    goto done;
  }
  int64_t bytes = p->n * (int64_t)tally_dtype_size(p->dtype);
  bool parallel = c->threads > 1 && j.nparts > 1 && bytes >= c->parallel_bytes;
  if (parallel) tally__pool_run(c->pool, j.nparts, part_task, &j, NULL, NULL);
  else
    for (int64_t t = 0; t < j.nparts; t++) part_task(&j, t);

  /* Merge in part order. */
  uint64_t *co = counts;
  double *wo = weight_sums;
  memset(stats, 0, sizeof *stats);
  for (int64_t k = 0; k < nb; k++) {
    uint64_t sum = 0;
    double hi = 0, lo = 0;
    for (int64_t t = 0; t < j.nparts; t++) {
      for (int cp = 0; cp < j.copies; cp++) sum += j.counts[(t * j.copies + cp) * nb + k];
      if (j.sums) {
        const double *ps = j.sums + t * 2 * nb;
        if (p->accuracy == TALLY_ACCURACY_FAST) {
          hi += ps[k];
        } else {
          hi = neumaier(hi, ps[k], &lo);
          lo += ps[nb + k];
        }
      }
    }
    co[k * p->cs] = sum;
    if (wo && p->want_sums) wo[k * p->ws] = hi + lo;
    stats->counted += (int64_t)sum;
  }
  for (int64_t t = 0; t < j.nparts; t++) {
    stats->below += j.stat[t][0];
    stats->above += j.stat[t][1];
    stats->nan += j.stat[t][2];
  }
  stats->n = p->n;
done:
  free(j.even);
  free(j.counts);
  free(j.sums);
  free(j.stat);
  return s;
}

/* Vector kernels of the CPU scan, compiled once per ISA (TALLY_ISA) like kernels.c: the
 * full blocks of 8 of a contiguous float SUM. Each block's prefix is three Hillis–Steele
 * steps (add the block shifted by 1, 2, 4 lanes; lanes shifted in hold −0.0, which adds
 * exactly nothing), the same steps, in the same order, as BLOCK_KERNEL in scan_kern.c,
 * so contiguous and strided data give the same bits, on every ISA. */
#include "scan.h"
#include "kern_load.h" /* TALLY_AVX2_HALVES */

#include <string.h>

#ifndef TALLY_ISA
#define TALLY_ISA scalar
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

typedef double vd8 __attribute__((vector_size(64)));
typedef int64_t vl8 __attribute__((vector_size(64)));

#define SH(v, f, k)                                                                            \
  __builtin_shufflevector(v, f, (k) > 0 ? 8 : 0, (k) > 1 ? 8 : 1 - (k), (k) > 2 ? 8 : 2 - (k), \
                          (k) > 3 ? 8 : 3 - (k), 4 - (k), 5 - (k), 6 - (k), 7 - (k))

/* Inclusive prefix of the 8 lanes; fill is −0.0 in every lane. */
#define PREFIX(v, f)          \
  do {                        \
    v = v + SH(v, f, 1);      \
    v = v + SH(v, f, 2);      \
    v = v + SH(v, f, 4);      \
  } while (0)

/* Eight f64 lanes (V8) and their lane masks (M8). With AVX-512 one 64-byte GCC vector;
 * with AVX2 two 32-byte halves (lanes 0-3, 4-7): GCC gives a 64-byte vector no register
 * mode there and keeps every such value in memory, moving it in pieces between operations
 * (measured on an AVX2 AMD EPYC: the f32 DEFAULT scan at 0.13 x the copy probe, 0.28 x
 * with halves). The halves do the same operations on the same lanes, so the same bits.
 * The scalar set (SSE2) keeps the 64-byte vector: its 32-byte halves have no register
 * mode either, and measured slower (4.3 GB/s against 6.8). */
#if !TALLY_AVX2_HALVES
typedef vd8 V8;
typedef vl8 M8;
static inline V8 v8_add(V8 a, V8 b) { return a + b; }
static inline V8 v8_sub(V8 a, V8 b) { return a - b; }
static inline V8 v8_splat(double s) { return (V8){s, s, s, s, s, s, s, s}; }
static inline double v8_last(V8 v) { return v[7]; }
static inline V8 v8_load(const double *p) { V8 v; memcpy(&v, p, sizeof v); return v; }
static inline void v8_store(double *p, V8 v) { memcpy(p, &v, sizeof v); }
static inline V8 v8_of_f32(vf8 x) { return __builtin_convertvector(x, vd8); }
static inline vf8 v8_to_f32(V8 v) { return __builtin_convertvector(v, vf8); }
static inline M8 v8_finite(V8 s) { return (s - s) == (s - s); } /* all ones where finite */
static inline M8 v8_same(V8 v) { return v == v; }                /* all ones but at NaNs */
static inline V8 v8_pick(M8 m, V8 a, V8 b) { return (V8)((m & (M8)a) | (~m & (M8)b)); }
static inline V8 v8_keep(M8 m, V8 a) { return (V8)(m & (M8)a); }
#define V8_SH(v, f, k) SH(v, f, k)
/* evens + odds of the 16 lanes of a, b */
#define V8_PAIRS(a, b) (__builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14) + \
                        __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15))
#else
typedef double vd4 __attribute__((vector_size(32)));
typedef int64_t vl4 __attribute__((vector_size(32)));
typedef float vf4 __attribute__((vector_size(16)));
typedef struct { vd4 lo, hi; } V8;
typedef struct { vl4 lo, hi; } M8;
static inline V8 v8_add(V8 a, V8 b) { return (V8){a.lo + b.lo, a.hi + b.hi}; }
static inline V8 v8_sub(V8 a, V8 b) { return (V8){a.lo - b.lo, a.hi - b.hi}; }
static inline V8 v8_splat(double s) { return (V8){{s, s, s, s}, {s, s, s, s}}; }
static inline double v8_last(V8 v) { return v.hi[3]; }
static inline V8 v8_load(const double *p) {
  V8 v;
  memcpy(&v.lo, p, sizeof v.lo);
  memcpy(&v.hi, p + 4, sizeof v.hi);
  return v;
}
static inline void v8_store(double *p, V8 v) {
  memcpy(p, &v.lo, sizeof v.lo);
  memcpy(p + 4, &v.hi, sizeof v.hi);
}
static inline V8 v8_of_f32(vf8 x) {
  vf4 lo = __builtin_shufflevector(x, x, 0, 1, 2, 3), hi = __builtin_shufflevector(x, x, 4, 5, 6, 7);
  return (V8){__builtin_convertvector(lo, vd4), __builtin_convertvector(hi, vd4)};
}
static inline vf8 v8_to_f32(V8 v) {
  vf4 lo = __builtin_convertvector(v.lo, vf4), hi = __builtin_convertvector(v.hi, vf4);
  return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
}
static inline M8 v8_finite(V8 s) {
  return (M8){(s.lo - s.lo) == (s.lo - s.lo), (s.hi - s.hi) == (s.hi - s.hi)};
}
static inline M8 v8_same(V8 v) { return (M8){v.lo == v.lo, v.hi == v.hi}; }
static inline V8 v8_pick(M8 m, V8 a, V8 b) {
  return (V8){(vd4)((m.lo & (vl4)a.lo) | (~m.lo & (vl4)b.lo)),
              (vd4)((m.hi & (vl4)a.hi) | (~m.hi & (vl4)b.hi))};
}
static inline V8 v8_keep(M8 m, V8 a) { return (V8){(vd4)(m.lo & (vl4)a.lo), (vd4)(m.hi & (vl4)a.hi)}; }
/* SH across the halves: lanes below k from f, lane j >= k from lane j - k */
#define V8_SH(v, f, k)                                                                         \
  ((V8){__builtin_shufflevector((v).lo, (f).lo, (k) > 0 ? 4 : 0, (k) > 1 ? 4 : 1 - (k),        \
                                (k) > 2 ? 4 : 2 - (k), (k) > 3 ? 4 : 3 - (k)),                 \
        __builtin_shufflevector((v).lo, (v).hi, 4 - (k), 5 - (k), 6 - (k), 7 - (k))})
#define V8_PAIRS(a, b)                                                                         \
  ((V8){__builtin_shufflevector((a).lo, (a).hi, 0, 2, 4, 6) +                                  \
            __builtin_shufflevector((a).lo, (a).hi, 1, 3, 5, 7),                               \
        __builtin_shufflevector((b).lo, (b).hi, 0, 2, 4, 6) +                                  \
            __builtin_shufflevector((b).lo, (b).hi, 1, 3, 5, 7)})
#endif

/* Inclusive prefix of V8 lanes; fill is −0.0 in every lane of f. */
#define PREFIX8(v, f)                    \
  do {                                   \
    v = v8_add(v, V8_SH(v, f, 1));       \
    v = v8_add(v, V8_SH(v, f, 2));       \
    v = v8_add(v, V8_SH(v, f, 4));       \
  } while (0)

static int64_t sum_f32_d(const tally__scan_args *g, const char *xc, char *oc, int64_t m, void *sp,
                         void *tp, int write) {
  const float *x = (const float *)xc;
  float *o = (float *)oc;
  double s, t;
  memcpy(&s, sp, 8);
  memcpy(&t, tp, 8);
  const V8 f = v8_splat(-0.0);
  int64_t i = 0;
  for (; i + 8 <= m; i += 8) {
    vf8 xf;
    memcpy(&xf, x + i, sizeof xf);
    if (g->ignore_nan) xf = (vf8)((vi8)(xf == xf) & (vi8)xf); /* NaN → +0.0 */
    V8 v = v8_of_f32(xf);
    PREFIX8(v, f);
    if (write) {
      V8 r = v8_add(g->exclusive ? V8_SH(v, f, 1) : v, v8_splat(s));
      vf8 rf = v8_to_f32(r);
      memcpy(o + i, &rf, sizeof rf);
    }
    s = s + v8_last(v);
    t = t + v8_last(v);
  }
  memcpy(sp, &s, 8);
  memcpy(tp, &t, 8);
  return i;
}

static int64_t sum_f32_f(const tally__scan_args *g, const char *xc, char *oc, int64_t m, void *sp,
                         void *tp, int write) {
  const float *x = (const float *)xc;
  float *o = (float *)oc;
  float s, t;
  memcpy(&s, sp, 4);
  memcpy(&t, tp, 4);
  const vf8 f = {-0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f};
  int64_t i = 0;
  for (; i + 8 <= m; i += 8) {
    vf8 v;
    memcpy(&v, x + i, sizeof v);
    if (g->ignore_nan) v = (vf8)((vi8)(v == v) & (vi8)v);
    PREFIX(v, f);
    if (write) {
      vf8 r = (g->exclusive ? SH(v, f, 1) : v) + s;
      memcpy(o + i, &r, sizeof r);
    }
    s = s + v[7];
    t = t + v[7];
  }
  memcpy(sp, &s, 4);
  memcpy(tp, &t, 4);
  return i;
}

static int64_t sum_f64(const tally__scan_args *g, const char *xc, char *oc, int64_t m, void *sp,
                       void *tp, int write) {
  const double *x = (const double *)xc;
  double *o = (double *)oc;
  double s, t;
  memcpy(&s, sp, 8);
  memcpy(&t, tp, 8);
  const V8 f = v8_splat(-0.0);
  int64_t i = 0;
  for (; i + 8 <= m; i += 8) {
    V8 v = v8_load(x + i);
    if (g->ignore_nan) v = v8_keep(v8_same(v), v);
    PREFIX8(v, f);
    if (write) v8_store(o + i, v8_add(g->exclusive ? V8_SH(v, f, 1) : v, v8_splat(s)));
    s = s + v8_last(v);
    t = t + v8_last(v);
  }
  memcpy(sp, &s, 8);
  memcpy(tp, &t, 8);
  return i;
}

/* f64 DEFAULT: double-double lanes (hi, lo), dd_add of scan_kern.c lane by lane. */
typedef struct { V8 h, l; } vdd;

static inline vdd vdd_add(vdd a, vdd b) {
  V8 s = v8_add(a.h, b.h);
  V8 bb = v8_sub(s, a.h), e = v8_add(v8_sub(a.h, v8_sub(s, bb)), v8_sub(b.h, bb));
  e = v8_add(e, v8_add(a.l, b.l));
  V8 h = v8_add(s, e);
  V8 l = v8_sub(e, v8_sub(h, s));
  /* Inf and NaN: (s, 0), as the scalar code */
  M8 fin = v8_finite(s);
  vdd r;
  r.h = v8_pick(fin, h, s);
  r.l = v8_keep(fin, l);
  return r;
}

#define VDD_SH(v, f, k) ((vdd){V8_SH((v).h, (f).h, k), V8_SH((v).l, (f).l, k)})

/* The scalar dd_add, for the running value (the same arithmetic as scan_kern.c's). */
static inline void dd1_add(double *ah, double *al, double bh, double bl) {
  double s = *ah + bh;
  if (s - s != s - s) { *ah = s; *al = 0.0; return; }
  double bb = s - *ah, e = (*ah - (s - bb)) + (bh - bb);
  e += *al + bl;
  double h = s + e;
  *al = e - (h - s);
  *ah = h;
}

static int64_t sum_f64_dd(const tally__scan_args *g, const char *xc, char *oc, int64_t m, void *sp,
                          void *tp, int write) {
  const double *x = (const double *)xc;
  double *o = (double *)oc;
  double s[2], t[2];
  memcpy(s, sp, 16);
  memcpy(t, tp, 16);
  const V8 mz = v8_splat(-0.0);
  const vdd f = {mz, mz};
  int64_t i = 0;
  for (; i + 8 <= m; i += 8) {
    vdd v;
    v.h = v8_load(x + i);
    if (g->ignore_nan) v.h = v8_keep(v8_same(v.h), v.h);
    v.l = v8_splat(0.0);
    v = vdd_add(v, VDD_SH(v, f, 1));
    v = vdd_add(v, VDD_SH(v, f, 2));
    v = vdd_add(v, VDD_SH(v, f, 4));
    if (write) {
      vdd sv = {v8_splat(s[0]), v8_splat(s[1])};
      vdd r = vdd_add(sv, g->exclusive ? VDD_SH(v, f, 1) : v);
      v8_store(o + i, r.h);
    }
    dd1_add(&s[0], &s[1], v8_last(v.h), v8_last(v.l));
    dd1_add(&t[0], &t[1], v8_last(v.h), v8_last(v.l));
  }
  memcpy(sp, s, 16);
  memcpy(tp, t, 16);
  return i;
}

/* Pass 1 only needs each block's total w[7] = ((x0+x1) + (x2+x3)) + ((x4+x5) + (x6+x7))
 * (the Hillis–Steele steps' last lane, in that order: additions are commutative) and
 * their running sum. Eight blocks at a time, transposed: three levels of adding the even
 * and odd lanes of two vectors give the eight totals in one vector, a third of the work
 * of three prefix steps per block. */
#define EVENS 0, 2, 4, 6, 8, 10, 12, 14
#define ODDS 1, 3, 5, 7, 9, 11, 13, 15
#define PAIRS(a, b) (__builtin_shufflevector(a, b, EVENS) + __builtin_shufflevector(a, b, ODDS))
#define TOTALS(V, T)                                                                \
  do {                                                                              \
    __typeof__(V[0]) p0 = PAIRS(V[0], V[1]), p1 = PAIRS(V[2], V[3]);                \
    __typeof__(V[0]) p2 = PAIRS(V[4], V[5]), p3 = PAIRS(V[6], V[7]);                \
    __typeof__(V[0]) q0 = PAIRS(p0, p1), q1 = PAIRS(p2, p3);                        \
    T = PAIRS(q0, q1);                                                              \
  } while (0)
#define TOTALS8(V, T)                                                               \
  do {                                                                              \
    V8 p0 = V8_PAIRS(V[0], V[1]), p1 = V8_PAIRS(V[2], V[3]);                        \
    V8 p2 = V8_PAIRS(V[4], V[5]), p3 = V8_PAIRS(V[6], V[7]);                        \
    V8 q0 = V8_PAIRS(p0, p1), q1 = V8_PAIRS(p2, p3);                                \
    T = V8_PAIRS(q0, q1);                                                           \
  } while (0)

static int64_t reduce_f32_d(const tally__scan_args *g, const char *xc, char *oc, int64_t m,
                            void *sp, void *tp, int write) {
  const float *x = (const float *)xc;
  double t;
  memcpy(&t, tp, 8);
  int64_t i = 0;
  for (; i + 64 <= m; i += 64) {
    V8 v[8], tot;
    for (int b = 0; b < 8; b++) {
      vf8 xf;
      memcpy(&xf, x + i + 8 * b, sizeof xf);
      if (g->ignore_nan) xf = (vf8)((vi8)(xf == xf) & (vi8)xf);
      v[b] = v8_of_f32(xf);
    }
    TOTALS8(v, tot);
    double tl[8];
    v8_store(tl, tot);
    for (int b = 0; b < 8; b++) t = t + tl[b];
  }
  memcpy(tp, &t, 8);
  return i + sum_f32_d(g, xc + 4 * i, oc, m - i, sp, tp, write);
}

static int64_t reduce_f32_f(const tally__scan_args *g, const char *xc, char *oc, int64_t m,
                            void *sp, void *tp, int write) {
  const float *x = (const float *)xc;
  float t;
  memcpy(&t, tp, 4);
  int64_t i = 0;
  for (; i + 64 <= m; i += 64) {
    vf8 v[8], tot;
    for (int b = 0; b < 8; b++) {
      memcpy(&v[b], x + i + 8 * b, sizeof v[b]);
      if (g->ignore_nan) v[b] = (vf8)((vi8)(v[b] == v[b]) & (vi8)v[b]);
    }
    TOTALS(v, tot);
    for (int b = 0; b < 8; b++) t = t + tot[b];
  }
  memcpy(tp, &t, 4);
  return i + sum_f32_f(g, xc + 4 * i, oc, m - i, sp, tp, write);
}

static int64_t reduce_f64(const tally__scan_args *g, const char *xc, char *oc, int64_t m,
                          void *sp, void *tp, int write) {
  const double *x = (const double *)xc;
  double t;
  memcpy(&t, tp, 8);
  int64_t i = 0;
  for (; i + 64 <= m; i += 64) {
    V8 v[8], tot;
    for (int b = 0; b < 8; b++) {
      v[b] = v8_load(x + i + 8 * b);
      if (g->ignore_nan) v[b] = v8_keep(v8_same(v[b]), v[b]);
    }
    TOTALS8(v, tot);
    double tl[8];
    v8_store(tl, tot);
    for (int b = 0; b < 8; b++) t = t + tl[b];
  }
  memcpy(tp, &t, 8);
  return i + sum_f64(g, xc + 8 * i, oc, m - i, sp, tp, write);
}

const tally__scan_simd_set CAT(tally__scan_simd_, TALLY_ISA) = {
    sum_f32_d, sum_f32_f, sum_f64, sum_f64_dd, reduce_f32_d, reduce_f32_f, reduce_f64};

/* Vector kernels of the CPU scan, compiled once per ISA (TALLY_ISA) like kernels.c: the
 * full blocks of 8 of a contiguous float SUM. Each block's prefix is three Hillis–Steele
 * steps (add the block shifted by 1, 2, 4 lanes; lanes shifted in hold −0.0, which adds
 * exactly nothing), the same steps, in the same order, as BLOCK_KERNEL in scan_kern.c,
 * so contiguous and strided data give the same bits, on every ISA. */
#include "scan.h"

#include <string.h>

#ifndef TALLY_ISA
#define TALLY_ISA scalar
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

typedef double vd8 __attribute__((vector_size(64)));
typedef float vf8 __attribute__((vector_size(32)));
typedef int32_t vi8 __attribute__((vector_size(32)));
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

static int64_t sum_f32_d(const tally__scan_args *g, const char *xc, char *oc, int64_t m, void *sp,
                         void *tp, int write) {
  const float *x = (const float *)xc;
  float *o = (float *)oc;
  double s, t;
  memcpy(&s, sp, 8);
  memcpy(&t, tp, 8);
  const vd8 f = {-0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0};
  int64_t i = 0;
  for (; i + 8 <= m; i += 8) {
    vf8 xf;
    memcpy(&xf, x + i, sizeof xf);
    if (g->ignore_nan) xf = (vf8)((vi8)(xf == xf) & (vi8)xf); /* NaN → +0.0 */
    vd8 v = __builtin_convertvector(xf, vd8);
    PREFIX(v, f);
    if (write) {
      vd8 r = (g->exclusive ? SH(v, f, 1) : v) + s;
      vf8 rf = __builtin_convertvector(r, vf8);
      memcpy(o + i, &rf, sizeof rf);
    }
    s = s + v[7];
    t = t + v[7];
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
  const vd8 f = {-0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0};
  int64_t i = 0;
  for (; i + 8 <= m; i += 8) {
    vd8 v;
    memcpy(&v, x + i, sizeof v);
    if (g->ignore_nan) v = (vd8)((vl8)(v == v) & (vl8)v);
    PREFIX(v, f);
    if (write) {
      vd8 r = (g->exclusive ? SH(v, f, 1) : v) + s;
      memcpy(o + i, &r, sizeof r);
    }
    s = s + v[7];
    t = t + v[7];
  }
  memcpy(sp, &s, 8);
  memcpy(tp, &t, 8);
  return i;
}

/* f64 DEFAULT: double-double lanes (hi, lo), dd_add of scan_kern.c lane by lane. */
typedef struct { vd8 h, l; } vdd;

static inline vdd vdd_add(vdd a, vdd b) {
  vd8 s = a.h + b.h;
  vd8 bb = s - a.h, e = (a.h - (s - bb)) + (b.h - bb);
  e = e + (a.l + b.l);
  vd8 h = s + e;
  vd8 l = e - (h - s);
  /* Inf and NaN: (s, 0), as the scalar code */
  vl8 fin = (s - s) == (s - s); /* all ones where s is finite */
  vdd r;
  r.h = (vd8)((fin & (vl8)h) | (~fin & (vl8)s));
  r.l = (vd8)(fin & (vl8)l);
  return r;
}

static inline vdd vdd_sh(vdd v, const vdd f, int k) {
  vdd r;
  if (k == 1) r.h = SH(v.h, f.h, 1), r.l = SH(v.l, f.l, 1);
  else if (k == 2) r.h = SH(v.h, f.h, 2), r.l = SH(v.l, f.l, 2);
  else r.h = SH(v.h, f.h, 4), r.l = SH(v.l, f.l, 4);
  return r;
}

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
  const vd8 mz = {-0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0, -0.0};
  const vdd f = {mz, mz};
  int64_t i = 0;
  for (; i + 8 <= m; i += 8) {
    vdd v;
    memcpy(&v.h, x + i, sizeof v.h);
    if (g->ignore_nan) v.h = (vd8)((vl8)(v.h == v.h) & (vl8)v.h);
    v.l = (vd8){0, 0, 0, 0, 0, 0, 0, 0};
    v = vdd_add(v, vdd_sh(v, f, 1));
    v = vdd_add(v, vdd_sh(v, f, 2));
    v = vdd_add(v, vdd_sh(v, f, 4));
    if (write) {
      vdd sv = {{s[0], s[0], s[0], s[0], s[0], s[0], s[0], s[0]},
                {s[1], s[1], s[1], s[1], s[1], s[1], s[1], s[1]}};
      vdd r = vdd_add(sv, g->exclusive ? vdd_sh(v, f, 1) : v);
      memcpy(o + i, &r.h, sizeof r.h);
    }
    dd1_add(&s[0], &s[1], v.h[7], v.l[7]);
    dd1_add(&t[0], &t[1], v.h[7], v.l[7]);
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

static int64_t reduce_f32_d(const tally__scan_args *g, const char *xc, char *oc, int64_t m,
                            void *sp, void *tp, int write) {
  const float *x = (const float *)xc;
  double t;
  memcpy(&t, tp, 8);
  int64_t i = 0;
  for (; i + 64 <= m; i += 64) {
    vd8 v[8], tot;
    for (int b = 0; b < 8; b++) {
      vf8 xf;
      memcpy(&xf, x + i + 8 * b, sizeof xf);
      if (g->ignore_nan) xf = (vf8)((vi8)(xf == xf) & (vi8)xf);
      v[b] = __builtin_convertvector(xf, vd8);
    }
    TOTALS(v, tot);
    for (int b = 0; b < 8; b++) t = t + tot[b];
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
    vd8 v[8], tot;
    for (int b = 0; b < 8; b++) {
      memcpy(&v[b], x + i + 8 * b, sizeof v[b]);
      if (g->ignore_nan) v[b] = (vd8)((vl8)(v[b] == v[b]) & (vl8)v[b]);
    }
    TOTALS(v, tot);
    for (int b = 0; b < 8; b++) t = t + tot[b];
  }
  memcpy(tp, &t, 8);
  return i + sum_f64(g, xc + 8 * i, oc, m - i, sp, tp, write);
}

const tally__scan_simd_set CAT(tally__scan_simd_, TALLY_ISA) = {
    sum_f32_d, sum_f32_f, sum_f64, sum_f64_dd, reduce_f32_d, reduce_f32_f, reduce_f64};

/* Vector kernels of the CPU scan, compiled once per ISA (TALLY_ISA) like kernels.c: the
 * full blocks of 8 of a contiguous float SUM (the compensated f64 SUM: scan_dd.c). Each block's prefix is three Hillis–Steele
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

/* The three entry points of an f64-lane scan kernel (LANES, below, of the AVX2 set's
 * loops or the AVX-512 set's): NAME (blocks, every option set), NAME_reduce (pass 1,
 * then blocks) and NAME_fused, from a set's BLOCKS, TOTALS and FUSED loops. */
#define LANES_FNS(NAME, SRC, BLOCKS, TOTALS, FUSED)                                         \
  static int64_t NAME(const tally__scan_args *g, const char *x, char *o, int64_t m,         \
                      void *sp, void *tp, int write) {                                      \
    return !(write) ? (g->ignore_nan ? BLOCKS(x, o, m, sp, tp, SRC, 0, 0, 1)                \
                                     : BLOCKS(x, o, m, sp, tp, SRC, 0, 0, 0))               \
           : g->exclusive ? (g->ignore_nan ? BLOCKS(x, o, m, sp, tp, SRC, 1, 1, 1)          \
                                           : BLOCKS(x, o, m, sp, tp, SRC, 1, 1, 0))         \
           : g->ignore_nan ? BLOCKS(x, o, m, sp, tp, SRC, 1, 0, 1)                          \
                           : BLOCKS(x, o, m, sp, tp, SRC, 1, 0, 0);                         \
  }                                                                                         \
  static int64_t NAME##_reduce(const tally__scan_args *g, const char *x, char *o, int64_t m, \
                               void *sp, void *tp, int write) {                             \
    int64_t i = g->ignore_nan ? TOTALS(x, m, tp, SRC, 1) : TOTALS(x, m, tp, SRC, 0);        \
    return i + NAME(g, x + SRC_ES(SRC) * i, o, m - i, sp, tp, write);                       \
  }                                                                                         \
  static int NAME##_fused(const char *x, char *o, int64_t m, void *s, const char *x1,       \
                          void *t1, char *o1, int flags) {                                  \
    (void)o1, (void)flags;                                                                  \
    FUSED(x, o, m, s, x1, t1, SRC);                                                         \
    return 0;                                                                               \
  }

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
static inline V8 v8_mul(V8 a, V8 b) { return a * b; }
static inline V8 v8_splat(double s) { return (V8){s, s, s, s, s, s, s, s}; }
static inline double v8_last(V8 v) { return v[7]; }
static inline V8 v8_load(const double *p) { V8 v; memcpy(&v, p, sizeof v); return v; }
static inline void v8_store(double *p, V8 v) { memcpy(p, &v, sizeof v); }
static inline V8 v8_of_f32(vf8 x) { return __builtin_convertvector(x, vd8); }
static inline vf8 v8_to_f32(V8 v) { return __builtin_convertvector(v, vf8); }
static inline M8 v8_same(V8 v) { return v == v; }                /* all ones but at NaNs */
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
static inline V8 v8_mul(V8 a, V8 b) { return (V8){a.lo * b.lo, a.hi * b.hi}; }
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
static inline M8 v8_same(V8 v) { return (M8){v.lo == v.lo, v.hi == v.hi}; }
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

/* Inclusive prefix of V8 lanes by OP (v8_add, v8_mul); f holds the op's fill in every
 * lane (−0.0 for sums, 1.0 for products). */
#define PREFIX8_OP(v, f, OP)             \
  do {                                   \
    v = OP(v, V8_SH(v, f, 1));           \
    v = OP(v, V8_SH(v, f, 2));           \
    v = OP(v, V8_SH(v, f, 4));           \
  } while (0)
#define PREFIX8(v, f) PREFIX8_OP(v, f, v8_add)

#if !TALLY_AVX2_HALVES /* AVX2 has its own below */
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

#endif

#if !TALLY_AVX2_HALVES /* AVX2 has its own below */
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

#else
/* AVX2, the float sums (and the f64-lane products, LANES below) with intrinsics: the
 * same blocks, steps, lanes and order as above (so the same bits), in fewer operations than GCC 12 made of the generic halves (its
 * conversions went through xmm pieces, lane 7 out by extracts): on an AMD EPYC the f32
 * DEFAULT pass 2 went from 0.66 to 0.36 ns/element in cache. The running value is kept
 * broadcast (the block's last lane by vpermpd) and the loop's options are hoisted. */
#define AI2 static inline __attribute__((always_inline))

/* a + b as fma(a, 1, b): a·1 is exact and the sum is rounded once, so the same value,
 * signed zeros, Inf and NaN as vaddpd; but on the multiply pipes, leaving the add pipes
 * (which also convert) free: measured 12% faster than all vaddpd on the AMD EPYC. */
AI2 __m256d add_pd(__m256d a, __m256d b) { return _mm256_fmadd_pd(a, _mm256_set1_pd(1.0), b); }

/* Lanes 0-3 (l) and 4-7 (h) shifted up by one, lane 0 from f: [f0 l0 l1 l2], [l3 h0 h1 h2]. */
AI2 __m256d sh1_lo(__m256d l, __m256d f) { return _mm256_shuffle_pd(_mm256_permute2f128_pd(f, l, 0x20), l, 5); }
AI2 __m256d sh1_hi(__m256d l, __m256d h) { return _mm256_shuffle_pd(_mm256_permute2f128_pd(l, h, 0x21), h, 5); }

/* The input of the f64-lane kernels (src & 3): 0 f64, 1 f32, 2 f16, 3 bf16; the outputs
 * are f32 for all but f64. src & SRC_MUL: the products' kernels (fill 1.0, a NaN ignored
 * taken as 1.0) instead of the sums'. Multiplication is commutative, so the vector's
 * s·w[j] is the scalar OP(s, w[j]) as for additions. */
#define SRC_MUL 4
#define SRC_ES(src) (((src) & 3) == 0 ? 8 : ((src) & 3) == 1 ? 4 : 2)
/* a ⊕ b: sums by add_pd; on the running value's chain by vaddpd (the shorter latency) */
#define OPD(src, a, b) ((src) & SRC_MUL ? _mm256_mul_pd(a, b) : add_pd(a, b))
#define OPD_CHAIN(src, a, b) ((src) & SRC_MUL ? _mm256_mul_pd(a, b) : _mm256_add_pd(a, b))
#define FILL_PD(src) _mm256_set1_pd((src) & SRC_MUL ? 1.0 : -0.0)

/* 4 f64 lanes from the input at p (every conversion exact), NaN → +0.0 (sums) or 1.0
 * (products) under ign. */
AI2 __m256d ld4(const char *p, int src, int ign) {
  const int kind = src & 3;
  if (!kind) {
    __m256d v = _mm256_loadu_pd((const double *)p);
    if (!ign) return v;
    __m256d num = _mm256_cmp_pd(v, v, _CMP_EQ_OQ);
    return src & SRC_MUL ? _mm256_blendv_pd(_mm256_set1_pd(1.0), v, num) : _mm256_and_pd(num, v);
  }
  __m128 v = kind == 1   ? _mm_loadu_ps((const float *)p)
             : kind == 2 ? _mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)p))
                         : _mm_castsi128_ps(_mm_slli_epi32(
                               _mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)p)), 16));
  if (ign) {
    __m128 num = _mm_cmp_ps(v, v, _CMP_EQ_OQ);
    v = src & SRC_MUL ? _mm_blendv_ps(_mm_set1_ps(1.0f), v, num) : _mm_and_ps(num, v);
  }
  return _mm256_cvtps_pd(v);
}

/* PREFIX8 of the block at p (lanes l, h): y = x + x shifted by 1, z = y + y shifted by 2,
 * w = z + z shifted by 4 (lanes 0-3: z + f = z, and GCC drops that addition anyway). With
 * mem, x shifted by 1 is loaded again one element back (lane 0 replaced by f): two loads
 * and a blend instead of four shuffles; it reads p[-1], and must not run in place (p[-1]
 * is then the previous output). */
AI2 void prefix_blk(const char *p, int src, int ign, int mem, __m256d f, __m256d *l, __m256d *h) {
  const int es = SRC_ES(src);
  __m256d xl = ld4(p, src, ign), xh = ld4(p + 4 * es, src, ign), l1, h1;
  if (mem) {
    l1 = _mm256_blend_pd(ld4(p - es, src, ign), f, 1);
    h1 = ld4(p + 3 * es, src, ign);
  } else {
    l1 = sh1_lo(xl, f);
    h1 = sh1_hi(xl, xh);
  }
  __m256d yl = OPD(src, xl, l1), yh = OPD(src, xh, h1);
  __m256d zl = OPD(src, yl, _mm256_permute2f128_pd(f, yl, 0x20));
  __m256d zh = OPD(src, yh, _mm256_permute2f128_pd(yl, yh, 0x21));
  *l = zl;
  *h = OPD(src, zh, zl);
}

/* One block of an f64-lane kernel (src: see SRC_ES) at element i; t NULL: no total. */
AI2 void block_pd(const char *x, char *o, int64_t i, __m256d *s, __m256d *t, int src,
                  int write, int excl, int ign, int mem) {
  const int es = SRC_ES(src);
  const __m256d f = FILL_PD(src);
  __m256d l, h;
  prefix_blk(x + es * i, src, ign, mem, f, &l, &h);
  if (write) {
    __m256d rl = OPD(src, excl ? sh1_lo(l, f) : l, *s);
    /* (inclusive without total: by vaddpd, whose latency is the shorter, see below) */
    __m256d rh = !excl && !t ? OPD_CHAIN(src, h, *s) : OPD(src, excl ? sh1_hi(l, h) : h, *s);
    if (src & 3) {
      _mm_storeu_ps((float *)o + i, _mm256_cvtpd_ps(rl));
      _mm_storeu_ps((float *)o + i + 4, _mm256_cvtpd_ps(rh));
    } else {
      _mm256_storeu_pd((double *)o + i, rl);
      _mm256_storeu_pd((double *)o + i + 4, rh);
    }
    /* Inclusive without total: rh's last lane is s + w[7], the next running value, so
     * one addition less per block (the chain now runs through rh: 4% in cache). */
    if (!excl && !t) {
      *s = _mm256_permute4x64_pd(rh, 0xff);
      return;
    }
  }
  __m256d last = _mm256_permute4x64_pd(h, 0xff);
  *s = OPD_CHAIN(src, *s, last);
  if (t) *t = OPD(src, *t, last);
}

/* The full blocks of [0, m). The shifted loads (inclusive, not in place, no NaN rule:
 * the common case) from the second block on, as p[-1] is then this run's. */
AI2 int64_t blocks_pd(const char *x, char *o, int64_t m, double *sp, double *tp, int src,
                      int write, int excl, int ign) {
  __m256d s = _mm256_set1_pd(*sp), t = _mm256_set1_pd(*tp);
  int64_t i = 0;
  /* (halves: not loaded again, which costs two conversions a lane group, but shifted in
   * registers: the f16 sum 0.56 -> 0.50 ns an element in cache, Intel Xeon, 2026-11-28) */
  if (write && !excl && !ign && x != o && m >= 8 && (src & 3) < 2) {
    block_pd(x, o, 0, &s, &t, src, 1, 0, 0, 0);
    for (i = 8; i + 8 <= m; i += 8) block_pd(x, o, i, &s, &t, src, 1, 0, 0, 1);
  } else {
    for (; i + 8 <= m; i += 8) block_pd(x, o, i, &s, &t, src, write, excl, ign, 0);
  }
  *sp = _mm256_cvtsd_f64(s);
  *tp = _mm256_cvtsd_f64(t);
  return i;
}

/* One loop per option set (the options are constants in each). */
#define BY_OPTS(CALL, g, write)                                                             \
  (!(write) ? ((g)->ignore_nan ? CALL(0, 0, 1) : CALL(0, 0, 0))                             \
   : (g)->exclusive ? ((g)->ignore_nan ? CALL(1, 1, 1) : CALL(1, 1, 0))                     \
                    : ((g)->ignore_nan ? CALL(1, 0, 1) : CALL(1, 0, 0)))

static int64_t sum_f32_d(const tally__scan_args *g, const char *x, char *o, int64_t m, void *sp,
                          void *tp, int write) {
#define CALL_(w, e, n) blocks_pd(x, o, m, sp, tp, 1, w, e, n)
  return BY_OPTS(CALL_, g, write);
#undef CALL_
}

static int64_t sum_f64(const tally__scan_args *g, const char *x, char *o, int64_t m, void *sp,
                         void *tp, int write) {
#define CALL_(w, e, n) blocks_pd(x, o, m, sp, tp, 0, w, e, n)
  return BY_OPTS(CALL_, g, write);
#undef CALL_
}

/* Pass 1, four blocks at a time: their totals ((x0+x1) + (x2+x3)) + ((x4+x5) + (x6+x7)),
 * as TOTALS8 pairs them (vhaddpd adds a lane pair, vperm2f128 lines up the pairs' pairs;
 * products alike), then added to (multiplied into) t one by one in block order. */
AI2 double group_pd(const char *x, double t, int src, int ign) {
  const int es = SRC_ES(src);
  __m256d l[4], h[4];
  for (int b = 0; b < 4; b++) {
    l[b] = ld4(x + es * 8 * b, src, ign);
    h[b] = ld4(x + es * (8 * b + 4), src, ign);
  }
  /* [a01 b01 a23 b23]: vhaddpd, or the products of the lane pairs */
#define PAIRS_PD(a, b)                                                                       \
  (src & SRC_MUL ? _mm256_mul_pd(_mm256_unpacklo_pd(a, b), _mm256_unpackhi_pd(a, b))          \
                 : _mm256_hadd_pd(a, b))
  __m256d l01 = PAIRS_PD(l[0], l[1]), l23 = PAIRS_PD(l[2], l[3]);
  __m256d h01 = PAIRS_PD(h[0], h[1]), h23 = PAIRS_PD(h[2], h[3]);
#undef PAIRS_PD
  __m256d zl = OPD(src, _mm256_permute2f128_pd(l01, l23, 0x20), _mm256_permute2f128_pd(l01, l23, 0x31));
  __m256d zh = OPD(src, _mm256_permute2f128_pd(h01, h23, 0x20), _mm256_permute2f128_pd(h01, h23, 0x31));
  __m256d tot = OPD(src, zl, zh);
  double tl[4];
  _mm256_storeu_pd(tl, tot);
  for (int b = 0; b < 4; b++) t = src & SRC_MUL ? t * tl[b] : t + tl[b];
  return t;
}

AI2 int64_t totals_pd(const char *x, int64_t m, double *tp, int src, int ign) {
  double t = *tp;
  int64_t i = 0;
  for (; i + 32 <= m; i += 32) t = group_pd(x + (SRC_ES(src)) * i, t, src, ign);
  *tp = t;
  return i;
}

/* tally__scan_fused_fn: four blocks of pass 2, then a group of pass 1. */
AI2 void fused_pd(const char *x, char *o, int64_t m, double *sp, const char *x1, double *t1p,
                  int src) {
  const int es = SRC_ES(src);
  __m256d s = _mm256_set1_pd(*sp);
  double t1 = *t1p;
  for (int64_t i = 0; i < m; i += 32) {
    const int mem = (src & 3) < 2;
    if (i == 0) block_pd(x, o, 0, &s, NULL, src, 1, 0, 0, 0); /* x[-1] may not be ours */
    else block_pd(x, o, i, &s, NULL, src, 1, 0, 0, mem);
    for (int b = 1; b < 4; b++) block_pd(x, o, i + 8 * b, &s, NULL, src, 1, 0, 0, mem);
    t1 = group_pd(x1 + es * i, t1, src, 0);
  }
  *sp = _mm256_cvtsd_f64(s);
  *t1p = t1;
}

static int fused_f32_d(const char *x, char *o, int64_t m, void *s, const char *x1, void *t1,
                       char *o1, int flags) {
  (void)o1, (void)flags;
  fused_pd(x, o, m, s, x1, t1, 1);
  return 0;
}

static int fused_f64(const char *x, char *o, int64_t m, void *s, const char *x1, void *t1,
                     char *o1, int flags) {
  (void)o1, (void)flags;
  fused_pd(x, o, m, s, x1, t1, 0);
  return 0;
}

static int64_t reduce_f32_d(const tally__scan_args *g, const char *x, char *o, int64_t m,
                             void *sp, void *tp, int write) {
  int64_t i = g->ignore_nan ? totals_pd(x, m, tp, 1, 1) : totals_pd(x, m, tp, 1, 0);
  return i + sum_f32_d(g, x + 4 * i, o, m - i, sp, tp, write);
}

static int64_t reduce_f64(const tally__scan_args *g, const char *x, char *o, int64_t m,
                            void *sp, void *tp, int write) {
  int64_t i = g->ignore_nan ? totals_pd(x, m, tp, 0, 1) : totals_pd(x, m, tp, 0, 0);
  return i + sum_f64(g, x + 8 * i, o, m - i, sp, tp, write);
}

/* The f64-lane kernels of other inputs: f16 and bf16 DEFAULT sums, and the DEFAULT
 * products of f16, bf16, f32 and f64 (f64's FAST is the same). The same blocks, steps and
 * lanes (so the same bits as the scalar kernel), the halves converted in registers
 * (vcvtph2ps; bf16 by a shift), each with pass 1 and a fused pass: before, the halves were
 * converted into a buffer for each pass apart (HALF_VIA_F32 below) and the products ran
 * the generic lanes without either. */
#define LANES(NAME, SRC) LANES_FNS(NAME, SRC, blocks_pd, totals_pd, fused_pd)

/* f32 FAST: the block in one register of 8 floats. */
AI2 __m256 add_ps(__m256 a, __m256 b) { return _mm256_fmadd_ps(a, _mm256_set1_ps(1.0f), b); }

/* v shifted up by k = 1 or 2 lanes (fill from f): vpalignr of v on [f f f f v0 v1 v2 v3]. */
#define SHPS(v, f, k)                                                                        \
  _mm256_castsi256_ps(_mm256_alignr_epi8(_mm256_castps_si256(v),                             \
                                         _mm256_castps_si256(_mm256_permute2f128_ps(f, v, 0x20)), \
                                         16 - 4 * (k)))

AI2 __m256 ld8(const float *p, int ign) {
  __m256 v = _mm256_loadu_ps(p);
  return ign ? _mm256_and_ps(_mm256_cmp_ps(v, v, _CMP_EQ_OQ), v) : v;
}

/* One block of sum_f32_f at element i; mem as in prefix_blk. */
AI2 void block_ps(const float *x, float *o, int64_t i, __m256 *s, __m256 *t, int write,
                  int excl, int ign, int mem) {
  const __m256 f = _mm256_set1_ps(-0.0f);
  __m256 v = ld8(x + i, ign);
  v = add_ps(v, mem ? _mm256_blend_ps(ld8(x + i - 1, ign), f, 1) : SHPS(v, f, 1));
  v = add_ps(v, SHPS(v, f, 2));
  v = add_ps(v, _mm256_permute2f128_ps(f, v, 0x20));
  if (write) _mm256_storeu_ps(o + i, add_ps(excl ? SHPS(v, f, 1) : v, *s));
  __m256 last = _mm256_permutevar8x32_ps(v, _mm256_set1_epi32(7));
  *s = _mm256_add_ps(*s, last);
  if (t) *t = add_ps(*t, last);
}

AI2 int64_t blocks_ps(const float *x, float *o, int64_t m, float *sp, float *tp, int write,
                      int excl, int ign) {
  __m256 s = _mm256_set1_ps(*sp), t = _mm256_set1_ps(*tp);
  int64_t i = 0;
  if (write && !excl && !ign && x != o && m >= 8) {
    block_ps(x, o, 0, &s, &t, 1, 0, 0, 0);
    for (i = 8; i + 8 <= m; i += 8) block_ps(x, o, i, &s, &t, 1, 0, 0, 1);
  } else {
    for (; i + 8 <= m; i += 8) block_ps(x, o, i, &s, &t, write, excl, ign, 0);
  }
  *sp = _mm256_cvtss_f32(s);
  *tp = _mm256_cvtss_f32(t);
  return i;
}

/* Pass 1 of f32 FAST, eight blocks at a time: vhaddps twice pairs lanes and pairs of
 * pairs within 128-bit lanes ([a01 a23 b01 b23 | a45 a67 b45 b67], then the four-lane
 * sums of a, b, c, d), and one vperm2f128 pair lines up each block's halves. */
AI2 float group_ps(const float *x, float t, int ign) {
  __m256 v[8], p[4];
  for (int b = 0; b < 8; b++) v[b] = ld8(x + 8 * b, ign);
  for (int b = 0; b < 4; b++) p[b] = _mm256_hadd_ps(v[2 * b], v[2 * b + 1]);
  __m256 q0 = _mm256_hadd_ps(p[0], p[1]), q1 = _mm256_hadd_ps(p[2], p[3]);
  __m256 tot = add_ps(_mm256_permute2f128_ps(q0, q1, 0x20), _mm256_permute2f128_ps(q0, q1, 0x31));
  float tl[8];
  _mm256_storeu_ps(tl, tot);
  for (int b = 0; b < 8; b++) t = t + tl[b];
  return t;
}

AI2 int64_t totals_ps(const float *x, int64_t m, float *tp, int ign) {
  float t = *tp;
  int64_t i = 0;
  for (; i + 64 <= m; i += 64) t = group_ps(x + i, t, ign);
  *tp = t;
  return i;
}

/* tally__scan_fused_fn of f32 FAST: eight blocks of pass 2, then a group of pass 1. */
static int fused_f32_f(const char *xc, char *oc, int64_t m, void *sp, const char *x1, void *t1p,
                       char *o1, int flags) {
  (void)o1, (void)flags;
  const float *x = (const float *)xc;
  float *o = (float *)oc;
  __m256 s = _mm256_set1_ps(*(float *)sp);
  float t1 = *(float *)t1p;
  for (int64_t i = 0; i < m; i += 64) {
    if (i == 0) block_ps(x, o, 0, &s, NULL, 1, 0, 0, 0);
    else block_ps(x, o, i, &s, NULL, 1, 0, 0, 1);
    for (int b = 1; b < 8; b++) block_ps(x, o, i + 8 * b, &s, NULL, 1, 0, 0, 1);
    t1 = group_ps((const float *)x1 + i, t1, 0);
  }
  *(float *)sp = _mm256_cvtss_f32(s);
  *(float *)t1p = t1;
  return 0;
}

static int64_t sum_f32_f(const tally__scan_args *g, const char *x, char *o, int64_t m, void *sp,
                          void *tp, int write) {
#define CALL_(w, e, n) blocks_ps((const float *)x, (float *)o, m, sp, tp, w, e, n)
  return BY_OPTS(CALL_, g, write);
#undef CALL_
}

static int64_t reduce_f32_f(const tally__scan_args *g, const char *x, char *o, int64_t m,
                             void *sp, void *tp, int write) {
  int64_t i = g->ignore_nan ? totals_ps((const float *)x, m, tp, 1) : totals_ps((const float *)x, m, tp, 0);
  return i + sum_f32_f(g, x + 4 * i, o, m - i, sp, tp, write);
}

#endif

/* The float PRODs (every ISA, generic lanes): BLOCK_KERNEL's steps with the fill 1.0
 * (which multiplies exactly nothing), the running value applied by a multiplication, a
 * NaN ignored taken as 1.0 (the scalar loads' neutral); multiplication is commutative,
 * so s·w[j] here is the scalar kernel's OP(s, w[j]). Pass 1 is the same loop without
 * stores (the sums' transposed totals, reduce_*, would serve products too: not written). */
static inline V8 v8_one_at_nan(V8 v) {
  const M8 m = v8_same(v);
  const V8 one = v8_splat(1.0);
#if !TALLY_AVX2_HALVES
  return (V8)((m & (M8)v) | (~m & (M8)one));
#else
  return (V8){(vd4)((m.lo & (vl4)v.lo) | (~m.lo & (vl4)one.lo)),
              (vd4)((m.hi & (vl4)v.hi) | (~m.hi & (vl4)one.hi))};
#endif
}

/* f32 (src32) or f64 elements in f64 lanes; out as f32 (src32) or f64. */
static inline __attribute__((always_inline)) int64_t
prod_d(const tally__scan_args *g, const char *xc, char *oc, int64_t m, void *sp, void *tp,
       int write, int src32) {
  double s, t;
  memcpy(&s, sp, 8);
  memcpy(&t, tp, 8);
  const V8 f = v8_splat(1.0);
  int64_t i = 0;
  for (; i + 8 <= m; i += 8) {
    V8 v;
    if (src32) {
      vf8 xf;
      memcpy(&xf, xc + 4 * i, sizeof xf);
      v = v8_of_f32(xf);
    } else {
      v = v8_load((const double *)xc + i);
    }
    if (g->ignore_nan) v = v8_one_at_nan(v);
    PREFIX8_OP(v, f, v8_mul);
    if (write) {
      V8 r = v8_mul(g->exclusive ? V8_SH(v, f, 1) : v, v8_splat(s));
      if (src32) {
        vf8 rf = v8_to_f32(r);
        memcpy(oc + 4 * i, &rf, sizeof rf);
      } else {
        v8_store((double *)oc + i, r);
      }
    }
    s = s * v8_last(v);
    t = t * v8_last(v);
  }
  memcpy(sp, &s, 8);
  memcpy(tp, &t, 8);
  return i;
}

static int64_t prod_f32_d(const tally__scan_args *g, const char *x, char *o, int64_t m, void *sp,
                          void *tp, int write) {
  return prod_d(g, x, o, m, sp, tp, write, 1);
}

static int64_t prod_f64(const tally__scan_args *g, const char *x, char *o, int64_t m, void *sp,
                        void *tp, int write) {
  return prod_d(g, x, o, m, sp, tp, write, 0);
}

/* f32 FAST: 8 f32 lanes. */
static int64_t prod_f32_f(const tally__scan_args *g, const char *xc, char *oc, int64_t m, void *sp,
                          void *tp, int write) {
  float s, t;
  memcpy(&s, sp, 4);
  memcpy(&t, tp, 4);
  const vf8 f = {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f};
  int64_t i = 0;
  for (; i + 8 <= m; i += 8) {
    vf8 v;
    memcpy(&v, xc + 4 * i, sizeof v);
    if (g->ignore_nan) {
      const vi8 k = v == v;
      v = (vf8)((k & (vi8)v) | (~k & (vi8)f));
    }
    v = v * SH(v, f, 1);
    v = v * SH(v, f, 2);
    v = v * SH(v, f, 4);
    if (write) {
      vf8 r = (g->exclusive ? SH(v, f, 1) : v) * s;
      memcpy(oc + 4 * i, &r, sizeof r);
    }
    s = s * v[7];
    t = t * v[7];
  }
  memcpy(sp, &s, 4);
  memcpy(tp, &t, 4);
  return i;
}

/* f16 and bf16 PROD, FAST SUM, and DEFAULT SUM where the set has no sum_f16_d (the SSE2
 * and AVX-512 sets) in the f32 kernels (g->simd_f32, g->simd_reduce_f32): pieces
 * of 256 converted to f32 on the stack, exactly (the values BLOCK_KERNEL's loads give), so
 * the same bits as the scalar kernel. Converted 8 at a time by kern_load.h's vector
 * conversions (F16C's vcvtph2ps) with AVX2: converted one by one they had held f16 SUM
 * at 0.56 ns an element in cache against f32's 0.30 (now 0.32). */
#define HALF_VIA_F32(NAME, CONV, INNER)                                                    \
  static int64_t NAME(const tally__scan_args *g, const char *x, char *o, int64_t m,       \
                      void *s, void *t, int write) {                                       \
    float buf[256];                                                                        \
    int64_t done = 0;                                                                      \
    while (m - done >= 8) {                                                                \
      int64_t k = m - done >= 256 ? 256 : (m - done) & ~(int64_t)7;                        \
      for (int64_t i = 0; i < k; i += 8) CONV(x + 2 * (done + i), buf + i);              \
      int64_t r = g->INNER(g, (const char *)buf, o ? o + 4 * done : NULL, k, s, t, write); \
      done += r;                                                                           \
      if (r < k) break;                                                                    \
    }                                                                                      \
    return done;                                                                           \
  }
/* 8 halves at p as floats at d; SSE2 (the scalar set) one by one: GCC's generic vector
 * conversion there measured slower (f16 SUM 2.1 ns an element in cache, one by one here
 * 1.8; 1.4 when scan_kern.c converted them, a difference not explained yet). */
#if defined(__AVX2__)
#define CONV8_(VCONV, SCONV, p, d)                                                         \
  do {                                                                                     \
    vf8 v_ = VCONV((const uint16_t *)(const void *)(p));                                   \
    memcpy((d), &v_, sizeof v_);                                                           \
  } while (0)
#else
#define CONV8_(VCONV, SCONV, p, d)                                                         \
  do {                                                                                     \
    for (int j_ = 0; j_ < 8; j_++) {                                                       \
      uint16_t h_;                                                                         \
      memcpy(&h_, (p) + 2 * j_, 2);                                                        \
      (d)[j_] = SCONV(h_);                                                                 \
    }                                                                                      \
  } while (0)
#endif
#define CONV8_F16(p, d) CONV8_(f16x8_to_vf8, f16_to_float, p, d)
#define CONV8_BF16(p, d) CONV8_(bf16x8_to_vf8, bf16_to_float, p, d)
HALF_VIA_F32(half_f16, CONV8_F16, simd_f32)
HALF_VIA_F32(half_reduce_f16, CONV8_F16, simd_reduce_f32)
HALF_VIA_F32(half_bf16, CONV8_BF16, simd_f32)
HALF_VIA_F32(half_reduce_bf16, CONV8_BF16, simd_reduce_f32)

#if !TALLY_AVX2_HALVES
#define fused_f32_d NULL
#define fused_f32_f NULL
#define fused_f64 NULL
#endif

#if defined(__AVX512F__)
#include <immintrin.h>
/* AVX-512: the f64-lane kernels (LANES of the AVX2 set) with a block of 8 in one zmm
 * register: the same blocks, steps, lanes and operand order, so the same bits (checked
 * by tests/conformance/scan_determinism.c against the scalar and AVX2 sets). The AVX2
 * set converts a block of halves four lanes at a time (two vcvtph2ps and two 4-lane
 * vcvtps2pd, each shift across its two registers two shuffles); here one conversion of
 * each kind, each shift a valignq. On an Intel Xeon (AVX-512, 2 threads, 2026-11-28) the
 * f16 DEFAULT sum with the AVX2 set was compute-bound at 1 ns an element a thread, 0.65
 * x the copy probe; see docs/PERFORMANCE.md for after. */
#define AI5 static inline __attribute__((always_inline))
#define SRC_MUL 4 /* as the AVX2 set's: src & 3 the input (f64, f32, f16, bf16), products */
#define SRC_ES(src) (((src) & 3) == 0 ? 8 : ((src) & 3) == 1 ? 4 : 2)

/* v shifted up by k lanes, lanes below k from f */
#define SHZ(v, f, k) \
  _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(v), _mm512_castpd_si512(f), 8 - (k)))
#define OPZ(src, a, b) \
  ((src) & SRC_MUL ? _mm512_mul_pd(a, b) : _mm512_fmadd_pd(a, _mm512_set1_pd(1.0), b))
#define OPZ_CHAIN(src, a, b) ((src) & SRC_MUL ? _mm512_mul_pd(a, b) : _mm512_add_pd(a, b))
#define FILL_PZ(src) _mm512_set1_pd((src) & SRC_MUL ? 1.0 : -0.0)
#define LANE7(v) _mm512_permutexvar_pd(_mm512_set1_epi64(7), v)

/* 8 f64 lanes from the input at p, as ld4's: NaN -> +0.0 (sums) or 1.0 (products) under ign */
AI5 __m512d ld8z(const char *p, int src, int ign) {
  const int kind = src & 3;
  if (!kind) {
    __m512d v = _mm512_loadu_pd((const double *)p);
    if (!ign) return v;
    __mmask8 num = _mm512_cmp_pd_mask(v, v, _CMP_EQ_OQ);
    return src & SRC_MUL ? _mm512_mask_blend_pd(num, _mm512_set1_pd(1.0), v) : _mm512_maskz_mov_pd(num, v);
  }
  __m256 v = kind == 1   ? _mm256_loadu_ps((const float *)p)
             : kind == 2 ? _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p))
                         : _mm256_castsi256_ps(_mm256_slli_epi32(
                               _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)), 16));
  if (ign) {
    __m256 num = _mm256_cmp_ps(v, v, _CMP_EQ_OQ);
    v = src & SRC_MUL ? _mm256_blendv_ps(_mm256_set1_ps(1.0f), v, num) : _mm256_and_ps(num, v);
  }
  return _mm512_cvtps_pd(v);
}

/* One block at element i, as block_pd: its prefix w (x + x<<1, then + <<2, then + <<4;
 * lanes 0-3 of the last step add the fill, exactly nothing), then out = w + s. */
AI5 void block_z(const char *x, char *o, int64_t i, __m512d *s, __m512d *t, int src, int write,
                 int excl, int ign) {
  const int es = SRC_ES(src);
  const __m512d f = FILL_PZ(src);
  __m512d v = ld8z(x + es * i, src, ign);
  v = OPZ(src, v, SHZ(v, f, 1));
  v = OPZ(src, v, SHZ(v, f, 2));
  v = OPZ(src, v, SHZ(v, f, 4)); /* lanes 4-7: z[4+j] + z[j], as block_pd's OPD(zh, zl) */
  if (write) {
    const __m512d w = excl ? SHZ(v, f, 1) : v;
    /* block_pd: lanes 0-3 by OPD, 4-7 by OPD_CHAIN where inclusive without total (the
     * same values: fma(a, 1, b) and a + b round alike) */
    __m512d r = OPZ(src, w, *s);
    if (src & 3) _mm256_storeu_ps((float *)o + i, _mm512_cvtpd_ps(r));
    else _mm512_storeu_pd((double *)o + i, r);
    if (!excl && !t) {
      *s = LANE7(r);
      return;
    }
  }
  __m512d last = LANE7(v);
  *s = OPZ_CHAIN(src, *s, last);
  if (t) *t = OPZ(src, *t, last);
}

AI5 int64_t blocks_z(const char *x, char *o, int64_t m, double *sp, double *tp, int src, int write,
                     int excl, int ign) {
  __m512d s = _mm512_set1_pd(*sp), t = _mm512_set1_pd(*tp);
  int64_t i = 0;
  for (; i + 8 <= m; i += 8) block_z(x, o, i, &s, &t, src, write, excl, ign);
  *sp = _mm512_cvtsd_f64(s);
  *tp = _mm512_cvtsd_f64(t);
  return i;
}

/* Pass 1, four blocks: each block's total ((x0+x1) + (x2+x3)) + ((x4+x5) + (x6+x7)), as
 * group_pd pairs them, then into t one by one in block order. */
AI5 double group_z(const char *x, double t, int src, int ign) {
  const int es = SRC_ES(src);
  const __m512i ev = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
  const __m512i od = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
  __m512d b[4];
  for (int k = 0; k < 4; k++) b[k] = ld8z(x + es * 8 * k, src, ign);
  /* even + odd lanes of (a, c): [a01 a23 a45 a67 c01 c23 c45 c67], then of those */
#define PAIRS_Z(a, c) OPZ(src, _mm512_permutex2var_pd(a, ev, c), _mm512_permutex2var_pd(a, od, c))
  __m512d p01 = PAIRS_Z(b[0], b[1]), p23 = PAIRS_Z(b[2], b[3]);
  __m512d q = PAIRS_Z(p01, p23); /* [b0 0123, b0 4567, b1 .., b1 .., b2 .., .., b3 .., ..] */
  __m512d tot = PAIRS_Z(q, q);   /* lanes 0-3: the four blocks' totals */
#undef PAIRS_Z
  double tl[8];
  _mm512_storeu_pd(tl, tot);
  for (int k = 0; k < 4; k++) t = src & SRC_MUL ? t * tl[k] : t + tl[k];
  return t;
}

AI5 int64_t totals_z(const char *x, int64_t m, double *tp, int src, int ign) {
  double t = *tp;
  int64_t i = 0;
  for (; i + 32 <= m; i += 32) t = group_z(x + SRC_ES(src) * i, t, src, ign);
  *tp = t;
  return i;
}

AI5 void fused_z(const char *x, char *o, int64_t m, double *sp, const char *x1, double *t1p,
                 int src) {
  const int es = SRC_ES(src);
  __m512d s = _mm512_set1_pd(*sp);
  double t1 = *t1p;
  for (int64_t i = 0; i < m; i += 32) {
    for (int b = 0; b < 4; b++) block_z(x, o, i + 8 * b, &s, NULL, src, 1, 0, 0);
    t1 = group_z(x1 + es * i, t1, src, 0);
  }
  *sp = _mm512_cvtsd_f64(s);
  *t1p = t1;
}

#define LANES(NAME, SRC) LANES_FNS(NAME, SRC, blocks_z, totals_z, fused_z)
#endif

/* The f64-lane kernels of both vector sets (AVX2: LANES of blocks_pd; AVX-512: of
 * blocks_z): f16 and bf16 DEFAULT sums, the DEFAULT products of f16, bf16, f32 and f64.
 * (The f32 DEFAULT sum has its own fused kernels above, bound by memory, and was no
 * faster in zmm in cache.) */
#if TALLY_AVX2_HALVES || defined(__AVX512F__)
LANES(lanes_sum_f16, 2)
LANES(lanes_sum_bf16, 3)
LANES(lanes_prod_f64, SRC_MUL | 0)
LANES(lanes_prod_f32, SRC_MUL | 1)
LANES(lanes_prod_f16, SRC_MUL | 2)
LANES(lanes_prod_bf16, SRC_MUL | 3)

static int lanes_d(tally_op op, tally_dtype dt, tally__scan_simd_fn *simd,
                   tally__scan_simd_fn *reduce, tally__scan_fused_fn *fused) {
#define SET_(NAME) (*simd = NAME, *reduce = NAME##_reduce, *fused = NAME##_fused, 1)
  if (op == TALLY_SUM) return dt == TALLY_F16 ? SET_(lanes_sum_f16) : dt == TALLY_BF16 ? SET_(lanes_sum_bf16) : 0;
  if (op != TALLY_PROD) return 0;
  return dt == TALLY_F64 ? SET_(lanes_prod_f64) : dt == TALLY_F32 ? SET_(lanes_prod_f32)
         : dt == TALLY_F16 ? SET_(lanes_prod_f16) : dt == TALLY_BF16 ? SET_(lanes_prod_bf16) : 0;
#undef SET_
}
#else
static int lanes_d(tally_op op, tally_dtype dt, tally__scan_simd_fn *simd,
                   tally__scan_simd_fn *reduce, tally__scan_fused_fn *fused) {
  (void)op, (void)dt, (void)simd, (void)reduce, (void)fused;
  return 0;
}
#endif

const tally__scan_simd_set CAT(tally__scan_simd_, TALLY_ISA) = {
    sum_f32_d, sum_f32_f, sum_f64, reduce_f32_d, reduce_f32_f, reduce_f64,
    fused_f32_d, fused_f32_f, fused_f64, prod_f32_d, prod_f32_f, prod_f64,
    half_f16, half_reduce_f16, half_bf16, half_reduce_bf16, lanes_d};

/* Vector kernels of the CPU's AFFINE scan, compiled once per ISA (TALLY_ISA) like
 * scan_simd.c: the full blocks of 8 of a contiguous run (a's and b's contiguous, out
 * [A0 B0 A1 B1 ...]).
 *
 * The steps are the scalar kernel's (scan_kern.c, AFF_BLOCK_KERNEL), lane for lane: each
 * block's prefix by three Hillis–Steele steps on pairs, the earlier map first,
 * (A, B)[j] ← (A[j]·A[j-k], A[j]·B[j-k] + B[j]) for k = 1, 2, 4, a lane with no term k
 * lanes back keeping its value; then out[j] = s ∘ w[j] and s = s ∘ w[7]. Float AFFINE is
 * therefore the same bits on every ISA and layout; integer AFFINE (modulo 2^64) is exact
 * in any grouping anyway. The scalar chain it replaces composed one map an element, a
 * multiplication and an addition in sequence: 2^26 f32 at 0.12 x a copy on 2 threads.
 *
 * Lanes: f64 (f16/bf16/f32 DEFAULT, f64) and u64 (integers) 8 to a vector, f32 (FAST) 8
 * to a 32-byte vector. With AVX-512 one register each; with AVX2 the 64-bit lanes in two
 * 256-bit halves (a 64-byte GCC vector has no register mode there: see scan_simd.c). The
 * scalar set (SSE2) has none: tally__scan_affine_scalar gives NULL. */
#include "scan.h"
#include "kern_load.h" /* vf8, f16x8_to_vf8, bf16x8_to_vf8, TALLY_AVX2_HALVES */

#include <string.h>

#ifndef TALLY_ISA
#define TALLY_ISA scalar
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#if defined(__AVX2__)

/* ------------------------------------------------------------ 8 lanes */

/* Native 8-lane vectors (any lane type): v shifted up by k lanes, the lanes below k from
 * f; c with its lanes below k from v; every lane the last. */
#define N_SH(v, f, k)                                                                        \
  __builtin_shufflevector(v, f, (k) > 0 ? 8 : 0, (k) > 1 ? 8 : 1 - (k), (k) > 2 ? 8 : 2 - (k), \
                          (k) > 3 ? 8 : 3 - (k), (k) > 4 ? 8 : 4 - (k), (k) > 5 ? 8 : 5 - (k), \
                          (k) > 6 ? 8 : 6 - (k), 7 - (k))
#define N_KEEP(c, v, k)                                                                      \
  __builtin_shufflevector(c, v, (k) > 0 ? 8 : 0, (k) > 1 ? 9 : 1, (k) > 2 ? 10 : 2,          \
                          (k) > 3 ? 11 : 3, (k) > 4 ? 12 : 4, (k) > 5 ? 13 : 5, (k) > 6 ? 14 : 6, 7)
#define N_LAST(v) __builtin_shufflevector(v, v, 7, 7, 7, 7, 7, 7, 7, 7)
#define N_EVENS(a, b) __builtin_shufflevector(a, b, 0, 2, 4, 6, 8, 10, 12, 14)
#define N_ODDS(a, b) __builtin_shufflevector(a, b, 1, 3, 5, 7, 9, 11, 13, 15)
#define N_MUL(a, b) ((a) * (b))
#define N_ADD(a, b) ((a) + (b))
#define N_SPLAT(T, s) ((T){s, s, s, s, s, s, s, s})
#define N_LANE0(v) ((v)[0])

typedef uint64_t u64x8 __attribute__((vector_size(64)));
typedef int64_t i64x8 __attribute__((vector_size(64)));

#if !TALLY_AVX2_HALVES
/* 64-bit lanes: one 64-byte vector (AVX-512). */
typedef vd WDV;
typedef u64x8 WUV;
#define W_SH N_SH
#define W_KEEP N_KEEP
#define W_LAST N_LAST
#define W_EVENS N_EVENS
#define W_ODDS N_ODDS
#define W_MUL N_MUL
#define W_ADD N_ADD
#define W_SPLAT N_SPLAT
#define W_LANE0 N_LANE0
/* one vcvtps2pd / vcvtpd2ps (GCC 12 converted the generic vectors in 256-bit halves) */
AI WDV wd_of_f32(vf8 f) { return (WDV)_mm512_cvtps_pd((__m256)f); }
AI vf8 wd_to_f32(WDV v) { return (vf8)_mm512_cvtpd_ps((__m512d)v); }
AI WDV wd_load(const char *p) { WDV v; memcpy(&v, p, sizeof v); return v; }
AI WUV wu_load(const char *p) { WUV v; memcpy(&v, p, sizeof v); return v; }
/* 16 values [a0 b0 a1 b1 ...] at p */
AI void wd_store2(char *p, WDV a, WDV b) {
  WDV lo = __builtin_shufflevector(a, b, 0, 8, 1, 9, 2, 10, 3, 11);
  WDV hi = __builtin_shufflevector(a, b, 4, 12, 5, 13, 6, 14, 7, 15);
  memcpy(p, &lo, sizeof lo);
  memcpy(p + sizeof lo, &hi, sizeof hi);
}
AI void wu_store2(char *p, WUV a, WUV b) {
  WUV lo = __builtin_shufflevector(a, b, 0, 8, 1, 9, 2, 10, 3, 11);
  WUV hi = __builtin_shufflevector(a, b, 4, 12, 5, 13, 6, 14, 7, 15);
  memcpy(p, &lo, sizeof lo);
  memcpy(p + sizeof lo, &hi, sizeof hi);
}
/* 8 integers of type T at p, sign- or zero-extended (as T's conversion) to u64 lanes, by
 * one vpmov[sz]x: GCC 12 built __builtin_convertvector's widening from bytes out of eight
 * scalar extractions and inserts (u8 AFFINE at 2^24, 1 thread, Xeon: 52.7 ms) */
AI WUV wu_widen(const char *p, int size, int sgn) {
  switch (size) {
  case 1: {
    const __m128i q = _mm_loadl_epi64((const __m128i *)(const void *)p); /* 8 bytes */
    return (WUV)(sgn ? _mm512_cvtepi8_epi64(q) : _mm512_cvtepu8_epi64(q));
  }
  case 2: {
    const __m128i h = _mm_loadu_si128((const __m128i *)(const void *)p);
    return (WUV)(sgn ? _mm512_cvtepi16_epi64(h) : _mm512_cvtepu16_epi64(h));
  }
  default: {
    const __m256i w = _mm256_loadu_si256((const __m256i *)(const void *)p);
    return (WUV)(sgn ? _mm512_cvtepi32_epi64(w) : _mm512_cvtepu32_epi64(w));
  }
  }
}
#define WU_LOAD_INT(T, S, p) wu_widen((p), (int)sizeof(T), S)
#else
/* 64-bit lanes: two 256-bit halves (AVX2), lanes 0-3 and 4-7. */
typedef double d4 __attribute__((vector_size(32)));
typedef uint64_t u4 __attribute__((vector_size(32)));
typedef int64_t i4 __attribute__((vector_size(32)));
typedef float f4 __attribute__((vector_size(16)));
typedef struct { d4 lo, hi; } WDV;
typedef struct { u4 lo, hi; } WUV;
#define W_SH(v, f, k)                                                                        \
  ((__typeof__(v)){__builtin_shufflevector((v).lo, (f).lo, (k) > 0 ? 4 : 0,                  \
                                           (k) > 1 ? 4 : 1 - (k), (k) > 2 ? 4 : 2 - (k),     \
                                           (k) > 3 ? 4 : 3 - (k)),                           \
                   __builtin_shufflevector((v).lo, (v).hi, 4 - (k), 5 - (k), 6 - (k), 7 - (k))})
#define W_KEEP(c, v, k) /* k <= 4 */                                                         \
  ((__typeof__(c)){__builtin_shufflevector((c).lo, (v).lo, (k) > 0 ? 4 : 0, (k) > 1 ? 5 : 1, \
                                           (k) > 2 ? 6 : 2, (k) > 3 ? 7 : 3),                \
                   (c).hi})
#define W_LAST(v)                                                                            \
  ((__typeof__(v)){__builtin_shufflevector((v).hi, (v).hi, 3, 3, 3, 3),                      \
                   __builtin_shufflevector((v).hi, (v).hi, 3, 3, 3, 3)})
/* the even (odd) lanes of the 16 of a, b: a's in lo, b's in hi */
#define W_EVENS(a, b)                                                                        \
  ((__typeof__(a)){__builtin_shufflevector((a).lo, (a).hi, 0, 2, 4, 6),                      \
                   __builtin_shufflevector((b).lo, (b).hi, 0, 2, 4, 6)})
#define W_ODDS(a, b)                                                                         \
  ((__typeof__(a)){__builtin_shufflevector((a).lo, (a).hi, 1, 3, 5, 7),                      \
                   __builtin_shufflevector((b).lo, (b).hi, 1, 3, 5, 7)})
#define W_MUL(a, b) ((__typeof__(a)){(a).lo * (b).lo, (a).hi * (b).hi})
#define W_ADD(a, b) ((__typeof__(a)){(a).lo + (b).lo, (a).hi + (b).hi})
#define W_SPLAT(T, s) ((T){{s, s, s, s}, {s, s, s, s}})
#define W_LANE0(v) ((v).lo[0])
AI WDV wd_of_f32(vf8 f) {
  f4 lo = __builtin_shufflevector(f, f, 0, 1, 2, 3), hi = __builtin_shufflevector(f, f, 4, 5, 6, 7);
  return (WDV){__builtin_convertvector(lo, d4), __builtin_convertvector(hi, d4)};
}
AI vf8 wd_to_f32(WDV v) {
  f4 lo = __builtin_convertvector(v.lo, f4), hi = __builtin_convertvector(v.hi, f4);
  return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
}
AI WDV wd_load(const char *p) {
  WDV v;
  memcpy(&v.lo, p, 32);
  memcpy(&v.hi, p + 32, 32);
  return v;
}
AI WUV wu_load(const char *p) {
  WUV v;
  memcpy(&v.lo, p, 32);
  memcpy(&v.hi, p + 32, 32);
  return v;
}
#define STORE2_HALVES(p, a, b)                                                               \
  do {                                                                                       \
    __typeof__((a).lo) q_[4] = {__builtin_shufflevector((a).lo, (b).lo, 0, 4, 1, 5),        \
                                __builtin_shufflevector((a).lo, (b).lo, 2, 6, 3, 7),         \
                                __builtin_shufflevector((a).hi, (b).hi, 0, 4, 1, 5),         \
                                __builtin_shufflevector((a).hi, (b).hi, 2, 6, 3, 7)};        \
    memcpy((p), q_, sizeof q_);                                                              \
  } while (0)
AI void wd_store2(char *p, WDV a, WDV b) { STORE2_HALVES(p, a, b); }
AI void wu_store2(char *p, WUV a, WUV b) { STORE2_HALVES(p, a, b); }
/* as the AVX-512 one, in halves; AVX2 takes it for 4-byte integers only (see the end) */
AI WUV wu_widen(const char *p, int size, int sgn) {
  __m128i l, h; /* the 8 elements' bytes, no more */
  if (size == 1) l = _mm_loadl_epi64((const __m128i *)(const void *)p), h = _mm_srli_si128(l, 4);
  else l = _mm_loadu_si128((const __m128i *)(const void *)p), h = _mm_srli_si128(l, 8);
  if (size == 4) h = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
#define WIDEN_(f) (WUV){(u4)f(l), (u4)f(h)}
  switch (size) {
  case 1: return sgn ? WIDEN_(_mm256_cvtepi8_epi64) : WIDEN_(_mm256_cvtepu8_epi64);
  case 2: return sgn ? WIDEN_(_mm256_cvtepi16_epi64) : WIDEN_(_mm256_cvtepu16_epi64);
  default: return sgn ? WIDEN_(_mm256_cvtepi32_epi64) : WIDEN_(_mm256_cvtepu32_epi64);
  }
#undef WIDEN_
}
#define WU_LOAD_INT(T, S, p) wu_widen((p), (int)sizeof(T), S)
#endif

/* 16 floats [a0 b0 a1 b1 ...] at p */
AI void f8_store2(char *p, vf8 a, vf8 b) {
  vf8 lo = __builtin_shufflevector(a, b, 0, 8, 1, 9, 2, 10, 3, 11);
  vf8 hi = __builtin_shufflevector(a, b, 4, 12, 5, 13, 6, 14, 7, 15);
  memcpy(p, &lo, sizeof lo);
  memcpy(p + sizeof lo, &hi, sizeof hi);
}

/* ------------------------------------------------------------ the kernel */

/* One Hillis–Steele step of pairs at distance k; KEEP: lanes below k keep B (floats: the
 * fill's B·A[j] would turn an infinite A[j] into NaN and +0 + -0 into +0). A needs no
 * keeping: A[j]·1 is A[j]. */
#define STEP(P, A, B, one, zero, k, keep)                                                    \
  do {                                                                                       \
    __typeof__(B) b_ = P##_ADD(P##_MUL(A, P##_SH(B, zero, k)), B);                            \
    A = P##_MUL(A, P##_SH(A, one, k));                                                        \
    B = (keep) ? P##_KEEP(b_, B, k) : b_;                                                     \
  } while (0)

/* The loop over the full blocks of one (lanes, loads, stores), its options constants:
 * P the lane macros (N_ or W_), V the vector type, S its scalar, LOAD(i, A, B) and
 * STORE(i, A, B) the block's loads and stores, KEEPS whether steps keep lanes (floats),
 * EZ the B shifted into an exclusive scan's lane 0 (floats -0.0: s.b·1 + -0.0 is s.b). */
#define PAIR_LOOP(P, V, S, LOAD, STORE, KEEPS, EZ, write, excl, tot)                          \
  do {                                                                                       \
    const V one = P##_SPLAT(V, (S)1), zero = P##_SPLAT(V, (S)0), ez = P##_SPLAT(V, EZ);       \
    V sA = P##_SPLAT(V, s[0]), sB = P##_SPLAT(V, s[1]);                                      \
    V tA = P##_SPLAT(V, t[0]), tB = P##_SPLAT(V, t[1]);                                      \
    for (; i + 8 <= m; i += 8) {                                                             \
      V A, B;                                                                                \
      LOAD(i, A, B);                                                                         \
      STEP(P, A, B, one, zero, 1, KEEPS);                                                    \
      STEP(P, A, B, one, zero, 2, KEEPS);                                                    \
      STEP(P, A, B, one, zero, 4, KEEPS);                                                    \
      if (write) {                                                                           \
        V eA = (excl) ? P##_SH(A, one, 1) : A, eB = (excl) ? P##_SH(B, ez, 1) : B;            \
        STORE(i, P##_MUL(eA, sA), P##_ADD(P##_MUL(eA, sB), eB));                              \
      }                                                                                      \
      /* s ∘ w[7] in every lane: the broadcasts stay off the running value's chain */        \
      V lA = P##_LAST(A), lB = P##_LAST(B);                                                  \
      sB = P##_ADD(P##_MUL(lA, sB), lB);                                                     \
      sA = P##_MUL(lA, sA);                                                                  \
      if (tot) {                                                                             \
        tB = P##_ADD(P##_MUL(lA, tB), lB);                                                   \
        tA = P##_MUL(lA, tA);                                                                \
      }                                                                                      \
    }                                                                                        \
    s[0] = P##_LANE0(sA), s[1] = P##_LANE0(sB);                                              \
    t[0] = P##_LANE0(tA), t[1] = P##_LANE0(tB);                                              \
  } while (0)

/* (A, B) ← the pairs of lanes (2j, 2j+1) of [a0 a1], [b0 b1] composed, the even first. */
#define PAIRS(P, A, B, a0, b0, a1, b1)                                                       \
  do {                                                                                       \
    __typeof__(a0) ea_ = P##_EVENS(a0, a1), oa_ = P##_ODDS(a0, a1);                          \
    __typeof__(b0) eb_ = P##_EVENS(b0, b1), ob_ = P##_ODDS(b0, b1);                          \
    A = P##_MUL(oa_, ea_);                                                                   \
    B = P##_ADD(P##_MUL(oa_, eb_), ob_);                                                     \
  } while (0)

/* Pass 1 (the total alone), eight blocks at a time. A block's total, the last lane of its
 * three steps, is w[7] = ((x0∘x1)∘(x2∘x3))∘((x4∘x5)∘(x6∘x7)): three levels of composing
 * even and odd lanes of two vectors give the eight blocks' totals in one vector, 7
 * compositions instead of 24, with the same bits; they are then composed onto t one by
 * one in block order (scalar code: the chain). */
#define PAIR_TOTALS(P, V, S, LOAD)                                                           \
  for (; i + 64 <= m; i += 64) {                                                             \
    V a[8], b[8], pa[4], pb[4], qa[2], qb[2], ta, tb;                                        \
    for (int k = 0; k < 8; k++) LOAD(i + 8 * k, a[k], b[k]);                                 \
    for (int k = 0; k < 4; k++) PAIRS(P, pa[k], pb[k], a[2 * k], b[2 * k], a[2 * k + 1], b[2 * k + 1]); \
    for (int k = 0; k < 2; k++) PAIRS(P, qa[k], qb[k], pa[2 * k], pb[2 * k], pa[2 * k + 1], pb[2 * k + 1]); \
    PAIRS(P, ta, tb, qa[0], qb[0], qa[1], qb[1]);                                            \
    S la[8], lb[8];                                                                          \
    memcpy(la, &ta, sizeof la);                                                              \
    memcpy(lb, &tb, sizeof lb);                                                              \
    for (int k = 0; k < 8; k++) {                                                            \
      t[1] = la[k] * t[1] + lb[k];                                                           \
      t[0] = la[k] * t[0];                                                                   \
    }                                                                                        \
  }

/* A tally__scan_pair_fn: s, t (t may be NULL) hold (A, B) as S. One loop per option set. */
#define PAIR_KERNEL(NAME, P, V, S, LOAD, STORE, KEEPS, EZ, TREE)                                   \
  AI int64_t NAME##_(const char *x, const char *y, char *o, int64_t m, S s[2], S t[2],     \
                      int write, int excl, int tot) {                                        \
    int64_t i = 0;                                                                           \
    if (TREE && !write) PAIR_TOTALS(P, V, S, LOAD);                                                \
    PAIR_LOOP(P, V, S, LOAD, STORE, KEEPS, EZ, write, excl, tot);                            \
    return i;                                                                                \
  }                                                                                          \
  static int64_t NAME(const tally__scan_args *g, const char *x, const char *y, char *o,     \
                      int64_t m, void *sp, void *tp, int write) {                            \
    S s[2], t[2] = {(S)1, (S)0};                                                             \
    memcpy(s, sp, sizeof s);                                                                 \
    if (tp) memcpy(t, tp, sizeof t);                                                         \
    int64_t i = !write ? NAME##_(x, y, o, m, s, t, 0, 0, 1)                                  \
                : g->exclusive ? (tp ? NAME##_(x, y, o, m, s, t, 1, 1, 1)                    \
                                     : NAME##_(x, y, o, m, s, t, 1, 1, 0))                   \
                : tp ? NAME##_(x, y, o, m, s, t, 1, 0, 1) : NAME##_(x, y, o, m, s, t, 1, 0, 0); \
    memcpy(sp, s, sizeof s);                                                                 \
    if (tp) memcpy(tp, t, sizeof t);                                                         \
    return i;                                                                                \
  }

/* ------------------------------------------------------------ loads and stores */

#define H16(p) ((const uint16_t *)(const void *)(p))
/* floats in f64 lanes */
#define LD_F64(i, A, B) (A = wd_load(x + 8 * (i)), B = wd_load(y + 8 * (i)))
#define LD_F32D(i, A, B) (A = wd_of_f32(ld_vf8(x + 4 * (i))), B = wd_of_f32(ld_vf8(y + 4 * (i))))
#define LD_F16D(i, A, B) (A = wd_of_f32(f16x8_to_vf8(H16(x + 2 * (i)))), B = wd_of_f32(f16x8_to_vf8(H16(y + 2 * (i)))))
#define LD_BF16D(i, A, B) (A = wd_of_f32(bf16x8_to_vf8(H16(x + 2 * (i)))), B = wd_of_f32(bf16x8_to_vf8(H16(y + 2 * (i)))))
#define ST_D64(i, A, B) wd_store2(o + 16 * (i), A, B)
#define ST_D32(i, A, B) f8_store2(o + 8 * (i), wd_to_f32(A), wd_to_f32(B))
/* floats in f32 lanes (FAST) */
#define LD_F32F(i, A, B) (A = ld_vf8(x + 4 * (i)), B = ld_vf8(y + 4 * (i)))
#define LD_F16F(i, A, B) (A = f16x8_to_vf8(H16(x + 2 * (i))), B = f16x8_to_vf8(H16(y + 2 * (i))))
#define LD_BF16F(i, A, B) (A = bf16x8_to_vf8(H16(x + 2 * (i))), B = bf16x8_to_vf8(H16(y + 2 * (i))))
#define ST_F32(i, A, B) f8_store2(o + 8 * (i), A, B)
/* integers in u64 lanes */
#define LD_INT(T, S, i, A, B) (A = WU_LOAD_INT(T, S, x + sizeof(T) * (i)), B = WU_LOAD_INT(T, S, y + sizeof(T) * (i)))
#define LD_I8(i, A, B) LD_INT(int8_t, 1, i, A, B)
#define LD_I16(i, A, B) LD_INT(int16_t, 1, i, A, B)
#define LD_I32(i, A, B) LD_INT(int32_t, 1, i, A, B)
#define LD_U8(i, A, B) LD_INT(uint8_t, 0, i, A, B)
#define LD_U16(i, A, B) LD_INT(uint16_t, 0, i, A, B)
#define LD_U32(i, A, B) LD_INT(uint32_t, 0, i, A, B)
#define LD_64(i, A, B) (A = wu_load(x + 8 * (i)), B = wu_load(y + 8 * (i)))
#define ST_U64(i, A, B) wu_store2(o + 16 * (i), A, B)

AI vf8 ld_vf8(const char *p) { vf8 v; memcpy(&v, p, sizeof v); return v; }

PAIR_KERNEL(aff_d_f64, W, WDV, double, LD_F64, ST_D64, 1, -0.0, 0)
PAIR_KERNEL(aff_d_f64_t, W, WDV, double, LD_F64, ST_D64, 1, -0.0, 1)
PAIR_KERNEL(aff_d_f32, W, WDV, double, LD_F32D, ST_D32, 1, -0.0, 1)
PAIR_KERNEL(aff_d_f16, W, WDV, double, LD_F16D, ST_D32, 1, -0.0, 1)
PAIR_KERNEL(aff_d_bf16, W, WDV, double, LD_BF16D, ST_D32, 1, -0.0, 1)
PAIR_KERNEL(aff_f_f32, N, vf8, float, LD_F32F, ST_F32, 1, -0.0f, 1)
PAIR_KERNEL(aff_f_f16, N, vf8, float, LD_F16F, ST_F32, 1, -0.0f, 1)
PAIR_KERNEL(aff_f_bf16, N, vf8, float, LD_BF16F, ST_F32, 1, -0.0f, 1)
PAIR_KERNEL(aff_i8, W, WUV, uint64_t, LD_I8, ST_U64, 0, 0, 1)
PAIR_KERNEL(aff_i16, W, WUV, uint64_t, LD_I16, ST_U64, 0, 0, 1)
PAIR_KERNEL(aff_i32, W, WUV, uint64_t, LD_I32, ST_U64, 0, 0, 1)
PAIR_KERNEL(aff_u8, W, WUV, uint64_t, LD_U8, ST_U64, 0, 0, 1)
PAIR_KERNEL(aff_u16, W, WUV, uint64_t, LD_U16, ST_U64, 0, 0, 1)
PAIR_KERNEL(aff_u32, W, WUV, uint64_t, LD_U32, ST_U64, 0, 0, 1)
PAIR_KERNEL(aff_64, W, WUV, uint64_t, LD_64, ST_U64, 0, 0, 0)
PAIR_KERNEL(aff_64_t, W, WUV, uint64_t, LD_64, ST_U64, 0, 0, 1)

/* tree8: pass 1 of 8-byte inputs by the even/odd tree too (PAIR_TOTALS), as the narrower
 * ones always. It multiplies 14 times for 64 elements where the block loop multiplies 64
 * (pairs of 8 for each block's steps and total), and wins where multiplications are
 * dear: Intel's vpmullq is three µops, AVX2's 64-bit one three vpmuludq (2^26, 2 threads,
 * a 2-core Xeon, 2026-11-27, ms: i64 164-183 -> 128-148, f64 131-151 -> 117-131; AVX2
 * set i64 244 -> 158-187). On an AMD EPYC (Zen 4) it lost (f64 69-74 -> 77-87, i64 64-76
 * -> 80-104): scan.c passes tree8 = 0 on AMD processors
 * (the context's `amd`, read when it opens). */
tally__scan_pair_fn CAT(tally__scan_affine_, TALLY_ISA)(tally_dtype dt, int fast, int tree8) {
#if TALLY_AVX2_HALVES
  /* AVX2 has no 64-bit multiply: GCC's emulation (three 32-bit ones) left the narrow
   * integers slower than the scalar chain (2^26, 2 threads, AMD EPYC, 2026-11-27, ms:
   * u8 130-137 against 108-110, i16 134-136 against 107-114; u32 137 against 169-186).
   * With one vpmovzx/vpmovsx a load (wu_widen) a Xeon's AVX2 set gained little on them
   * (2026-11-27, same size: u8 144 against 155, i16 146 against 161), unmeasured on AMD. */
  if (tally__dtype_kind(dt) != TALLY__KIND_FLOAT && tally_dtype_size(dt) < 4) return NULL;
#endif
  switch (dt) {
  case TALLY_F64: return tree8 ? aff_d_f64_t : aff_d_f64;
  case TALLY_F32: return fast ? aff_f_f32 : aff_d_f32;
  case TALLY_F16: return fast ? aff_f_f16 : aff_d_f16;
  case TALLY_BF16: return fast ? aff_f_bf16 : aff_d_bf16;
  case TALLY_I8: return aff_i8;
  case TALLY_I16: return aff_i16;
  case TALLY_I32: return aff_i32;
  case TALLY_U8: return aff_u8;
  case TALLY_U16: return aff_u16;
  case TALLY_U32: return aff_u32;
  case TALLY_I64: case TALLY_U64: return tree8 ? aff_64_t : aff_64;
  default: return NULL;
  }
}

#else

tally__scan_pair_fn CAT(tally__scan_affine_, TALLY_ISA)(tally_dtype dt, int fast, int tree8) {
  (void)dt, (void)fast, (void)tree8;
  return NULL;
}

#endif

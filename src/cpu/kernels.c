/* The CPU kernels, compiled once per ISA (TALLY_ISA = scalar, avx2, avx512) from this one
 * source with that ISA's flags; the backend picks a set at run time.
 *
 * Each kernel reduces at most one chunk (TALLY__CHUNK elements) into fixed lanes, folds
 * the lanes in a fixed order and merges the result into the caller's part. Lanes are GCC
 * vectors of a fixed width (see kern_load.h), so the arithmetic, and the rounding, are the
 * same under every ISA. Every body is an always-inline function of a constant dtype and
 * constant flags: the instantiations below get one specialised loop each.
 *
 * Element j of a run is at x + j*sx elements. The tail of a run (fewer elements than
 * one step of the vector loop) goes into the same lanes one element at a time, so a
 * strided run rounds exactly as a contiguous one. */
#include "kern_load.h"
#include "core/part.h"

#ifndef TALLY_ISA
#define TALLY_ISA scalar
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#define KARGS tally__part *acc, const void *x, const void *y, int64_t sx, int64_t sy, \
              int64_t n, int64_t idx0, const tally__kparams *kp

/* ------------------------------------------------------------ folds (fixed trees) */

AI double fold_vd(vd v) { return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7])); }
AI float fold_vf(vf v) {
  float a = ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
  float b = ((v[8] + v[9]) + (v[10] + v[11])) + ((v[12] + v[13]) + (v[14] + v[15]));
  return a + b;
}
AI vd tree8_vd(const vd a[8]) { return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7])); }
AI vf tree8_vf(const vf a[8]) { return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7])); }

/* Lane-wise integer min/max: one instruction where the ISA has it. */
AI vi vmin32(vi a, vi b) {
#if defined(__AVX512F__)
  return (vi)_mm512_min_epi32((__m512i)a, (__m512i)b);
#else
  vi m = a < b;
  return (a & m) | (b & ~m);
#endif
}
AI vi vmax32(vi a, vi b) {
#if defined(__AVX512F__)
  return (vi)_mm512_max_epi32((__m512i)a, (__m512i)b);
#else
  vi m = a > b;
  return (a & m) | (b & ~m);
#endif
}
AI vl vmin64(vl a, vl b) {
#if defined(__AVX512F__)
  return (vl)_mm512_min_epi64((__m512i)a, (__m512i)b);
#else
  vl m = a < b;
  return (a & m) | (b & ~m);
#endif
}
AI vl vmax64(vl a, vl b) {
#if defined(__AVX512F__)
  return (vl)_mm512_max_epi64((__m512i)a, (__m512i)b);
#else
  vl m = a > b;
  return (a & m) | (b & ~m);
#endif
}

AI vd mask_nan_vd(vd v, vd fill) { vl m = v == v; return (vd)(((vl)v & m) | ((vl)fill & ~m)); }
AI vf mask_nan_vf(vf v, vf fill) { vi m = v == v; return (vf)(((vi)v & m) | ((vi)fill & ~m)); }

/* ------------------------------------------------------------ SUM */

/* Floats, DEFAULT: 16/32-bit floats in 64 f64 lanes (8 vectors, enough independent adds
 * to hide the add latency); f64 in 32 TwoSum-compensated lanes. FAST: native lanes. */
AI void sum_float(int dt, int fast, int ign, KARGS) {
  tally__part loc;
  tally__part_init(&loc, TALLY__FAM_SUM, 0);
  int64_t i = 0, cnt = 0;
  if (dt == TALLY_F64 && !fast) {
    vd s[4] = {0}, c[4] = {0};
    vl nn = {0};
#if TALLY_AVX2_HALVES
    /* The 32 compensated lanes as 256-bit halves (hs[j], hc[j]: elements 4j..4j+3 of each
     * 32, lanes 0-3 or 4-7 of s[j / 2], c[j / 2]), the same operations in the same order:
     * the same bits (see the f32 case below for why). With NaNs ignored, a NaN becomes
     * +0.0 (all bits clear) as mask_nan_vd makes it, and the others are counted: counts
     * are exact, so one total for all lanes gives the same n. */
    if (sx == 1) {
      const double *xd = (const double *)x;
      __m256d hs[8], hc[8];
      int64_t ok = 0;
      for (int j = 0; j < 8; j++) hs[j] = hc[j] = _mm256_setzero_pd();
      for (; i + 32 <= n; i += 32)
        for (int j = 0; j < 8; j++) {
          __m256d v = _mm256_loadu_pd(xd + i + 4 * j);
          if (ign) {
            __m256d m = _mm256_cmp_pd(v, v, _CMP_ORD_Q);
            ok += __builtin_popcount((unsigned)_mm256_movemask_pd(m));
            v = _mm256_and_pd(v, m);
          }
          __m256d t = _mm256_add_pd(hs[j], v);
          __m256d z = _mm256_sub_pd(t, hs[j]);
          hc[j] = _mm256_add_pd(hc[j], _mm256_add_pd(_mm256_sub_pd(hs[j], _mm256_sub_pd(t, z)),
                                                     _mm256_sub_pd(v, z)));
          hs[j] = t;
        }
      for (int k = 0; k < 4; k++) {
        s[k] = vd_join(hs[2 * k], hs[2 * k + 1]);
        c[k] = vd_join(hc[2 * k], hc[2 * k + 1]);
      }
      nn[0] = ok;
    }
#endif
    for (; i + 32 <= n; i += 32)
      for (int k = 0; k < 4; k++) {
        vd v = load_vd(dt, x, i + 8 * k, sx);
        if (ign) { nn -= (vl)(v == v); v = mask_nan_vd(v, (vd){0}); }
        vd t = s[k] + v, z = t - s[k];
        c[k] += (s[k] - (t - z)) + (v - z);
        s[k] = t;
      }
    for (; i < n; i++) {
      double v = rd_d(dt, x, i * sx);
      if (ign) { if (v != v) continue; cnt++; }
      int k = (int)(i & 31) >> 3, l = (int)(i & 7);
      double t = s[k][l] + v, z = t - s[k][l];
      c[k][l] += (s[k][l] - (t - z)) + (v - z);
      s[k][l] = t;
    }
    for (int k = 0; k < 4; k++)
      for (int l = 0; l < 8; l++) tally__twosum_merge(&loc.hi, &loc.lo, s[k][l], c[k][l]);
    for (int l = 0; l < 8; l++) cnt += nn[l];
  } else if (dt == TALLY_F64 || !fast) {
    vd a[8] = {0};
    vl nn = {0};
#if TALLY_AVX2_HALVES
    /* AVX2 has no 512-bit registers, and GCC kept these eight 8-double lane vectors in
     * memory, moving them through general registers (measured on an AMD EPYC,
     * 2026-11-25: f32 sums at 12 GB/s, no faster than the scalar kernels). The same lanes
     * as sixteen 4-double registers (h[j]: elements 4j..4j+3 of each 64, lanes 0-3 or 4-7
     * of a[j / 2]), each added to in the same order: the same bits. With NaNs ignored, a
     * NaN becomes +0.0 as in the generic loop (masked as a float before the exact widening,
     * the same value) and the others are counted (exact: one total for all lanes). */
    if (sx == 1) {
      const float *xf = (const float *)x;
      const double *xd = (const double *)x;
      __m256d h[16];
      int64_t ok = 0;
      for (int j = 0; j < 16; j++) h[j] = _mm256_setzero_pd();
      if (dt == TALLY_F16 || dt == TALLY_BF16 || (ign && dt == TALLY_F32)) /* 8 to 8 floats, then 4 + 4 doubles */
        for (; i + 64 <= n; i += 64)
          for (int j = 0; j < 16; j += 2) {
            __m256 f = dt == TALLY_F32 ? _mm256_loadu_ps(xf + i + 4 * j) : load8h_ps(dt, (const uint16_t *)x + i + 4 * j);
            if (ign) {
              __m256 m = _mm256_cmp_ps(f, f, _CMP_ORD_Q);
              ok += __builtin_popcount((unsigned)_mm256_movemask_ps(m));
              f = _mm256_and_ps(f, m);
            }
            h[j] = _mm256_add_pd(h[j], _mm256_cvtps_pd(_mm256_castps256_ps128(f)));
            h[j + 1] = _mm256_add_pd(h[j + 1], _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1)));
          }
      else if (dt == TALLY_F32)
        for (; i + 64 <= n; i += 64)
          for (int j = 0; j < 16; j++) h[j] = _mm256_add_pd(h[j], _mm256_cvtps_pd(_mm_loadu_ps(xf + i + 4 * j)));
      else if (ign) /* f64 */
        for (; i + 64 <= n; i += 64)
          for (int j = 0; j < 16; j += 2) {
            __m256d v0 = _mm256_loadu_pd(xd + i + 4 * j), v1 = _mm256_loadu_pd(xd + i + 4 * j + 4);
            __m256d m0 = _mm256_cmp_pd(v0, v0, _CMP_ORD_Q), m1 = _mm256_cmp_pd(v1, v1, _CMP_ORD_Q);
            ok += __builtin_popcount((unsigned)_mm256_movemask_pd(m0) | (unsigned)_mm256_movemask_pd(m1) << 4);
            h[j] = _mm256_add_pd(h[j], _mm256_and_pd(v0, m0));
            h[j + 1] = _mm256_add_pd(h[j + 1], _mm256_and_pd(v1, m1));
          }
      else
        for (; i + 64 <= n; i += 64)
          for (int j = 0; j < 16; j++) h[j] = _mm256_add_pd(h[j], _mm256_loadu_pd(xd + i + 4 * j));
      for (int k = 0; k < 8; k++) a[k] = vd_join(h[2 * k], h[2 * k + 1]);
      nn[0] = ok;
    }
#endif
    for (; i + 64 <= n; i += 64)
      for (int k = 0; k < 8; k++) {
        vd v = load_vd(dt, x, i + 8 * k, sx);
        if (ign) { nn -= (vl)(v == v); v = mask_nan_vd(v, (vd){0}); }
        a[k] += v;
      }
    for (; i < n; i++) {
      double v = rd_d(dt, x, i * sx);
      if (ign) { if (v != v) continue; cnt++; }
      a[(i & 63) >> 3][i & 7] += v;
    }
    loc.hi = fold_vd(tree8_vd(a));
    for (int l = 0; l < 8; l++) cnt += nn[l];
  } else {
    vf a[8] = {0};
    vi nn = {0};
#if TALLY_AVX2_HALVES
    /* The 128 f32 lanes as sixteen 8-float registers (h[j]: elements 8j..8j+7 of each
     * 128, lanes 0-7 or 8-15 of a[j / 2]), added to in the same order: the same bits.
     * NaNs ignored: each becomes +0.0f, the others are counted, as in the generic loop. */
    if (sx == 1 && ign) {
      const float *xf = (const float *)x;
      __m256 h[16];
      int64_t ok = 0;
      for (int j = 0; j < 16; j++) h[j] = _mm256_setzero_ps();
      for (; i + 128 <= n; i += 128)
        for (int j = 0; j < 16; j++) {
          __m256 f = dt == TALLY_F32 ? _mm256_loadu_ps(xf + i + 8 * j) : load8h_ps(dt, (const uint16_t *)x + i + 8 * j);
          __m256 m = _mm256_cmp_ps(f, f, _CMP_ORD_Q);
          ok += __builtin_popcount((unsigned)_mm256_movemask_ps(m));
          h[j] = _mm256_add_ps(h[j], _mm256_and_ps(f, m));
        }
      for (int k = 0; k < 8; k++) a[k] = vf_join(h[2 * k], h[2 * k + 1]);
      nn[0] = (int32_t)ok; /* at most TALLY__CHUNK */
    }
    if (sx == 1 && !ign) {
      const float *xf = (const float *)x;
      __m256 h[16];
      for (int j = 0; j < 16; j++) h[j] = _mm256_setzero_ps();
      if (dt == TALLY_F32)
        for (; i + 128 <= n; i += 128)
          for (int j = 0; j < 16; j++) h[j] = _mm256_add_ps(h[j], _mm256_loadu_ps(xf + i + 8 * j));
      else
        for (; i + 128 <= n; i += 128)
          for (int j = 0; j < 16; j++) h[j] = _mm256_add_ps(h[j], load8h_ps(dt, (const uint16_t *)x + i + 8 * j));
      for (int k = 0; k < 8; k++) a[k] = vf_join(h[2 * k], h[2 * k + 1]);
    }
#endif
    for (; i + 128 <= n; i += 128)
      for (int k = 0; k < 8; k++) {
        vf v = load_vf(dt, x, i + 16 * k, sx);
        if (ign) { nn -= (vi)(v == v); v = mask_nan_vf(v, (vf){0}); }
        a[k] += v;
      }
    for (; i < n; i++) {
      float v = rd_f(dt, x, i * sx);
      if (ign) { if (v != v) continue; cnt++; }
      a[(i & 127) >> 4][i & 15] += v;
    }
    loc.hi = fold_vf(tree8_vf(a));
    for (int l = 0; l < 16; l++) cnt += nn[l];
  }
  loc.n = ign ? cnt : n;
  tally__part_merge(acc, &loc, TALLY__FAM_SUM);
}

/* Integers: 32 lanes of 64 bits, wrapping. For inputs of up to 32 bits a chunk's lane
 * sums cannot overflow, so the total is exact; 64-bit inputs sum modulo 2^64, or in
 * 128 bits one at a time when kp->exact (MEAN). */
AI void sum_int(int dt, KARGS) {
  tally__part loc;
  tally__part_init(&loc, TALLY__FAM_SUM, 0);
  int wide64 = dt == TALLY_I64 || dt == TALLY_U64;
  if (wide64 && kp->exact) {
    for (int64_t i = 0; i < n; i++) {
      int64_t v = rd_l(dt, x, i * sx);
      loc.wide += dt == TALLY_I64 ? (unsigned __int128)(__int128)v : (unsigned __int128)(uint64_t)v;
    }
  } else if (DT_SIZE(dt) <= 2) {
    /* 8- and 16-bit inputs in 64 lanes of 32 bits: a chunk (<= 2^16 elements) puts at
     * most 2^10 values of at most 2^16 in a lane, far from overflow. */
    vi a[4] = {0};
    int64_t i = 0, head = 0; /* head: the sum of the elements before i (AVX2) */
#if TALLY_AVX2_HALVES
    /* In 256-bit registers (exact sums: any lanes will do; see sum_float for why not the
     * 64-byte lane vectors): bytes by sums of absolute differences from 0 (8 bytes to a
     * 64-bit lane; i8 offset by 128 first, bools' bytes made 0/1 first), 16-bit values by
     * pairs (vpmaddwd; u16 offset by 32768 first). The offsets come off the total at the
     * end. */
    if (sx == 1) {
      const __m256i zero = _mm256_setzero_si256();
      __m256i h[4] = {zero, zero, zero, zero};
      if (DT_SIZE(dt) == 1) {
        const __m256i flip = _mm256_set1_epi8(dt == TALLY_I8 ? (char)0x80 : 0), one = _mm256_set1_epi8(1);
        for (; i + 128 <= n; i += 128)
          for (int k = 0; k < 4; k++) {
            __m256i v = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)((const uint8_t *)x + i + 32 * k)), flip);
            if (dt == TALLY_BOOL) v = _mm256_min_epu8(v, one);
            h[k] = _mm256_add_epi64(h[k], _mm256_sad_epu8(v, zero));
          }
      } else {
        const __m256i flip = _mm256_set1_epi16(dt == TALLY_U16 ? (short)0x8000 : 0), one = _mm256_set1_epi16(1);
        for (; i + 64 <= n; i += 64)
          for (int k = 0; k < 4; k++) {
            __m256i v = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)((const int16_t *)x + i + 16 * k)), flip);
            h[k] = _mm256_add_epi32(h[k], _mm256_madd_epi16(v, one));
          }
      }
      int64_t lanes[8], total = 0;
      if (DT_SIZE(dt) == 1) {
        _mm256_storeu_si256((__m256i *)lanes, _mm256_add_epi64(_mm256_add_epi64(h[0], h[1]), _mm256_add_epi64(h[2], h[3])));
        total = ((lanes[0] + lanes[1]) + lanes[2]) + lanes[3];
        if (dt == TALLY_I8) total -= 128 * i;
      } else {
        int32_t l32[8];
        _mm256_storeu_si256((__m256i *)l32, _mm256_add_epi32(_mm256_add_epi32(h[0], h[1]), _mm256_add_epi32(h[2], h[3])));
        for (int l = 0; l < 8; l++) total += l32[l];
        if (dt == TALLY_U16) total += 32768 * i;
      }
      head = total; /* up to 2^16 x 65535: beyond a 32-bit lane */
    }
#endif
    for (; i + 64 <= n; i += 64)
      for (int k = 0; k < 4; k++) a[k] += load_key32(dt, x, i + 16 * k, sx);
    for (; i < n; i++) a[(i & 63) >> 4][i & 15] += (int32_t)rd_l(dt, x, i * sx);
    vi t = (a[0] + a[1]) + (a[2] + a[3]);
    int64_t total = head;
    for (int l = 0; l < 16; l++) total += t[l];
    loc.wide = (unsigned __int128)(__int128)total;
  } else {
    vul a[4] = {0};
    int64_t i = 0;
#if TALLY_AVX2_HALVES
    /* 4-byte integers widened in 256-bit registers (exact sums: any lanes will do; see
     * sum_float for why not the 64-byte lane vectors). */
    if (sx == 1 && (dt == TALLY_I32 || dt == TALLY_U32)) {
      const int32_t *xi = (const int32_t *)x;
      __m256i h[4];
      for (int k = 0; k < 4; k++) h[k] = _mm256_setzero_si256();
      for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 8; k++) {
          __m128i q = _mm_loadu_si128((const __m128i *)(xi + i + 4 * k));
          __m256i w = dt == TALLY_I32 ? _mm256_cvtepi32_epi64(q) : _mm256_cvtepu32_epi64(q);
          h[k & 3] = _mm256_add_epi64(h[k & 3], w);
        }
      uint64_t l[4];
      _mm256_storeu_si256((__m256i *)l, _mm256_add_epi64(_mm256_add_epi64(h[0], h[1]), _mm256_add_epi64(h[2], h[3])));
      a[0][0] = ((l[0] + l[1]) + l[2]) + l[3];
    }
#endif
    for (; i + 32 <= n; i += 32)
      for (int k = 0; k < 4; k++) a[k] += (vul)load_vl(dt, x, i + 8 * k, sx);
    for (; i < n; i++) a[(i & 31) >> 3][i & 7] += (uint64_t)rd_l(dt, x, i * sx);
    vul t = (a[0] + a[1]) + (a[2] + a[3]);
    uint64_t total = 0;
    for (int l = 0; l < 8; l++) total += t[l];
    loc.wide = wide64 ? (unsigned __int128)total : (unsigned __int128)(__int128)(int64_t)total;
  }
  loc.n = n;
  tally__part_merge(acc, &loc, TALLY__FAM_SUM);
}

AI void k_sum(int dt, KARGS) {
  if (!IS_FLOAT(dt)) { sum_int(dt, acc, x, y, sx, sy, n, idx0, kp); return; }
  int fast = kp->fast, ign = kp->ignore_nan;
  if (fast) {
    if (ign) sum_float(dt, 1, 1, acc, x, y, sx, sy, n, idx0, kp);
    else sum_float(dt, 1, 0, acc, x, y, sx, sy, n, idx0, kp);
  } else {
    if (ign) sum_float(dt, 0, 1, acc, x, y, sx, sy, n, idx0, kp);
    else sum_float(dt, 0, 0, acc, x, y, sx, sy, n, idx0, kp);
  }
}

/* ------------------------------------------------------------ PROD */

#if TALLY_AVX2_EXACT
/* Integer products modulo 2^64 are exact, so any lanes and order will do (see sum_float
 * for why not the 64-byte lane vectors; u8 PROD measured at 0.01 x the read probe
 * through them). AVX2 has no 64-bit multiply: a·b mod 2^64 from three 32x32 -> 64 ones. */
AI __m256i mul64(__m256i a, __m256i b) {
  __m256i lo = _mm256_mul_epu32(a, b);
  __m256i mid = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), b), _mm256_mul_epu32(a, _mm256_srli_epi64(b, 32)));
  return _mm256_add_epi64(lo, _mm256_slli_epi64(mid, 32));
}
/* Elements are first multiplied in narrow lanes while the products stay exact (two bytes
 * in 16 bits, two of those in 32, two 32-bit ones into 64), then into 64-bit lanes mod
 * 2^64; signed types sign-extend at each step. bool: 0 if any byte is 0, else 1. Returns
 * the elements done (a multiple of 32 or 64) and their product in *p. */
AI int64_t prod_int_avx2(int dt, const void *xv, int64_t n, uint64_t *p) {
  const char *x = (const char *)xv;
  const int sz = DT_SIZE(dt), sgn = !IS_UNSIGNED(dt);
  const int64_t per = 32 / sz; /* elements per 32 bytes */
  const __m256i one = _mm256_set1_epi64x(1), zero = _mm256_setzero_si256();
  __m256i acc[4] = {one, one, one, one}, zb = zero;
  int64_t i = 0;
  for (; i + 4 * per <= n; i += 4 * per)
    for (int k = 0; k < 4; k++) {
      const char *c = x + (i + k * per) * sz;
      if (dt == TALLY_BOOL) { zb = _mm256_or_si256(zb, _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)c), zero)); continue; }
      __m256i w; /* 32-bit products (exact) */
      if (sz == 1) {
        __m128i u = _mm_loadu_si128((const __m128i *)c), v = _mm_loadu_si128((const __m128i *)(c + 16));
        __m256i m = sgn ? _mm256_mullo_epi16(_mm256_cvtepi8_epi16(u), _mm256_cvtepi8_epi16(v))
                        : _mm256_mullo_epi16(_mm256_cvtepu8_epi16(u), _mm256_cvtepu8_epi16(v));
        __m128i ml = _mm256_castsi256_si128(m), mh = _mm256_extracti128_si256(m, 1);
        w = sgn ? _mm256_mullo_epi32(_mm256_cvtepi16_epi32(ml), _mm256_cvtepi16_epi32(mh))
                : _mm256_mullo_epi32(_mm256_cvtepu16_epi32(ml), _mm256_cvtepu16_epi32(mh));
      } else if (sz == 2) {
        __m128i u = _mm_loadu_si128((const __m128i *)c), v = _mm_loadu_si128((const __m128i *)(c + 16));
        w = sgn ? _mm256_mullo_epi32(_mm256_cvtepi16_epi32(u), _mm256_cvtepi16_epi32(v))
                : _mm256_mullo_epi32(_mm256_cvtepu16_epi32(u), _mm256_cvtepu16_epi32(v));
      } else {
        w = _mm256_loadu_si256((const __m256i *)c);
      }
      __m256i wo = _mm256_srli_epi64(w, 32); /* odd 32-bit lanes times even ones, in 64 bits */
      acc[k] = mul64(acc[k], sgn ? _mm256_mul_epi32(w, wo) : _mm256_mul_epu32(w, wo));
    }
  uint64_t l[4], r = 1;
  _mm256_storeu_si256((__m256i *)l, mul64(mul64(acc[0], acc[1]), mul64(acc[2], acc[3])));
  for (int k = 0; k < 4; k++) r *= l[k];
  if (dt == TALLY_BOOL) r = _mm256_testz_si256(zb, zb) ? 1 : 0;
  *p = r;
  return i;
}
#endif

AI void prod_body(int dt, int fast, int ign, KARGS) {
  tally__part loc;
  tally__part_init(&loc, TALLY__FAM_PROD, 0);
  int64_t i = 0;
  if (!IS_FLOAT(dt)) {
    vul a[4];
    for (int k = 0; k < 4; k++) a[k] = (vul){0} + 1;
#if TALLY_AVX2_EXACT
    if (sx == 1 && DT_SIZE(dt) <= 4) {
      uint64_t p;
      i = prod_int_avx2(dt, x, n, &p);
      a[0][0] = p;
    }
#endif
    for (; i + 32 <= n; i += 32)
      for (int k = 0; k < 4; k++) a[k] *= (vul)load_vl(dt, x, i + 8 * k, sx);
    for (; i < n; i++) a[(i & 31) >> 3][i & 7] *= (uint64_t)rd_l(dt, x, i * sx);
    vul t = (a[0] * a[1]) * (a[2] * a[3]);
    uint64_t p = 1;
    for (int l = 0; l < 8; l++) p *= t[l];
    loc.k0 = (int64_t)p;
  } else if (fast && dt != TALLY_F64) {
    vf one = (vf){0} + 1.0f, a[4] = {one, one, one, one};
#if TALLY_AVX2_HALVES
    /* The 64 lanes as eight 8-float registers (h[j]: elements 8j..8j+7 of each 64, lanes
     * 0-7 or 8-15 of a[j / 2]), multiplied in the same order: the same bits (see
     * sum_float for why not the 64-byte lane vectors). With NaNs ignored a NaN becomes
     * 1.0f, as mask_nan_vf makes it. */
    if (sx == 1) {
      const __m256 one8 = _mm256_set1_ps(1.0f);
      __m256 h[8];
      for (int j = 0; j < 8; j++) h[j] = one8;
      if (ign)
        for (; i + 64 <= n; i += 64)
          for (int j = 0; j < 8; j++) {
            __m256 f = dt == TALLY_F32 ? _mm256_loadu_ps((const float *)x + i + 8 * j) : load8h_ps(dt, (const uint16_t *)x + i + 8 * j);
            h[j] = _mm256_mul_ps(h[j], _mm256_blendv_ps(one8, f, _mm256_cmp_ps(f, f, _CMP_ORD_Q)));
          }
      else if (dt == TALLY_F32)
        for (; i + 64 <= n; i += 64)
          for (int j = 0; j < 8; j++) h[j] = _mm256_mul_ps(h[j], _mm256_loadu_ps((const float *)x + i + 8 * j));
      else
        for (; i + 64 <= n; i += 64)
          for (int j = 0; j < 8; j++) h[j] = _mm256_mul_ps(h[j], load8h_ps(dt, (const uint16_t *)x + i + 8 * j));
      for (int k = 0; k < 4; k++) a[k] = vf_join(h[2 * k], h[2 * k + 1]);
    }
#endif
    for (; i + 64 <= n; i += 64)
      for (int k = 0; k < 4; k++) {
        vf v = load_vf(dt, x, i + 16 * k, sx);
        if (ign) v = mask_nan_vf(v, one);
        a[k] *= v;
      }
    for (; i < n; i++) {
      float v = rd_f(dt, x, i * sx);
      if (ign && v != v) continue;
      a[(i & 63) >> 4][i & 15] *= v;
    }
    vf t = (a[0] * a[1]) * (a[2] * a[3]);
    float p = 1.0f;
    for (int l = 0; l < 16; l++) p *= t[l];
    loc.hi = p;
  } else {
    vd one = (vd){0} + 1.0, a[4] = {one, one, one, one};
#if TALLY_AVX2_HALVES
    /* The 32 lanes as eight 4-double registers (h[j]: elements 4j..4j+3 of each 32, lanes
     * 0-3 or 4-7 of a[j / 2]), multiplied in the same order: the same bits. With NaNs
     * ignored a NaN becomes 1.0, as mask_nan_vd makes it. */
    if (sx == 1) {
      const __m256d one4 = _mm256_set1_pd(1.0);
      __m256d h[8];
      for (int j = 0; j < 8; j++) h[j] = one4;
      if (ign)
        for (; i + 32 <= n; i += 32)
          for (int j = 0; j < 8; j++) {
            __m256d v = load4_pd(dt, x, i + 4 * j);
            h[j] = _mm256_mul_pd(h[j], _mm256_blendv_pd(one4, v, _mm256_cmp_pd(v, v, _CMP_ORD_Q)));
          }
      else
        for (; i + 32 <= n; i += 32)
          for (int j = 0; j < 8; j++) h[j] = _mm256_mul_pd(h[j], load4_pd(dt, x, i + 4 * j));
      for (int k = 0; k < 4; k++) a[k] = vd_join(h[2 * k], h[2 * k + 1]);
    }
#endif
    for (; i + 32 <= n; i += 32)
      for (int k = 0; k < 4; k++) {
        vd v = load_vd(dt, x, i + 8 * k, sx);
        if (ign) v = mask_nan_vd(v, one);
        a[k] *= v;
      }
    for (; i < n; i++) {
      double v = rd_d(dt, x, i * sx);
      if (ign && v != v) continue;
      a[(i & 31) >> 3][i & 7] *= v;
    }
    vd t = (a[0] * a[1]) * (a[2] * a[3]);
    double p = 1.0;
    for (int l = 0; l < 8; l++) p *= t[l];
    loc.hi = p;
  }
  tally__part_merge(acc, &loc, TALLY__FAM_PROD);
}

AI void k_prod(int dt, KARGS) {
  if (kp->fast) {
    if (kp->ignore_nan) prod_body(dt, 1, 1, acc, x, y, sx, sy, n, idx0, kp);
    else prod_body(dt, 1, 0, acc, x, y, sx, sy, n, idx0, kp);
  } else {
    if (kp->ignore_nan) prod_body(dt, 0, 1, acc, x, y, sx, sy, n, idx0, kp);
    else prod_body(dt, 0, 0, acc, x, y, sx, sy, n, idx0, kp);
  }
}

/* ------------------------------------------------------------ DOT, SUMSQ, NORM2 */

/* Veltkamp split: a = hi + lo with hi holding the top 26 bits, so products of halves
 * are exact and TwoProduct needs no FMA (identical on every ISA). */
AI void split_vd(vd a, vd *hi, vd *lo) {
  vd c = a * 134217729.0; /* 2^27 + 1 */
  *hi = c - (c - a);
  *lo = a - *hi;
}
AI void split_d(double a, double *hi, double *lo) {
  double c = a * 134217729.0;
  *hi = c - (c - a);
  *lo = a - *hi;
}

#if TALLY_AVX2_HALVES
/* f64 DEFAULT DOT of contiguous input in 256-bit halves: hs[j], hc[j] hold lanes 0-3 or
 * 4-7 of dot_float's s[j / 2], c[j / 2] (elements 4j..4j+3 of each 32), updated with the
 * same operations in the same order (TwoProduct by Veltkamp's split, then TwoSum): the
 * same bits. With NaNs ignored (ign), both factors become +0.0 where either is a NaN,
 * as dot_float's generic loop does. Returns the elements done (a multiple of 32). */
AI int64_t dot2_halves(int sq, int ign, const double *x, const double *y, int64_t n, double scale, vd s[4], vd c[4]) {
  const __m256d sc = _mm256_set1_pd(scale), split = _mm256_set1_pd(134217729.0);
  __m256d hs[8], hc[8];
  for (int j = 0; j < 8; j++) hs[j] = hc[j] = _mm256_setzero_pd();
  int64_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int j = 0; j < 8; j++) {
      __m256d a = _mm256_mul_pd(_mm256_loadu_pd(x + i + 4 * j), sc);
      __m256d b = sq ? a : _mm256_mul_pd(_mm256_loadu_pd(y + i + 4 * j), sc);
      if (ign) {
        __m256d m = _mm256_and_pd(_mm256_cmp_pd(a, a, _CMP_ORD_Q), _mm256_cmp_pd(b, b, _CMP_ORD_Q));
        a = _mm256_and_pd(a, m);
        b = _mm256_and_pd(b, m);
      }
      __m256d p = _mm256_mul_pd(a, b);
      __m256d ca = _mm256_mul_pd(a, split), ah = _mm256_sub_pd(ca, _mm256_sub_pd(ca, a)), al = _mm256_sub_pd(a, ah);
      __m256d cb = _mm256_mul_pd(b, split), bh = _mm256_sub_pd(cb, _mm256_sub_pd(cb, b)), bl = _mm256_sub_pd(b, bh);
      /* ep = al * bl - (((p - ah * bh) - al * bh) - ah * bl) */
      __m256d ep = _mm256_sub_pd(_mm256_mul_pd(al, bl),
                                 _mm256_sub_pd(_mm256_sub_pd(_mm256_sub_pd(p, _mm256_mul_pd(ah, bh)), _mm256_mul_pd(al, bh)),
                                               _mm256_mul_pd(ah, bl)));
      __m256d t = _mm256_add_pd(hs[j], p), z = _mm256_sub_pd(t, hs[j]);
      hc[j] = _mm256_add_pd(hc[j], _mm256_add_pd(_mm256_add_pd(_mm256_sub_pd(hs[j], _mm256_sub_pd(t, z)), _mm256_sub_pd(p, z)), ep));
      hs[j] = t;
    }
  for (int k = 0; k < 4; k++) {
    s[k] = vd_join(hs[2 * k], hs[2 * k + 1]);
    c[k] = vd_join(hc[2 * k], hc[2 * k + 1]);
  }
  return i;
}
/* Out of line, as var_blocks_avx2 (GCC's register allocation inside the big callers). */
static __attribute__((noipa)) int64_t dot2_avx2(int sq, int ign, const double *x, const double *y, int64_t n,
                                                double scale, vd s[4], vd c[4]) {
  if (ign) return sq ? dot2_halves(1, 1, x, y, n, scale, s, c) : dot2_halves(0, 1, x, y, n, scale, s, c);
  return sq ? dot2_halves(1, 0, x, y, n, scale, s, c) : dot2_halves(0, 0, x, y, n, scale, s, c);
}

/* f16 and bf16 DEFAULT DOT/SUMSQ of contiguous, unscaled input (kp->scale == 1.0, as it
 * is but in NORM2's f64 rescue) in 256-bit halves: h[j] holds lanes 0-3 or 4-7 of
 * dot_float's a8[j / 2] (elements 4j..4j+3 of each 64), and gets the same products, added
 * in the same order: the same bits. The generic loop ran these at 1 GB/s on an AMD EPYC
 * (2026-11-26). Sixteen accumulators fill AVX2's sixteen registers, so a block of elements
 * is done in two passes, h[0..7] (the first 32 of each 64 elements) then h[8..15]: each
 * accumulator still takes its products in order. Elements are read 8 at a time as floats
 * (load8h_ps: the values load_vd gives). The generic loop's products are those of the
 * values widened to f64, times a scale of 1.0 (exact: the same values, a NaN stays a NaN):
 * bf16 products are made so; products of two f16 are exact in f32 (11-bit significands,
 * magnitudes in [2^-48, 2^32]), so made there and widened, the same values, signed zeros,
 * Inf and NaN alike. With NaNs ignored, a product becomes +0.0 where either factor is a
 * NaN (the factors' NaN test in f32 is the same as in f64), as in the generic loop. */
AI void doth_pass(int dt, int sq, int ign, const uint16_t *x, const uint16_t *y, int64_t i0, int64_t i1, __m256d *h) {
  __m256d r[8];
  for (int j = 0; j < 8; j++) r[j] = h[j];
  for (int64_t i = i0; i < i1; i += 64)
    for (int j = 0; j < 8; j += 2) {
      __m256 f = load8h_ps(dt, x + i + 4 * j), g = sq ? f : load8h_ps(dt, y + i + 4 * j), m = f;
      if (ign) {
        m = _mm256_cmp_ps(f, f, _CMP_ORD_Q);
        if (!sq) m = _mm256_and_ps(m, _mm256_cmp_ps(g, g, _CMP_ORD_Q));
      }
      if (dt == TALLY_F16) {
        __m256 p = _mm256_mul_ps(f, g);
        if (ign) p = _mm256_and_ps(p, m);
        r[j] = _mm256_add_pd(r[j], _mm256_cvtps_pd(_mm256_castps256_ps128(p)));
        r[j + 1] = _mm256_add_pd(r[j + 1], _mm256_cvtps_pd(_mm256_extractf128_ps(p, 1)));
      } else {
        if (ign) { f = _mm256_and_ps(f, m); g = sq ? f : _mm256_and_ps(g, m); } /* +0.0 * +0.0 */
        __m256d a0 = _mm256_cvtps_pd(_mm256_castps256_ps128(f)), a1 = _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1));
        __m256d b0 = sq ? a0 : _mm256_cvtps_pd(_mm256_castps256_ps128(g));
        __m256d b1 = sq ? a1 : _mm256_cvtps_pd(_mm256_extractf128_ps(g, 1));
        r[j] = _mm256_add_pd(r[j], _mm256_mul_pd(a0, b0));
        r[j + 1] = _mm256_add_pd(r[j + 1], _mm256_mul_pd(a1, b1));
      }
    }
  for (int j = 0; j < 8; j++) h[j] = r[j];
}
AI int64_t doth_halves(int dt, int sq, int ign, const uint16_t *x, const uint16_t *y, int64_t n, vd a8[8]) {
  __m256d h[16];
  for (int j = 0; j < 16; j++) h[j] = _mm256_setzero_pd();
  int64_t i = 0;
  while (i + 64 <= n) {
    int64_t e = n - i >= 2048 ? i + 2048 : i + (n - i) / 64 * 64; /* 4 KiB of each input */
    doth_pass(dt, sq, ign, x, y, i, e, h);
    doth_pass(dt, sq, ign, x + 32, y + 32, i, e, h + 8);
    i = e;
  }
  for (int k = 0; k < 8; k++) a8[k] = vd_join(h[2 * k], h[2 * k + 1]);
  return i;
}
/* Out of line, as dot2_avx2. Returns the elements done (a multiple of 64). */
static __attribute__((noipa)) int64_t doth_avx2(int dt, int sq, int ign, const void *xv, const void *yv, int64_t n, vd a8[8]) {
  const uint16_t *x = (const uint16_t *)xv, *y = (const uint16_t *)yv;
#define DOTH_(d) \
  do { \
    if (ign) return sq ? doth_halves(d, 1, 1, x, y, n, a8) : doth_halves(d, 0, 1, x, y, n, a8); \
    return sq ? doth_halves(d, 1, 0, x, y, n, a8) : doth_halves(d, 0, 0, x, y, n, a8); \
  } while (0)
  if (dt == TALLY_F16) DOTH_(TALLY_F16);
  DOTH_(TALLY_BF16);
#undef DOTH_
}
#endif

/* Floats as doubles: products of 16/32-bit floats (and small ints) are exact in f64.
 * f64 DEFAULT: TwoProduct + TwoSum lanes (Ogita, Rump and Oishi's Dot2). */
AI void dot_float(int dt, int fast, int ign, int sq, KARGS) {
  tally__part loc;
  tally__part_init(&loc, TALLY__FAM_DOT, 0);
  int64_t i = 0, cnt = 0;
  const void *yy = sq ? x : y;
  int64_t sy2 = sq ? sx : sy;
  double scale = kp->scale;
  if (dt == TALLY_F64 && !fast) {
    vd s[4] = {0}, c[4] = {0};
#if TALLY_AVX2_HALVES
    if (sx == 1 && sy2 == 1) i = dot2_avx2(sq, ign, (const double *)x, (const double *)yy, n, scale, s, c);
#endif
    for (; i + 32 <= n; i += 32)
      for (int k = 0; k < 4; k++) {
        vd a = load_vd(dt, x, i + 8 * k, sx) * scale;
        vd b = sq ? a : load_vd(dt, yy, i + 8 * k, sy2) * scale;
        if (ign) { vl m = (a == a) & (b == b); a = (vd)((vl)a & m); b = (vd)((vl)b & m); }
        vd p = a * b, ah, al, bh, bl;
        split_vd(a, &ah, &al);
        split_vd(b, &bh, &bl);
        vd ep = al * bl - (((p - ah * bh) - al * bh) - ah * bl);
        vd t = s[k] + p, z = t - s[k];
        c[k] += ((s[k] - (t - z)) + (p - z)) + ep;
        s[k] = t;
      }
    for (; i < n; i++) {
      double a = rd_d(dt, x, i * sx) * scale, b = sq ? a : rd_d(dt, yy, i * sy2) * scale;
      if (ign && (a != a || b != b)) continue;
      double p = a * b, ah, al, bh, bl;
      split_d(a, &ah, &al);
      split_d(b, &bh, &bl);
      double ep = al * bl - (((p - ah * bh) - al * bh) - ah * bl);
      int k = (int)(i & 31) >> 3, l = (int)(i & 7);
      double t = s[k][l] + p, z = t - s[k][l];
      c[k][l] += ((s[k][l] - (t - z)) + (p - z)) + ep;
      s[k][l] = t;
    }
    for (int k = 0; k < 4; k++)
      for (int l = 0; l < 8; l++) tally__twosum_merge(&loc.hi, &loc.lo, s[k][l], c[k][l]);
  } else if (dt == TALLY_F64 || !fast) {
    vd a8[8] = {0};
#if TALLY_AVX2_HALVES
    /* The 64 lanes as sixteen 256-bit halves, as in sum_float (h[j]: elements 4j..4j+3 of
     * each 64): the same products added in the same order, the same bits. With NaNs
     * ignored, a product becomes +0.0 where either factor is a NaN, as in the generic loop. */
    if ((dt == TALLY_F32 || dt == TALLY_F64) && sx == 1 && sy2 == 1) {
      const __m256d sc = _mm256_set1_pd(scale);
      __m256d h[16];
      for (int j = 0; j < 16; j++) h[j] = _mm256_setzero_pd();
      for (; i + 64 <= n; i += 64)
        for (int j = 0; j < 16; j++) {
          __m256d a, b;
          if (dt == TALLY_F32) {
            a = _mm256_cvtps_pd(_mm_loadu_ps((const float *)x + i + 4 * j));
            b = _mm256_cvtps_pd(_mm_loadu_ps((const float *)yy + i + 4 * j));
          } else {
            a = _mm256_loadu_pd((const double *)x + i + 4 * j);
            b = _mm256_loadu_pd((const double *)yy + i + 4 * j);
          }
          a = _mm256_mul_pd(a, sc);
          b = sq ? a : _mm256_mul_pd(b, sc);
          __m256d p = _mm256_mul_pd(a, b);
          if (ign) p = _mm256_and_pd(p, _mm256_and_pd(_mm256_cmp_pd(a, a, _CMP_ORD_Q), _mm256_cmp_pd(b, b, _CMP_ORD_Q)));
          h[j] = _mm256_add_pd(h[j], p);
        }
      for (int k = 0; k < 8; k++) a8[k] = vd_join(h[2 * k], h[2 * k + 1]);
    }
    if ((dt == TALLY_F16 || dt == TALLY_BF16) && sx == 1 && sy2 == 1 && scale == 1.0) i = doth_avx2(dt, sq, ign, x, yy, n, a8);
#endif
    for (; i + 64 <= n; i += 64)
      for (int k = 0; k < 8; k++) {
        vd a = load_vd(dt, x, i + 8 * k, sx) * scale;
        vd b = sq ? a : load_vd(dt, yy, i + 8 * k, sy2) * scale;
        vd p = a * b;
        if (ign) { vl m = (a == a) & (b == b); p = (vd)((vl)p & m); }
        a8[k] += p;
      }
    for (; i < n; i++) {
      double a = rd_d(dt, x, i * sx) * scale, b = sq ? a : rd_d(dt, yy, i * sy2) * scale;
      if (ign && (a != a || b != b)) continue;
      a8[(i & 63) >> 3][i & 7] += a * b;
    }
    loc.hi = fold_vd(tree8_vd(a8));
  } else {
    vf a8[8] = {0};
#if TALLY_AVX2_HALVES
    /* The 128 f32 lanes as sixteen 8-float registers (h[j]: elements 8j..8j+7 of each
     * 128, lanes 0-7 or 8-15 of a8[j / 2]), the same products added in the same order:
     * the same bits (see sum_float). With NaNs ignored, a product becomes +0.0f where
     * either factor is a NaN, as in the generic loop. */
    if (sx == 1 && sy2 == 1) {
      __m256 h[16];
      for (int j = 0; j < 16; j++) h[j] = _mm256_setzero_ps();
      for (; i + 128 <= n; i += 128)
        for (int j = 0; j < 16; j++) {
          __m256 a = dt == TALLY_F32 ? _mm256_loadu_ps((const float *)x + i + 8 * j) : load8h_ps(dt, (const uint16_t *)x + i + 8 * j);
          __m256 b = sq ? a : dt == TALLY_F32 ? _mm256_loadu_ps((const float *)yy + i + 8 * j) : load8h_ps(dt, (const uint16_t *)yy + i + 8 * j);
          __m256 p = _mm256_mul_ps(a, b);
          if (ign) p = _mm256_and_ps(p, _mm256_and_ps(_mm256_cmp_ps(a, a, _CMP_ORD_Q), _mm256_cmp_ps(b, b, _CMP_ORD_Q)));
          h[j] = _mm256_add_ps(h[j], p);
        }
      for (int k = 0; k < 8; k++) a8[k] = vf_join(h[2 * k], h[2 * k + 1]);
    }
#endif
    for (; i + 128 <= n; i += 128)
      for (int k = 0; k < 8; k++) {
        vf a = load_vf(dt, x, i + 16 * k, sx);
        vf b = sq ? a : load_vf(dt, yy, i + 16 * k, sy2);
        vf p = a * b;
        if (ign) { vi m = (a == a) & (b == b); p = (vf)((vi)p & m); }
        a8[k] += p;
      }
    for (; i < n; i++) {
      float a = rd_f(dt, x, i * sx), b = sq ? a : rd_f(dt, yy, i * sy2);
      if (ign && (a != a || b != b)) continue;
      a8[(i & 127) >> 4][i & 15] += a * b;
    }
    loc.hi = fold_vf(tree8_vf(a8));
  }
  (void)cnt;
  tally__part_merge(acc, &loc, TALLY__FAM_DOT);
}

#if TALLY_AVX2_EXACT
/* DOT of bool counts the places where both bytes are nonzero: 32 at a time, the places
 * where either is zero counted in bytes (flushed by vpsadbw before 255). Sets *done (a
 * multiple of 128) and returns the count there. */
static __attribute__((noipa)) int64_t dot_bool_avx2(const void *xv, const void *yv, int64_t n, int64_t *done) {
  const char *x = (const char *)xv, *y = (const char *)yv;
  const __m256i zero = _mm256_setzero_si256();
  __m256i tot = zero;
  int64_t i = 0;
  while (i + 128 <= n) {
    __m256i c[4] = {zero, zero, zero, zero};
    for (int r = 0; r < 255 && i + 128 <= n; r++, i += 128)
      for (int k = 0; k < 4; k++) {
        __m256i u = _mm256_loadu_si256((const __m256i *)(x + i + 32 * k)), v = _mm256_loadu_si256((const __m256i *)(y + i + 32 * k));
        c[k] = _mm256_sub_epi8(c[k], _mm256_or_si256(_mm256_cmpeq_epi8(u, zero), _mm256_cmpeq_epi8(v, zero)));
      }
    for (int k = 0; k < 4; k++) tot = _mm256_add_epi64(tot, _mm256_sad_epu8(c[k], zero));
  }
  uint64_t l[4];
  _mm256_storeu_si256((__m256i *)l, tot);
  *done = i;
  return i - (int64_t)(l[0] + l[1] + l[2] + l[3]);
}
#endif

/* Σ x·y (Σ x² when sq) modulo 2^64, exact where it does not wrap. */
AI uint64_t dot_int_total(int dt, int sq, const void *x, const void *y, int64_t sx, int64_t sy, int64_t n) {
  const void *yy = sq ? x : y;
  int64_t sy2 = sq ? sx : sy, i = 0;
  vul a[4] = {0};
#if TALLY_AVX2_EXACT
  /* Exact products summed modulo 2^64: any lanes will do (see sum_float for why not the
   * 64-byte lane vectors; u8 DOT measured at 0.03 x the read probe through them). */
  if (sx == 1 && sy2 == 1 && dt != TALLY_BOOL && DT_SIZE(dt) <= 4) {
    const char *xc = (const char *)x, *yc = (const char *)yy;
    const __m256i zero = _mm256_setzero_si256();
    __m256i h[4] = {zero, zero, zero, zero};
    uint64_t extra = 0;
    if (DT_SIZE(dt) == 1) {
      /* Bytes widened to 16 bits, pairs of products summed by vpmaddwd: |pair| < 2^17, and
       * a chunk (<= 2^16 elements) adds at most 2^10 pairs to a 32-bit lane. */
      for (; i + 64 <= n; i += 64)
        for (int k = 0; k < 4; k++) {
          __m128i u = _mm_loadu_si128((const __m128i *)(xc + i + 16 * k)), v = _mm_loadu_si128((const __m128i *)(yc + i + 16 * k));
          __m256i a16 = dt == TALLY_I8 ? _mm256_cvtepi8_epi16(u) : _mm256_cvtepu8_epi16(u);
          __m256i b16 = dt == TALLY_I8 ? _mm256_cvtepi8_epi16(v) : _mm256_cvtepu8_epi16(v);
          h[k] = _mm256_add_epi32(h[k], _mm256_madd_epi16(a16, b16));
        }
      for (int k = 0; k < 4; k++) /* to 64-bit lanes, signed */
        h[k] = _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(h[k])),
                                _mm256_cvtepi32_epi64(_mm256_extracti128_si256(h[k], 1)));
    } else if (dt == TALLY_I16) {
      /* vpmaddwd's pair sums lie in (-2^31, 2^31]; only 2^31 (two products (-2^15)^2)
       * wraps, so the pair sum minus 1 is exact in 32 bits: sum those in 64 bits and add
       * the number of pairs back. */
      const __m256i one = _mm256_set1_epi32(1);
      for (; i + 64 <= n; i += 64)
        for (int k = 0; k < 4; k++) {
          __m256i r = _mm256_sub_epi32(_mm256_madd_epi16(_mm256_loadu_si256((const __m256i *)(xc + 2 * (i + 16 * k))),
                                                         _mm256_loadu_si256((const __m256i *)(yc + 2 * (i + 16 * k)))), one);
          h[k] = _mm256_add_epi64(h[k], _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(r)),
                                                         _mm256_cvtepi32_epi64(_mm256_extracti128_si256(r, 1))));
        }
      extra = (uint64_t)(i / 2);
    } else {
      /* u16 (widened), i32, u32 as 32-bit lanes: the even lanes' products in 64 bits
       * (vpmuldq / vpmuludq), then the odd lanes' */
      const int sgn = dt == TALLY_I32;
      for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 4; k++) {
          __m256i u, v;
          if (dt == TALLY_U16) {
            u = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(xc + 2 * (i + 8 * k))));
            v = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(yc + 2 * (i + 8 * k))));
          } else {
            u = _mm256_loadu_si256((const __m256i *)(xc + 4 * (i + 8 * k)));
            v = _mm256_loadu_si256((const __m256i *)(yc + 4 * (i + 8 * k)));
          }
          __m256i uo = _mm256_srli_epi64(u, 32), vo = _mm256_srli_epi64(v, 32);
          __m256i pe = sgn ? _mm256_mul_epi32(u, v) : _mm256_mul_epu32(u, v);
          __m256i po = sgn ? _mm256_mul_epi32(uo, vo) : _mm256_mul_epu32(uo, vo);
          h[k] = _mm256_add_epi64(h[k], _mm256_add_epi64(pe, po));
        }
    }
    uint64_t l[4];
    _mm256_storeu_si256((__m256i *)l, _mm256_add_epi64(_mm256_add_epi64(h[0], h[1]), _mm256_add_epi64(h[2], h[3])));
    a[0][0] = (((l[0] + l[1]) + l[2]) + l[3]) + extra;
  }
  if (sx == 1 && sy2 == 1 && dt == TALLY_BOOL) /* a product of bools: both nonzero */
    a[0][0] = (uint64_t)dot_bool_avx2(x, yy, n, &i);
#endif
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; k++) {
      vul u = (vul)load_vl(dt, x, i + 8 * k, sx);
      a[k] += u * (sq ? u : (vul)load_vl(dt, yy, i + 8 * k, sy2));
    }
  for (; i < n; i++) {
    uint64_t u = (uint64_t)rd_l(dt, x, i * sx);
    a[(i & 31) >> 3][i & 7] += u * (sq ? u : (uint64_t)rd_l(dt, yy, i * sy2));
  }
  vul t = (a[0] + a[1]) + (a[2] + a[3]);
  uint64_t total = 0;
  for (int l = 0; l < 8; l++) total += t[l];
  return total;
}

AI void dot_int(int dt, int sq, KARGS) {
  tally__part loc;
  tally__part_init(&loc, TALLY__FAM_DOT, 0);
  loc.wide = dot_int_total(dt, sq, x, y, sx, sy, n);
  tally__part_merge(acc, &loc, TALLY__FAM_DOT);
  (void)idx0, (void)kp;
}

/* NORM2 of bool and 8/16-bit integers: squares below 2^32 summed exactly in integers (the
 * vector code of SUMSQ, which takes chunks of at most TALLY__CHUNK elements), then once to
 * f64, exact (below 2^48). dot_float's f64 lanes summed the same integers exactly too, so
 * the part is the same, bit for bit, at SUMSQ's speed (the f64 lanes: 7-21 GB/s on the
 * H200's host, 16 threads, 2026-11-30; the whole NORM2 at 0.12-0.38 x its pinned copy
 * where SUMSQ read 1.27-1.95; now 1.6-2.7). */
AI void norm2_small_int(int dt, KARGS) {
  tally__part loc;
  tally__part_init(&loc, TALLY__FAM_DOT, 0);
  loc.hi = (double)dot_int_total(dt, 1, x, x, sx, sx, n);
  tally__part_merge(acc, &loc, TALLY__FAM_DOT);
  (void)y, (void)sy, (void)idx0, (void)kp;
}

/* kp->exact here means "integers as doubles" (NORM2 of integers). */
AI void k_dot(int dt, KARGS) {
  int sq = kp->square;
  if (!IS_FLOAT(dt) && !kp->exact) {
    if (sq) dot_int(dt, 1, acc, x, y, sx, sy, n, idx0, kp);
    else dot_int(dt, 0, acc, x, y, sx, sy, n, idx0, kp);
    return;
  }
  if (!IS_FLOAT(dt) && sq && DT_SIZE(dt) <= 2 && n <= TALLY__CHUNK) {
    norm2_small_int(dt, acc, x, y, sx, sy, n, idx0, kp);
    return;
  }
  int fast = kp->fast && IS_FLOAT(dt), ign = kp->ignore_nan && IS_FLOAT(dt);
#define DOT_(f, g, q) dot_float(dt, f, g, q, acc, x, y, sx, sy, n, idx0, kp)
  if (sq) {
    if (fast) { if (ign) DOT_(1, 1, 1); else DOT_(1, 0, 1); }
    else { if (ign) DOT_(0, 1, 1); else DOT_(0, 0, 1); }
  } else {
    if (fast) { if (ign) DOT_(1, 1, 0); else DOT_(1, 0, 0); }
    else { if (ign) DOT_(0, 1, 0); else DOT_(0, 0, 0); }
  }
#undef DOT_
}

/* ------------------------------------------------------------ MIN, MAX, MINMAX */

#if TALLY_AVX2_HALVES
/* MIN/MAX keys of contiguous 4- and 8-byte elements in 256-bit registers (AVX2). GCC keeps
 * the generic 64-byte lane vectors in memory without AVX-512 (measured on an AMD EPYC,
 * 2026-11-25: MAX at 0.05-0.11 x the read probe). Minima and maxima are exact, so the
 * lanes they are kept in change no result. Returns the elements done (a multiple of 32
 * or 16); the extremes are in *kmin, *kmax (untouched when none). */
AI int64_t minmax_avx2_32(int dt, int ign, const void *xv, int64_t n, int32_t *kmin, int32_t *kmax) {
  const int32_t *x = (const int32_t *)xv;
  const __m256i top = _mm256_set1_epi32(INT32_MAX), bot = _mm256_set1_epi32(INT32_MIN);
  const __m256i pinf = _mm256_set1_epi32(0x7f800000), ninf = _mm256_set1_epi32((int32_t)0x807fffff);
  __m256i mn[4] = {top, top, top, top}, mx[4] = {bot, bot, bot, bot};
  int64_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; k++) {
      __m256i b = _mm256_loadu_si256((const __m256i *)(x + i + 8 * k)), key = b;
      if (dt == TALLY_F32) key = _mm256_xor_si256(b, _mm256_and_si256(_mm256_srai_epi32(b, 31), top));
      else if (dt == TALLY_U32) key = _mm256_xor_si256(b, bot);
      __m256i lo = key, hi = key;
      if (ign && dt == TALLY_F32) { /* NaN keys (beyond ±Inf's) become the identities */
        __m256i nan = _mm256_or_si256(_mm256_cmpgt_epi32(key, pinf), _mm256_cmpgt_epi32(ninf, key));
        lo = _mm256_blendv_epi8(key, top, nan);
        hi = _mm256_blendv_epi8(key, bot, nan);
      }
      mn[k] = _mm256_min_epi32(mn[k], lo);
      mx[k] = _mm256_max_epi32(mx[k], hi);
    }
  int32_t a[8], b[8];
  _mm256_storeu_si256((__m256i *)a, _mm256_min_epi32(_mm256_min_epi32(mn[0], mn[1]), _mm256_min_epi32(mn[2], mn[3])));
  _mm256_storeu_si256((__m256i *)b, _mm256_max_epi32(_mm256_max_epi32(mx[0], mx[1]), _mm256_max_epi32(mx[2], mx[3])));
  for (int l = 0; l < 8; l++) {
    if (a[l] < *kmin) *kmin = a[l];
    if (b[l] > *kmax) *kmax = b[l];
  }
  return i;
}

AI __m256i min64(__m256i a, __m256i b) { return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b)); }
AI __m256i max64(__m256i a, __m256i b) { return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(b, a)); }

AI int64_t minmax_avx2_64(int dt, int ign, const void *xv, int64_t n, int64_t *kmin, int64_t *kmax) {
  const int64_t *x = (const int64_t *)xv;
  const __m256i top = _mm256_set1_epi64x(INT64_MAX), bot = _mm256_set1_epi64x(INT64_MIN);
  const __m256i pinf = _mm256_set1_epi64x(0x7ff0000000000000), ninf = _mm256_set1_epi64x((int64_t)0x800fffffffffffff);
  __m256i mn[4] = {top, top, top, top}, mx[4] = {bot, bot, bot, bot};
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    for (int k = 0; k < 4; k++) {
      __m256i b = _mm256_loadu_si256((const __m256i *)(x + i + 4 * k)), key = b;
      if (dt == TALLY_F64) /* b ^ ((b >> 63) & INT64_MAX): AVX2 has no 64-bit arithmetic shift */
        key = _mm256_xor_si256(b, _mm256_and_si256(_mm256_cmpgt_epi64(_mm256_setzero_si256(), b), top));
      else if (dt == TALLY_U64) key = _mm256_xor_si256(b, bot);
      __m256i lo = key, hi = key;
      if (ign && dt == TALLY_F64) {
        __m256i nan = _mm256_or_si256(_mm256_cmpgt_epi64(key, pinf), _mm256_cmpgt_epi64(ninf, key));
        lo = _mm256_blendv_epi8(key, top, nan);
        hi = _mm256_blendv_epi8(key, bot, nan);
      }
      mn[k] = min64(mn[k], lo);
      mx[k] = max64(mx[k], hi);
    }
  int64_t a[4], b[4];
  _mm256_storeu_si256((__m256i *)a, min64(min64(mn[0], mn[1]), min64(mn[2], mn[3])));
  _mm256_storeu_si256((__m256i *)b, max64(max64(mx[0], mx[1]), max64(mx[2], mx[3])));
  for (int l = 0; l < 4; l++) {
    if (a[l] < *kmin) *kmin = a[l];
    if (b[l] > *kmax) *kmax = b[l];
  }
  return i;
}

/* 1- and 2-byte integers and bool: their keys are their values (bool: 0 or 1), compared
 * in their own width (measured at 0.01 x the read probe through the generic lanes). A
 * bool's extremes are those of its bytes, unsigned, then made 0 or 1. */
AI __m256i min_small(int dt, __m256i a, __m256i b) {
  switch (dt) {
  case TALLY_I8: return _mm256_min_epi8(a, b);
  case TALLY_I16: return _mm256_min_epi16(a, b);
  case TALLY_U16: return _mm256_min_epu16(a, b);
  default: return _mm256_min_epu8(a, b); /* u8, bool */
  }
}
AI __m256i max_small(int dt, __m256i a, __m256i b) {
  switch (dt) {
  case TALLY_I8: return _mm256_max_epi8(a, b);
  case TALLY_I16: return _mm256_max_epi16(a, b);
  case TALLY_U16: return _mm256_max_epu16(a, b);
  default: return _mm256_max_epu8(a, b);
  }
}

AI int64_t minmax_avx2_small(int dt, const void *x, int64_t n, int32_t *kmin, int32_t *kmax) {
  const int sz = DT_SIZE(dt);
  const int64_t per = 128 / sz; /* elements in 4 registers */
  const __m256i top = sz == 1 ? _mm256_set1_epi8(dt == TALLY_I8 ? 127 : -1)
                              : _mm256_set1_epi16(dt == TALLY_I16 ? 32767 : -1);
  const __m256i bot = dt == TALLY_I8    ? _mm256_set1_epi8(-128)
                      : dt == TALLY_I16 ? _mm256_set1_epi16(-32768)
                                        : _mm256_setzero_si256();
  __m256i mn[4] = {top, top, top, top}, mx[4] = {bot, bot, bot, bot};
  int64_t i = 0;
  for (; i + per <= n; i += per)
    for (int k = 0; k < 4; k++) {
      __m256i v = _mm256_loadu_si256((const __m256i *)((const char *)x + i * sz + 32 * k));
      mn[k] = min_small(dt, mn[k], v);
      mx[k] = max_small(dt, mx[k], v);
    }
  if (i == 0) return 0; /* none done: *kmin, *kmax untouched (the identities are real keys) */
  unsigned char a[32], b[32];
  _mm256_storeu_si256((__m256i *)a, min_small(dt, min_small(dt, mn[0], mn[1]), min_small(dt, mn[2], mn[3])));
  _mm256_storeu_si256((__m256i *)b, max_small(dt, max_small(dt, mx[0], mx[1]), max_small(dt, mx[2], mx[3])));
  for (int l = 0; l < 32 / sz; l++) {
    int32_t lo = (int32_t)rd_l(dt, a, l), hi = (int32_t)rd_l(dt, b, l);
    if (lo < *kmin) *kmin = lo;
    if (hi > *kmax) *kmax = hi;
  }
  return i;
}

#endif

#if TALLY_AVX2_EXACT
/* f16 and bf16 by keys of their own 16 bits, h ^ ((h >> 15) & 0x7fff) as a float's key
 * of its 32: the conversion to f32 is exact and monotone, so these keys order as the f32
 * keys do (measured at 0.02-0.03 x the read probe converted to f32 in the generic lanes).
 * The extremes go back to f32 keys at the end; under NAN_IGNORE the 16-bit identities
 * (NaN keys) left there become the 32-bit ones. */
AI int32_t key16_to_key32(int dt, int16_t k) {
  uint16_t h = (uint16_t)(k ^ ((k >> 15) & 0x7fff));
  return (int32_t)rd_key(dt, &h, 0);
}
AI int64_t minmax_avx2_half(int dt, int ign, const void *x, int64_t n, int32_t *kmin, int32_t *kmax) {
  const __m256i top = _mm256_set1_epi16(INT16_MAX), bot = _mm256_set1_epi16(INT16_MIN);
  const __m256i pinf = _mm256_set1_epi16(dt == TALLY_F16 ? 0x7c00 : 0x7f80);
  const __m256i ninf = _mm256_set1_epi16((short)(dt == TALLY_F16 ? 0x83ff : 0x807f));
  __m256i mn[4] = {top, top, top, top}, mx[4] = {bot, bot, bot, bot};
  int64_t i = 0;
  for (; i + 64 <= n; i += 64)
    for (int k = 0; k < 4; k++) {
      __m256i b = _mm256_loadu_si256((const __m256i *)((const int16_t *)x + i + 16 * k));
      __m256i key = _mm256_xor_si256(b, _mm256_and_si256(_mm256_srai_epi16(b, 15), top)), lo = key, hi = key;
      if (ign) {
        __m256i nan = _mm256_or_si256(_mm256_cmpgt_epi16(key, pinf), _mm256_cmpgt_epi16(ninf, key));
        lo = _mm256_blendv_epi8(key, top, nan);
        hi = _mm256_blendv_epi8(key, bot, nan);
      }
      mn[k] = _mm256_min_epi16(mn[k], lo);
      mx[k] = _mm256_max_epi16(mx[k], hi);
    }
  if (i == 0) return 0;
  int16_t a[16], b[16], lo = INT16_MAX, hi = INT16_MIN;
  _mm256_storeu_si256((__m256i *)a, _mm256_min_epi16(_mm256_min_epi16(mn[0], mn[1]), _mm256_min_epi16(mn[2], mn[3])));
  _mm256_storeu_si256((__m256i *)b, _mm256_max_epi16(_mm256_max_epi16(mx[0], mx[1]), _mm256_max_epi16(mx[2], mx[3])));
  for (int l = 0; l < 16; l++) {
    if (a[l] < lo) lo = a[l];
    if (b[l] > hi) hi = b[l];
  }
  int32_t klo = ign && lo == INT16_MAX ? INT32_MAX : key16_to_key32(dt, lo);
  int32_t khi = ign && hi == INT16_MIN ? INT32_MIN : key16_to_key32(dt, hi);
  if (klo < *kmin) *kmin = klo;
  if (khi > *kmax) *kmax = khi;
  return i;
}

#endif

#if TALLY_AVX2_HALVES
AI int64_t minmax_avx2_k32(int dt, int ign, const void *x, int64_t n, int32_t *kmin, int32_t *kmax) {
  if (dt == TALLY_F16 || dt == TALLY_BF16) return minmax_avx2_half(dt, ign, x, n, kmin, kmax);
  if (DT_SIZE(dt) == 4) return minmax_avx2_32(dt, ign, x, n, kmin, kmax);
  return minmax_avx2_small(dt, x, n, kmin, kmax);
}
#elif TALLY_AVX2_EXACT
/* AVX-512: the generic lanes keep up with the loads but for f16 and bf16, whose keys they
 * build in 32 bits (see TALLY_AVX2_EXACT); 0 (nothing done) for the rest. */
AI int64_t minmax_avx2_k32(int dt, int ign, const void *x, int64_t n, int32_t *kmin, int32_t *kmax) {
  if (dt == TALLY_F16 || dt == TALLY_BF16) return minmax_avx2_half(dt, ign, x, n, kmin, kmax);
  return 0;
}
AI int64_t minmax_avx2_64(int dt, int ign, const void *x, int64_t n, int64_t *kmin, int64_t *kmax) {
  (void)dt, (void)ign, (void)x, (void)n, (void)kmin, (void)kmax;
  return 0;
}
#endif

/* Min and max of sort keys in 32 lanes; a NaN shows as a key outside ±Inf's. With NaN
 * ignored, NaN keys are replaced by the identities before the compare. */
AI void minmax_body(int dt, int ign, KARGS) {
  tally__part loc;
  tally__part_init(&loc, TALLY__FAM_MINMAX, 0);
  int64_t i = 0;
  if (KEY32(dt)) {
    vi mn[2], mx[2];
    mn[0] = mn[1] = (vi){0} + INT32_MAX;
    mx[0] = mx[1] = (vi){0} + INT32_MIN;
#if TALLY_AVX2_EXACT
    if (sx == 1) {
      int32_t kmin = INT32_MAX, kmax = INT32_MIN;
      i = minmax_avx2_k32(dt, ign, x, n, &kmin, &kmax);
      mn[0][0] = kmin;
      mx[0][0] = kmax;
    }
#endif
    for (; i + 32 <= n; i += 32)
      for (int k = 0; k < 2; k++) {
        vi key = load_key32(dt, x, i + 16 * k, sx), kmin = key, kmax = key;
        if (ign) {
          vi nanm = KEYS_NAN32(dt, key);
          kmin = (key & ~nanm) | (nanm & INT32_MAX);
          kmax = (key & ~nanm) | (nanm & INT32_MIN);
        }
        mn[k] = vmin32(mn[k], kmin);
        mx[k] = vmax32(mx[k], kmax);
      }
    for (; i < n; i++) {
      int32_t key = (int32_t)rd_key(dt, x, i * sx);
      if (ign && IS_FLOAT(dt) && (key > 0x7f800000 || key < (int32_t)0x807fffff)) continue;
      int k = (int)(i & 31) >> 4, l = (int)(i & 15);
      if (key < mn[k][l]) mn[k][l] = key;
      if (key > mx[k][l]) mx[k][l] = key;
    }
    for (int k = 0; k < 2; k++)
      for (int l = 0; l < 16; l++) {
        if (mn[k][l] < loc.k0) loc.k0 = mn[k][l];
        if (mx[k][l] > loc.k1) loc.k1 = mx[k][l];
      }
    /* Under NAN_IGNORE the identities are the NaN keys INT32_MAX/MIN: map them back to
     * "nothing seen" so a merge with a real value ignores them. */
    if (ign && IS_FLOAT(dt)) {
      if (loc.k0 == INT32_MAX) loc.k0 = INT64_MAX;
      if (loc.k1 == INT32_MIN) loc.k1 = INT64_MIN;
    } else if (IS_FLOAT(dt) && n > 0) {
      loc.nan = loc.k1 > TALLY__KEY32_PINF || loc.k0 < TALLY__KEY32_NINF;
    }
    if (!IS_FLOAT(dt) && n == 0) { loc.k0 = INT64_MAX; loc.k1 = INT64_MIN; }
  } else {
    vl mn[2], mx[2];
    mn[0] = mn[1] = (vl){0} + INT64_MAX;
    mx[0] = mx[1] = (vl){0} + INT64_MIN;
#if TALLY_AVX2_HALVES
    if (sx == 1) {
      int64_t kmin = INT64_MAX, kmax = INT64_MIN;
      i = minmax_avx2_64(dt, ign, x, n, &kmin, &kmax);
      mn[0][0] = kmin;
      mx[0][0] = kmax;
    }
#endif
    for (; i + 16 <= n; i += 16)
      for (int k = 0; k < 2; k++) {
        vl key = load_key64(dt, x, i + 8 * k, sx), kmin = key, kmax = key;
        if (ign) {
          vl nanm = KEYS_NAN64(dt, key);
          kmin = (key & ~nanm) | (nanm & INT64_MAX);
          kmax = (key & ~nanm) | (nanm & INT64_MIN);
        }
        mn[k] = vmin64(mn[k], kmin);
        mx[k] = vmax64(mx[k], kmax);
      }
    for (; i < n; i++) {
      int64_t key = rd_key(dt, x, i * sx);
      if (ign && IS_FLOAT(dt) && (key > TALLY__KEY64_PINF || key < TALLY__KEY64_NINF)) continue;
      int k = (int)(i & 15) >> 3, l = (int)(i & 7);
      if (key < mn[k][l]) mn[k][l] = key;
      if (key > mx[k][l]) mx[k][l] = key;
    }
    for (int k = 0; k < 2; k++)
      for (int l = 0; l < 8; l++) {
        if (mn[k][l] < loc.k0) loc.k0 = mn[k][l];
        if (mx[k][l] > loc.k1) loc.k1 = mx[k][l];
      }
    if (IS_FLOAT(dt) && !ign && n > 0)
      loc.nan = loc.k1 > TALLY__KEY64_PINF || loc.k0 < TALLY__KEY64_NINF;
  }
  tally__part_merge(acc, &loc, TALLY__FAM_MINMAX);
}

AI void k_minmax(int dt, KARGS) {
  if (kp->ignore_nan && IS_FLOAT(dt)) minmax_body(dt, 1, acc, x, y, sx, sy, n, idx0, kp);
  else minmax_body(dt, 0, acc, x, y, sx, sy, n, idx0, kp);
}

/* ------------------------------------------------------------ ARGMIN, ARGMAX */

/* Block by block (small enough for L1): pass 1 finds the block's extreme key as MIN/MAX
 * does, at streaming speed; only when that beats the best so far does pass 2 look for its
 * first position in the block, from L1. On most data pass 2 runs a handful of times per
 * chunk. A NaN under NAN_PROPAGATE ends the run at the block's first NaN: nothing after
 * it can win. Keys order −0.0 below +0.0, so equal keys are equal values. */
#define ARG_BLOCK 4096

AI int first_eq32(vi a, int32_t t) {
#if defined(__AVX512F__)
  unsigned m = _mm512_cmpeq_epi32_mask((__m512i)a, _mm512_set1_epi32(t));
  return m ? __builtin_ctz(m) : -1;
#else
  for (int l = 0; l < 16; l++) if (a[l] == t) return l;
  return -1;
#endif
}
AI int first_eq64(vl a, int64_t t) {
#if defined(__AVX512F__)
  unsigned m = _mm512_cmpeq_epi64_mask((__m512i)a, _mm512_set1_epi64(t));
  return m ? __builtin_ctz(m) : -1;
#else
  for (int l = 0; l < 8; l++) if (a[l] == t) return l;
  return -1;
#endif
}

#if TALLY_AVX2_EXACT
/* Pass 1 in 256-bit registers (minmax_avx2_*, the same keys and NaN rule) where the block
 * is contiguous: the generic lane vectors live in memory without AVX-512 (ARGMAX f32
 * measured at 0.06 x the read probe on an AMD EPYC, u8 at 0.01); with AVX-512, for f16
 * and bf16 only (minmax_avx2_k32 does nothing for the rest there). */
#define ARG_PASS1_AVX2(AVX2F, TK)                                                       \
  if (sx == 1) {                                                                        \
    TK lo = ismax ? other : ident, hi = ismax ? ident : other; /* nothing seen yet */   \
    i = AVX2F(dt, ign, (const char *)x + b * DT_SIZE(dt), m, &lo, &hi);                 \
    ext[0][0] = ismax ? hi : lo;                                                        \
    oth[0][0] = ismax ? lo : hi;                                                        \
  }
#else
#define ARG_PASS1_AVX2(AVX2F, TK)
#endif

#if TALLY_AVX2_HALVES
/* Pass 2 on contiguous elements: the first of the m elements at p whose bits are those of
 * key e (keys map one-to-one onto bits), 32 bytes at a time; -1 if none there. *j: the
 * elements looked at. Not for bool (any nonzero byte is key 1); e not a NaN's. */
AI int64_t first_key_avx2(int dt, const void *p, int64_t m, int64_t e, int64_t *j) {
  const int sz = DT_SIZE(dt);
  int64_t raw = e; /* the float and unsigned key maps are their own inverses */
  if (dt == TALLY_F32 || dt == TALLY_F16 || dt == TALLY_BF16) raw = (int32_t)e ^ (((int32_t)e >> 31) & INT32_MAX);
  if (dt == TALLY_F16) { float f; int32_t b = (int32_t)raw; memcpy(&f, &b, 4); raw = (int16_t)_cvtss_sh(f, 0); } /* exact: e is an f16's */
  else if (dt == TALLY_BF16) raw = (int32_t)raw >> 16;
  else if (dt == TALLY_U32) raw = (int32_t)e ^ INT32_MIN;
  else if (dt == TALLY_F64) raw = e ^ ((e >> 63) & INT64_MAX);
  else if (dt == TALLY_U64) raw = e ^ INT64_MIN;
  const __m256i t = sz == 1   ? _mm256_set1_epi8((char)raw)
                    : sz == 2 ? _mm256_set1_epi16((short)raw)
                    : sz == 4 ? _mm256_set1_epi32((int)raw)
                              : _mm256_set1_epi64x(raw);
  for (*j = 0; *j + 32 / sz <= m; *j += 32 / sz) {
    __m256i v = _mm256_loadu_si256((const __m256i *)((const char *)p + *j * sz));
    unsigned bits;
    switch (sz) {
    case 1: bits = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, t)); break;
    case 2: bits = (unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi16(v, t)); break; /* 2 bits each */
    case 4: bits = (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(v, t))); break;
    default: bits = (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(v, t))); break;
    }
    if (bits) return *j + __builtin_ctz(bits) / (sz == 2 ? 2 : 1);
  }
  return -1;
}
#define ARG_PASS2_AVX2                                                                  \
  if (sx == 1 && dt != TALLY_BOOL)                                                      \
    at = first_key_avx2(dt, (const char *)x + b * DT_SIZE(dt), m, e, &j);
#else
#define ARG_PASS2_AVX2
#endif

#define ARG_BODY(VK, LANES, LOADK, NANK, VMIN, VMAX, FIRST_EQ, KMAX, KMIN, TK, PINF, NINF, AVX2F) \
  do {                                                                                  \
    const TK ident = ismax ? KMIN : KMAX, other = ismax ? KMAX : KMIN;                  \
    for (int64_t b = 0; b < n; b += ARG_BLOCK) {                                        \
      int64_t m = n - b < ARG_BLOCK ? n - b : ARG_BLOCK, i = 0;                         \
      /* Pass 1: the block's extreme key; under NAN_PROPAGATE also the opposite         \
       * extreme, since NaN keys lie beyond both ends. */                               \
      VK ext[4], oth[4];                                                                \
      for (int k = 0; k < 4; k++) { ext[k] = (VK){0} + ident; oth[k] = (VK){0} + other; } \
      ARG_PASS1_AVX2(AVX2F, TK)                                                         \
      for (; i + 4 * LANES <= m; i += 4 * LANES)                                        \
        for (int k = 0; k < 4; k++) {                                                   \
          VK key = LOADK(dt, x, b + i + LANES * k, sx);                                 \
          if (ign && IS_FLOAT(dt)) { VK nm = NANK(dt, key); key = (key & ~nm) | (nm & ident); } \
          ext[k] = ismax ? VMAX(ext[k], key) : VMIN(ext[k], key);                       \
          if (!ign && IS_FLOAT(dt)) oth[k] = ismax ? VMIN(oth[k], key) : VMAX(oth[k], key); \
        }                                                                               \
      TK e = ident, o = other;                                                          \
      for (int k = 0; k < 4; k++)                                                       \
        for (int l = 0; l < LANES; l++) {                                               \
          if (ismax ? ext[k][l] > e : ext[k][l] < e) e = ext[k][l];                     \
          if (ismax ? oth[k][l] < o : oth[k][l] > o) o = oth[k][l];                     \
        }                                                                               \
      int nan = 0;                                                                      \
      if (!ign && IS_FLOAT(dt) && i > 0) nan = e > PINF || e < NINF || o > PINF || o < NINF; \
      for (; i < m; i++) {                                                              \
        TK key = (TK)rd_key(dt, x, (b + i) * sx);                                       \
        if (IS_FLOAT(dt) && (key > PINF || key < NINF)) { nan |= !ign; continue; }      \
        if (ismax ? key > e : key < e) e = key;                                         \
      }                                                                                 \
      if (nan) { /* the block's first NaN wins, and ends the run */                     \
        for (int64_t j = 0; j < m; j++) {                                               \
          TK key = (TK)rd_key(dt, x, (b + j) * sx);                                     \
          if (key > PINF || key < NINF) { loc.k0 = ismax ? KMAX : KMIN; loc.idx = b + j; break; } \
        }                                                                               \
        break;                                                                          \
      }                                                                                 \
      /* A float key equal to the identity is a NaN's: the block held only NaNs. */     \
      if (ign && IS_FLOAT(dt) && e == ident) continue;                                  \
      if (loc.idx >= 0 && !(ismax ? e > loc.k0 : e < loc.k0)) continue;                 \
      /* Pass 2, from L1: the first position of e in the block. */                      \
      int64_t j = 0, at = -1;                                                           \
      ARG_PASS2_AVX2                                                                    \
      if (sx == 1)                                                                      \
        for (; j + LANES <= m && at < 0; j += LANES) {                                  \
          int l = FIRST_EQ(LOADK(dt, x, b + j, 1), e);                                  \
          if (l >= 0) at = j + l;                                                       \
        }                                                                               \
      for (; j < m && at < 0; j++)                                                      \
        if ((TK)rd_key(dt, x, (b + j) * sx) == e) at = j;                               \
      loc.k0 = e;                                                                       \
      loc.idx = b + at;                                                                 \
    }                                                                                   \
  } while (0)

AI void arg_body(int dt, int ismax, int ign, KARGS) {
  tally__part loc;
  tally__part_init(&loc, ismax ? TALLY__FAM_ARGMAX : TALLY__FAM_ARGMIN, 0);
  if (KEY32(dt)) {
    ARG_BODY(vi, 16, load_key32, KEYS_NAN32, vmin32, vmax32, first_eq32, INT32_MAX, INT32_MIN,
             int32_t, (int32_t)0x7f800000, (int32_t)0x807fffff, minmax_avx2_k32);
  } else {
    ARG_BODY(vl, 8, load_key64, KEYS_NAN64, vmin64, vmax64, first_eq64, INT64_MAX, INT64_MIN,
             int64_t, TALLY__KEY64_PINF, TALLY__KEY64_NINF, minmax_avx2_64);
  }
  if (loc.idx >= 0) loc.idx += idx0;
  tally__part_merge(acc, &loc, ismax ? TALLY__FAM_ARGMAX : TALLY__FAM_ARGMIN);
}

AI void k_argmin(int dt, KARGS) {
  if (kp->ignore_nan) arg_body(dt, 0, 1, acc, x, y, sx, sy, n, idx0, kp);
  else arg_body(dt, 0, 0, acc, x, y, sx, sy, n, idx0, kp);
}
AI void k_argmax(int dt, KARGS) {
  if (kp->ignore_nan) arg_body(dt, 1, 1, acc, x, y, sx, sy, n, idx0, kp);
  else arg_body(dt, 1, 0, acc, x, y, sx, sy, n, idx0, kp);
}

/* ------------------------------------------------------------ VAR, STD */

/* One pass, in blocks of VAR_BLOCK elements, each lane keeping (count, mean, M2) relative
 * to K, the slice's first element (kp->shift). Within a block, a lane sums d = x − s and
 * d² with s the lane's running mean so far (K for its first block): the block's M2 is
 * Σd² − (Σd)²/n, which cancels only as far as the block's mean is from s, i.e. by about
 * one block's spread, and a block whose mean jumps far from s is one whose jump dominates
 * the total M2 anyway. Blocks merge into the lane by Chan's rule; lanes merge at the end
 * in a fixed order. Working relative to K keeps those merges accurate when the mean is far
 * from zero. A single pass keeps the loads streaming, as in SUM. Elements past the last
 * full group of 32 join their lanes by Welford's update. */
#define VAR_BLOCK 2048
AI void chan_merge_vd(vd *n, vd *m, vd *m2, vd nb, vd mb, vd m2b) {
  vd nn = *n + nb;
  vl any = nn > 0.0;
  vd safe = (vd)(((vl)nn & any) | ((vl)((vd){0} + 1.0) & ~any));
  vd delta = mb - *m;
  vd mean = *m + delta * (nb / safe);
  vd M2 = *m2 + m2b + delta * delta * (*n * nb / safe);
  *m = (vd)(((vl)mean & any) | ((vl)*m & ~any));
  *m2 = (vd)(((vl)M2 & any) | ((vl)*m2 & ~any));
  *n = nn;
}

#if TALLY_AVX2_HALVES
#define AVX2_PD(dt) ((dt) != TALLY_I64 && (dt) != TALLY_U64)

/* VAR's full blocks of contiguous input (the first `full` elements, a multiple of 32) in
 * 256-bit halves: half j holds lanes 0-3 or 4-7 of var_body's lane vector j / 2 (elements
 * 4j..4j+3 of each 32), with the same values and operations in the same order as
 * var_body's generic loop, so the same bits; each ends as (count, mean, M2) in ln, lm,
 * lM2. With NaNs ignored (ign, floats), each lane counts its non-NaN elements in doubles
 * (adding 1.0 or +0.0, as var_body does; see below), a NaN's d becomes +0.0, and the
 * block merge is var_body's with its masks (a lane's count may be 0). */
AI void var_blocks_halves(int dt, int ign, const void *x, int64_t full, double K, vd ln[4], vd lm[4], vd lM2[4]) {
  const __m256d vK = _mm256_set1_pd(K), zero = _mm256_setzero_pd(), sign = _mm256_set1_pd(-0.0);
  const __m256d one = _mm256_set1_pd(1.0);
  __m256d n[8], mu[8], M2[8], sh[8], shm[8], she[8];
  for (int j = 0; j < 8; j++) {
    n[j] = mu[j] = M2[j] = shm[j] = she[j] = zero;
    sh[j] = vK;
  }
  for (int64_t b = 0; b < full; b += VAR_BLOCK) {
    const int64_t m = full - b < VAR_BLOCK ? full - b : VAR_BLOCK;
    const char *xb = (const char *)x + b * DT_SIZE(dt);
    __m256d s1[8], s2[8], c[8];
    /* Two passes over the block (the second from L1), four halves each, so that the sums
     * and shifts fit in the 16 registers: a spilled sum costs a store and a load at
     * every add. Each lane still adds in index order. */
    for (int g = 0; g < 8; g += 4) {
      __m256d h1[4], h2[4], hs[4];
      for (int j = 0; j < 4; j++) {
        h1[j] = h2[j] = zero;
        hs[j] = sh[g + j];
      }
      for (int64_t i = 0; i < m; i += 32)
        for (int j = 0; j < 4; j++) {
          __m256d d = _mm256_sub_pd(load4_pd(dt, xb, i + 4 * (g + j)), hs[j]);
          h1[j] = _mm256_add_pd(h1[j], d);
          h2[j] = _mm256_add_pd(h2[j], _mm256_mul_pd(d, d));
        }
      for (int j = 0; j < 4; j++) {
        s1[g + j] = h1[j];
        s2[g + j] = h2[j];
        c[g + j] = _mm256_set1_pd((double)(m / 32));
      }
      /* NaNs ignored: a lane that met no NaN has the sums above (its mask all ones, its
       * count m / 32). A NaN leaves a NaN in its lane's Σd, so a half whose Σd has one
       * (a NaN met, or Inf − Inf) is summed again from L1 the generic way: the count in
       * doubles (1.0 or +0.0 added), a NaN's d made +0.0. */
      if (ign)
        for (int j = 0; j < 4; j++) {
          if (!_mm256_movemask_pd(_mm256_cmp_pd(h1[j], h1[j], _CMP_UNORD_Q))) continue;
          __m256d a1 = zero, a2 = zero, ac = zero;
          for (int64_t i = 0; i < m; i += 32) {
            __m256d v = load4_pd(dt, xb, i + 4 * (g + j)), d = _mm256_sub_pd(v, hs[j]);
            __m256d ok = _mm256_cmp_pd(v, v, _CMP_ORD_Q);
            ac = _mm256_add_pd(ac, _mm256_and_pd(one, ok));
            d = _mm256_and_pd(d, ok);
            a1 = _mm256_add_pd(a1, d);
            a2 = _mm256_add_pd(a2, _mm256_mul_pd(d, d));
          }
          s1[g + j] = a1;
          s2[g + j] = a2;
          c[g + j] = ac;
        }
    }
    if (ign) { /* var_body's block merge and next shift, masks and all */
      for (int j = 0; j < 8; j++) {
        const __m256d cnt = c[j];
        __m256d any = _mm256_cmp_pd(cnt, zero, _CMP_GT_OQ);
        __m256d q = _mm256_and_pd(_mm256_div_pd(s1[j], cnt), any);
        __m256d bM2 = _mm256_sub_pd(s2[j], _mm256_mul_pd(s1[j], q));
        __m256d bmean = _mm256_add_pd(shm[j], _mm256_sub_pd(q, she[j]));
        /* chan_merge_vd */
        __m256d nn = _mm256_add_pd(n[j], cnt);
        __m256d any2 = _mm256_cmp_pd(nn, zero, _CMP_GT_OQ);
        __m256d safe = _mm256_or_pd(_mm256_and_pd(nn, any2), _mm256_andnot_pd(any2, one));
        __m256d delta = _mm256_sub_pd(bmean, mu[j]);
        __m256d mean = _mm256_add_pd(mu[j], _mm256_mul_pd(delta, _mm256_div_pd(cnt, safe)));
        __m256d nM2 = _mm256_add_pd(_mm256_add_pd(M2[j], bM2),
                                    _mm256_mul_pd(_mm256_mul_pd(delta, delta), _mm256_div_pd(_mm256_mul_pd(n[j], cnt), safe)));
        mu[j] = _mm256_or_pd(_mm256_and_pd(mean, any2), _mm256_andnot_pd(any2, mu[j]));
        M2[j] = _mm256_or_pd(_mm256_and_pd(nM2, any2), _mm256_andnot_pd(any2, M2[j]));
        n[j] = nn;
        /* the next shift: K + mean with its rounding error, where the lane has seen any */
        __m256d t = _mm256_add_pd(vK, mu[j]), z = _mm256_sub_pd(t, vK);
        __m256d e = _mm256_add_pd(_mm256_sub_pd(vK, _mm256_sub_pd(t, z)), _mm256_sub_pd(mu[j], z));
        __m256d has = _mm256_cmp_pd(n[j], zero, _CMP_GT_OQ);
        sh[j] = _mm256_or_pd(_mm256_and_pd(t, has), _mm256_andnot_pd(has, vK));
        shm[j] = _mm256_and_pd(mu[j], has);
        she[j] = _mm256_and_pd(_mm256_xor_pd(e, sign), has);
      }
      continue;
    }
    /* var_body's block merge with every count > 0 (its masks are then all ones). */
    const __m256d cnt = _mm256_set1_pd((double)(m / 32));
    for (int j = 0; j < 8; j++) {
      __m256d q = _mm256_div_pd(s1[j], cnt);
      __m256d bM2 = _mm256_sub_pd(s2[j], _mm256_mul_pd(s1[j], q));
      __m256d bmean = _mm256_add_pd(shm[j], _mm256_sub_pd(q, she[j]));
      /* chan_merge_vd */
      __m256d nn = _mm256_add_pd(n[j], cnt);
      __m256d delta = _mm256_sub_pd(bmean, mu[j]);
      __m256d mean = _mm256_add_pd(mu[j], _mm256_mul_pd(delta, _mm256_div_pd(cnt, nn)));
      M2[j] = _mm256_add_pd(_mm256_add_pd(M2[j], bM2),
                            _mm256_mul_pd(_mm256_mul_pd(delta, delta), _mm256_div_pd(_mm256_mul_pd(n[j], cnt), nn)));
      mu[j] = mean;
      n[j] = nn;
      /* the next shift, K + mean with its rounding error (TwoSum) */
      __m256d t = _mm256_add_pd(vK, mean), z = _mm256_sub_pd(t, vK);
      __m256d e = _mm256_add_pd(_mm256_sub_pd(vK, _mm256_sub_pd(t, z)), _mm256_sub_pd(mean, z));
      sh[j] = t;
      shm[j] = mean;
      she[j] = _mm256_xor_pd(e, sign); /* -e, as var_body negates */
    }
  }
  for (int k = 0; k < 4; k++) {
    ln[k] = vd_join(n[2 * k], n[2 * k + 1]);
    lm[k] = vd_join(mu[2 * k], mu[2 * k + 1]);
    lM2[k] = vd_join(M2[2 * k], M2[2 * k + 1]);
  }
}
/* Out of line (one call per chunk): inlined into var_body, or out of line but open to
 * GCC 12's interprocedural constant propagation (-fipa-cp), the block sums were kept on
 * the stack (u8 VAR at 1.2-1.5 GB/s). The block merge is here too: in the generic
 * 64-byte lanes it cost as much as the sums. */
static __attribute__((noipa)) void var_blocks_avx2(int dt, int ign, const void *x, int64_t full, double K, vd ln[4],
                                                   vd lm[4], vd lM2[4]) {
  if (ign) {
    switch (dt) {
    case TALLY_F32: var_blocks_halves(TALLY_F32, 1, x, full, K, ln, lm, lM2); break;
    case TALLY_F16: var_blocks_halves(TALLY_F16, 1, x, full, K, ln, lm, lM2); break;
    case TALLY_BF16: var_blocks_halves(TALLY_BF16, 1, x, full, K, ln, lm, lM2); break;
    default: var_blocks_halves(TALLY_F64, 1, x, full, K, ln, lm, lM2); break;
    }
    return;
  }
  switch (dt) {
  case TALLY_BOOL: var_blocks_halves(TALLY_BOOL, 0, x, full, K, ln, lm, lM2); break;
  case TALLY_I8: var_blocks_halves(TALLY_I8, 0, x, full, K, ln, lm, lM2); break;
  case TALLY_U8: var_blocks_halves(TALLY_U8, 0, x, full, K, ln, lm, lM2); break;
  case TALLY_I16: var_blocks_halves(TALLY_I16, 0, x, full, K, ln, lm, lM2); break;
  case TALLY_U16: var_blocks_halves(TALLY_U16, 0, x, full, K, ln, lm, lM2); break;
  case TALLY_I32: var_blocks_halves(TALLY_I32, 0, x, full, K, ln, lm, lM2); break;
  case TALLY_U32: var_blocks_halves(TALLY_U32, 0, x, full, K, ln, lm, lM2); break;
  case TALLY_F32: var_blocks_halves(TALLY_F32, 0, x, full, K, ln, lm, lM2); break;
  case TALLY_F16: var_blocks_halves(TALLY_F16, 0, x, full, K, ln, lm, lM2); break;
  case TALLY_BF16: var_blocks_halves(TALLY_BF16, 0, x, full, K, ln, lm, lM2); break;
  default: var_blocks_halves(TALLY_F64, 0, x, full, K, ln, lm, lM2); break;
  }
}
#endif

AI void var_body(int dt, int ign, KARGS) {
  tally__part loc;
  tally__part_init(&loc, TALLY__FAM_VAR, 0);
  const double K = kp->shift;
  const vd one = (vd){0} + 1.0, vK = (vd){0} + K;
  vd ln[4], lm[4], lM2[4], sh[4], shm[4], she[4];
  for (int k = 0; k < 4; k++) {
    ln[k] = lm[k] = lM2[k] = (vd){0};
    sh[k] = vK;               /* the shift s of the lane's next block */
    shm[k] = she[k] = (vd){0}; /* s − K = shm − she exactly */
  }
  int64_t full = n & ~(int64_t)31, b0 = 0;
#if TALLY_AVX2_HALVES
  /* The generic 64-byte lane vectors live in memory without AVX-512 (see sum_float):
   * integer VAR measured at 0.01-0.15 x the read probe through them. */
  if (AVX2_PD(dt) && sx == 1) {
    var_blocks_avx2(dt, ign, x, full, K, ln, lm, lM2);
    b0 = full;
  }
#endif
  for (int64_t b = b0; b < full; b += VAR_BLOCK) {
    int64_t m = full - b < VAR_BLOCK ? full - b : VAR_BLOCK;
    vd s1[4] = {0}, s2[4] = {0}, c[4] = {0};
    int64_t i = 0;
    for (; i < m; i += 32)
      for (int k = 0; k < 4; k++) {
        vd v = load_vd(dt, x, b + i + 8 * k, sx), d = v - sh[k];
        if (ign) {
          vl ok = v == v;
          c[k] += (vd)((vl)one & ok);
          d = (vd)((vl)d & ok);
        }
        s1[k] += d;
        s2[k] += d * d;
      }
    for (int k = 0; k < 4; k++) {
      vd cnt = ign ? c[k] : (vd){0} + (double)(m / 32);
      vl any = cnt > 0.0;
      vd q = (vd)((vl)(s1[k] / cnt) & any); /* block mean − s */
      vd bM2 = s2[k] - s1[k] * q;
      vd bmean = shm[k] + (q - she[k]);      /* block mean − K */
      chan_merge_vd(&ln[k], &lm[k], &lM2[k], cnt, bmean, bM2);
      /* Next shift: K + lm, with its rounding error kept (TwoSum) so that s − K is known
       * exactly; lanes that have seen nothing keep K. */
      vd t = vK + lm[k], z = t - vK, e = (vK - (t - z)) + (lm[k] - z);
      vl has = ln[k] > 0.0;
      sh[k] = (vd)(((vl)t & has) | ((vl)vK & ~has));
      shm[k] = (vd)((vl)lm[k] & has);
      she[k] = (vd)((vl)(-e) & has);
    }
  }
  for (int64_t i = full; i < n; i++) {
    double v = rd_d(dt, x, i * sx) - K;
    if (ign && v != v) continue;
    int k = (int)(i & 31) >> 3, l = (int)(i & 7);
    ln[k][l] += 1.0;
    double d = v - lm[k][l];
    lm[k][l] += d / ln[k][l];
    lM2[k][l] += d * (v - lm[k][l]);
  }
  for (int k = 0; k < 4; k++)
    for (int l = 0; l < 8; l++) {
      tally__part lane;
      tally__part_init(&lane, TALLY__FAM_VAR, 0);
      lane.n = (int64_t)ln[k][l];
      lane.hi = lm[k][l];
      lane.lo = lM2[k][l];
      tally__part_merge(&loc, &lane, TALLY__FAM_VAR);
    }
  tally__part_merge(acc, &loc, TALLY__FAM_VAR);
}

/* bool and 8/16-bit integers: the chunk's exact integer sums S = Σy and Q = Σy² of
 * y = x − c, turned once into (n, mean − K, M2) with M2 = (n·Q − S²)/n from the exact
 * n·Q − S² (the same for any c): one rounding to f64 and one in the division, more
 * accurate than var_body's f64 lanes, and integer arithmetic that keeps up with the
 * loads. Exact sums do not depend on lanes or order: every ISA gives the same bits.
 * c (VAR_C) puts y in [0, 255] for bytes and in [-32768, 32767] for 16 bits; with at most
 * 2^16 elements every lane sum below stays under 2^31. */
#define VAR_C(dt) ((dt) == TALLY_I8 ? -128 : (dt) == TALLY_U16 ? 32768 : 0)

#if TALLY_AVX2_EXACT
/* S and Q of the first elements of contiguous x (a multiple of 32 or 16), returned. Bytes:
 * S by vpsadbw, Q by vpmaddwd of the bytes unpacked to 16 bits (pairs < 2^17; the
 * unpack's order changes no exact sum). 16 bits: S and Q by vpmaddwd; a pair of squares
 * (up to 2^31) is added to two lanes by its high and low 16 bits. */
AI int64_t var_sums_avx2(int dt, const void *x, int64_t n, int64_t *S, int64_t *Q) {
  const __m256i zero = _mm256_setzero_si256();
  __m256i s = zero, q0 = zero, q1 = zero;
  int64_t i = 0;
  if (DT_SIZE(dt) == 1) {
    const __m256i one = _mm256_set1_epi8(1), flip = _mm256_set1_epi8(dt == TALLY_I8 ? (char)0x80 : 0);
    for (; i + 32 <= n; i += 32) {
      __m256i v = _mm256_loadu_si256((const __m256i *)((const uint8_t *)x + i));
      v = dt == TALLY_BOOL ? _mm256_min_epu8(v, one) : _mm256_xor_si256(v, flip); /* y */
      __m256i lo = _mm256_unpacklo_epi8(v, zero), hi = _mm256_unpackhi_epi8(v, zero);
      s = _mm256_add_epi64(s, _mm256_sad_epu8(v, zero));
      q0 = _mm256_add_epi32(q0, _mm256_madd_epi16(lo, lo));
      q1 = _mm256_add_epi32(q1, _mm256_madd_epi16(hi, hi));
    }
    int64_t ls[4];
    int32_t lq[8];
    _mm256_storeu_si256((__m256i *)ls, s);
    _mm256_storeu_si256((__m256i *)lq, _mm256_add_epi32(q0, q1));
    *S = (ls[0] + ls[1]) + (ls[2] + ls[3]);
    *Q = 0;
    for (int l = 0; l < 8; l++) *Q += lq[l];
  } else {
    const __m256i one = _mm256_set1_epi16(1), low = _mm256_set1_epi32(0xffff);
    const __m256i flip = _mm256_set1_epi16(dt == TALLY_U16 ? (short)0x8000 : 0);
    for (; i + 16 <= n; i += 16) {
      __m256i v = _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)((const int16_t *)x + i)), flip); /* y */
      __m256i r = _mm256_madd_epi16(v, v);
      s = _mm256_add_epi32(s, _mm256_madd_epi16(v, one));
      q0 = _mm256_add_epi32(q0, _mm256_srli_epi32(r, 16));
      q1 = _mm256_add_epi32(q1, _mm256_and_si256(r, low));
    }
    int32_t ls[8], lh[8], ll[8];
    _mm256_storeu_si256((__m256i *)ls, s);
    _mm256_storeu_si256((__m256i *)lh, q0);
    _mm256_storeu_si256((__m256i *)ll, q1);
    *S = *Q = 0;
    for (int l = 0; l < 8; l++) {
      *S += ls[l];
      *Q += ((int64_t)lh[l] << 16) + ll[l];
    }
  }
  return i;
}
#endif

AI void var_small_int(int dt, KARGS) {
  tally__part loc;
  tally__part_init(&loc, TALLY__FAM_VAR, 0);
  const int64_t c = VAR_C(dt);
  int64_t S = 0, Q = 0, i = 0;
#if TALLY_AVX2_EXACT
  if (sx == 1) i = var_sums_avx2(dt, x, n, &S, &Q);
#endif
  vi s = {0}, qh = {0}, ql = {0}; /* y² < 2^31 by its high and low 16 bits, as above */
  for (; i + 16 <= n; i += 16) {
    vi d = load_key32(dt, x, i, sx) - (int32_t)c, q = d * d;
    s += d;
    qh += q >> 16;
    ql += q & 0xffff;
  }
  for (int l = 0; l < 16; l++) {
    S += s[l];
    Q += ((int64_t)qh[l] << 16) + ql[l];
  }
  for (; i < n; i++) {
    int64_t d = rd_l(dt, x, i * sx) - c;
    S += d;
    Q += d * d;
  }
  if (n > 0) {
    /* K is the slice's first element, an integer here; the other branch is for safety */
    const double K = kp->shift;
    const int exactK = fabs(K) < 0x1p52 && (double)(int64_t)K == K;
    loc.n = n;
    loc.hi = (exactK ? (double)(S + n * (c - (int64_t)K)) : (double)(S + n * c) - (double)n * K) / (double)n;
    loc.lo = (double)((__int128)n * Q - (__int128)S * S) / (double)n;
  }
  tally__part_merge(acc, &loc, TALLY__FAM_VAR);
}

AI void k_var(int dt, KARGS) {
  if (!IS_FLOAT(dt) && DT_SIZE(dt) <= 2) { var_small_int(dt, acc, x, y, sx, sy, n, idx0, kp); return; }
  if (kp->ignore_nan && IS_FLOAT(dt)) var_body(dt, 1, acc, x, y, sx, sy, n, idx0, kp);
  else var_body(dt, 0, acc, x, y, sx, sy, n, idx0, kp);
}

/* ------------------------------------------------------------ ANY, ALL, COUNT_NONZERO */

/* On the bit patterns: an element is nonzero when any bit but a float's sign bit is set
 * (so NaN counts and −0.0 does not). Contiguous input is read 64 bytes at a time into
 * lanes of the element's own width, counted in lanes of that width, which are flushed
 * into a 64-bit total before they can overflow. */
#define COUNT_BODY(U, MASK, FLUSH)                                                   \
  do {                                                                               \
    typedef U vu __attribute__((vector_size(64)));                                   \
    const int per = 64 / (int)sizeof(U);                                             \
    vu c = {0};                                                                      \
    int since = 0;                                                                   \
    if (sx == 1)                                                                     \
      for (; i + per <= n; i += per) {                                               \
        vu v;                                                                        \
        memcpy(&v, (const char *)x + i * (int64_t)sizeof(U), 64);                    \
        c -= (vu)((v & (U)(MASK)) != 0);                                             \
        if (++since == (FLUSH)) {                                                    \
          for (int l = 0; l < per; l++) cnt += c[l];                                 \
          c = (vu){0};                                                               \
          since = 0;                                                                 \
        }                                                                            \
      }                                                                              \
    for (int l = 0; l < per; l++) cnt += c[l];                                       \
    for (; i < n; i++) {                                                             \
      U v;                                                                           \
      memcpy(&v, (const char *)x + i * sx * (int64_t)sizeof(U), sizeof(U));          \
      cnt += (v & (U)(MASK)) != 0;                                                   \
    }                                                                                \
  } while (0)

#if TALLY_AVX2_HALVES
/* Counts are exact, so any lanes will do (see sum_float for why not the 64-byte lane
 * vectors; COUNT of u8 measured at 0.02 x the read probe through them). Each element is
 * compared with zero at its own width (after clearing a float's sign bit), which sets all
 * its sz bytes; those are counted in bytes (flushed by vpsadbw before 255) and divided by
 * sz. Returns the elements done (a multiple of 128 / sz) and adds the nonzero ones to *cnt. */
AI int64_t count_avx2_body(int sz, int flt, const char *x, int64_t n, int64_t *cnt) {
  const int64_t per = 128 / sz; /* elements per 4 vectors */
  const __m256i zero = _mm256_setzero_si256();
  const __m256i m = !flt ? _mm256_set1_epi8(-1) : sz == 2 ? _mm256_set1_epi16(0x7fff)
                    : sz == 4 ? _mm256_set1_epi32(0x7fffffff) : _mm256_set1_epi64x(INT64_MAX);
  __m256i tot = zero;
  int64_t i = 0;
  while (i + per <= n) {
    __m256i c[4] = {zero, zero, zero, zero};
    for (int r = 0; r < 255 && i + per <= n; r++, i += per) /* a byte counts <= 255 */
      for (int k = 0; k < 4; k++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(x + i * sz + 32 * k));
        if (flt) v = _mm256_and_si256(v, m);
        __m256i z = sz == 1 ? _mm256_cmpeq_epi8(v, zero) : sz == 2 ? _mm256_cmpeq_epi16(v, zero)
                    : sz == 4 ? _mm256_cmpeq_epi32(v, zero) : _mm256_cmpeq_epi64(v, zero);
        c[k] = _mm256_sub_epi8(c[k], z);
      }
    for (int k = 0; k < 4; k++) tot = _mm256_add_epi64(tot, _mm256_sad_epu8(c[k], zero));
  }
  uint64_t l[4];
  _mm256_storeu_si256((__m256i *)l, tot);
  *cnt += i - (int64_t)((l[0] + l[1] + l[2] + l[3]) / (uint64_t)sz); /* zero bytes / sz = zero elements */
  return i;
}
static __attribute__((noipa)) int64_t count_avx2(int sz, int flt, const void *x, int64_t n, int64_t *cnt) {
  switch (sz * 2 + flt) {
  case 2: return count_avx2_body(1, 0, (const char *)x, n, cnt);
  case 4: return count_avx2_body(2, 0, (const char *)x, n, cnt);
  case 5: return count_avx2_body(2, 1, (const char *)x, n, cnt);
  case 8: return count_avx2_body(4, 0, (const char *)x, n, cnt);
  case 9: return count_avx2_body(4, 1, (const char *)x, n, cnt);
  case 16: return count_avx2_body(8, 0, (const char *)x, n, cnt);
  default: return count_avx2_body(8, 1, (const char *)x, n, cnt);
  }
}
#endif

AI void k_count(int dt, KARGS) {
  tally__part loc;
  tally__part_init(&loc, TALLY__FAM_COUNT, 0);
  int64_t i = 0, cnt = 0;
#if TALLY_AVX2_HALVES
  if (sx == 1) i = count_avx2(DT_SIZE(dt), IS_FLOAT(dt) ? 1 : 0, x, n, &cnt);
#endif
  switch (DT_SIZE(dt)) {
  case 1: COUNT_BODY(uint8_t, 0xff, 255); break;
  case 2: COUNT_BODY(uint16_t, IS_FLOAT(dt) ? 0x7fff : 0xffff, 65535); break;
  case 4: COUNT_BODY(uint32_t, IS_FLOAT(dt) ? 0x7fffffffu : 0xffffffffu, -1); break;
  default: COUNT_BODY(uint64_t, IS_FLOAT(dt) ? INT64_MAX : -1, -1); break;
  }
  loc.n = cnt;
  tally__part_merge(acc, &loc, TALLY__FAM_COUNT);
}

/* ------------------------------------------------------------ BITAND, BITOR, BITXOR */

/* Bitwise folds do not care where one element ends and the next begins: contiguous input
 * is folded 64 bits at a time, and the 64-bit result is then folded onto itself down to
 * the element's width (each byte position holds the fold of the elements there). bool
 * never gets here: the driver counts it instead (and = all, or = any, xor = parity). */
#if TALLY_AVX2_HALVES
/* The 64-byte lane vectors are slow here too (u8 BITOR measured at 0.3 x the read probe
 * through them): the bytes are folded 128 at a time in 256-bit registers instead, which
 * is the same fold (bit operations do not care about lanes or order). Returns the bytes
 * done (a multiple of 128) and folds their 64-bit words into *h. */
AI int64_t bits_avx2_body(int which, const char *x, int64_t nb, uint64_t *h) {
#define BITOP256(a, b) (which == 0 ? _mm256_and_si256(a, b) : which == 1 ? _mm256_or_si256(a, b) : _mm256_xor_si256(a, b))
  const __m256i id = _mm256_set1_epi64x(which == 0 ? -1 : 0);
  __m256i a[4] = {id, id, id, id};
  int64_t i = 0;
  for (; i + 128 <= nb; i += 128)
    for (int k = 0; k < 4; k++) a[k] = BITOP256(a[k], _mm256_loadu_si256((const __m256i *)(x + i + 32 * k)));
  uint64_t l[4], r = *h;
  _mm256_storeu_si256((__m256i *)l, BITOP256(BITOP256(a[0], a[1]), BITOP256(a[2], a[3])));
#undef BITOP256
  for (int k = 0; k < 4; k++) r = which == 0 ? r & l[k] : which == 1 ? r | l[k] : r ^ l[k];
  *h = r;
  return i;
}
static __attribute__((noipa)) int64_t bits_avx2(int which, const void *x, int64_t nb, uint64_t *h) {
  if (which == 0) return bits_avx2_body(0, (const char *)x, nb, h);
  if (which == 1) return bits_avx2_body(1, (const char *)x, nb, h);
  return bits_avx2_body(2, (const char *)x, nb, h);
}
#endif

AI void bit_body(int dt, int which, KARGS) {
  tally__family fam = which == 0 ? TALLY__FAM_BITAND : which == 1 ? TALLY__FAM_BITOR : TALLY__FAM_BITXOR;
  tally__part loc;
  tally__part_init(&loc, fam, 0);
  const int64_t esz = DT_SIZE(dt);
  uint64_t r = which == 0 ? ~(uint64_t)0 : 0;
  int64_t i = 0;
#define BITOP(a, b) (which == 0 ? (a) & (b) : which == 1 ? (a) | (b) : (a) ^ (b))
  if (sx == 1) {
    const int64_t per = 256 / esz; /* elements per 4 vectors of 64 bytes */
    uint64_t h = r; /* the AVX2 path's fold */
#if TALLY_AVX2_HALVES
    i = bits_avx2(which, x, n * esz, &h) / esz;
#endif
    vul a[4];
    for (int k = 0; k < 4; k++) a[k] = (vul){0} + r;
    for (; i + per <= n; i += per)
      for (int k = 0; k < 4; k++) {
        vul v;
        memcpy(&v, (const char *)x + i * esz + 64 * k, 64);
        a[k] = BITOP(a[k], v);
      }
    vul t = BITOP(BITOP(a[0], a[1]), BITOP(a[2], a[3]));
    for (int l = 0; l < 8; l++) r = BITOP(r, t[l]);
    r = BITOP(r, h);
    for (int sh = 32; sh >= 8 * esz; sh /= 2) r = BITOP(r, r >> sh);
  }
  for (; i < n; i++) r = BITOP(r, (uint64_t)rd_l(dt, x, i * sx));
#undef BITOP
  loc.k0 = (int64_t)r;
  tally__part_merge(acc, &loc, fam);
}
AI void k_bitand(int dt, KARGS) { bit_body(dt, 0, acc, x, y, sx, sy, n, idx0, kp); }
AI void k_bitor(int dt, KARGS) { bit_body(dt, 1, acc, x, y, sx, sy, n, idx0, kp); }
AI void k_bitxor(int dt, KARGS) { bit_body(dt, 2, acc, x, y, sx, sy, n, idx0, kp); }

/* ------------------------------------------------------------ AFFINE */

/* Composition of x → a·x + b in index order. One chain of maps is a chain of dependent
 * multiplies and adds (3-6 GB/s on 16 threads of a Xeon, 2026-11-26, where the host reads
 * at 100-200 GB/s), so a chunk is cut into 8 contiguous pieces of equal length, composed
 * side by side in two 4-lane vectors (lane l of vector v: piece 4v + l), then one after
 * another in index order; the rest (under 8 elements, or 264 with affine_piece's offset)
 * continues the last piece. The pieces depend on the chunk's length alone, so the bits
 * depend neither on threads nor on the ISA (the same IEEE operations per lane). With NaNs
 * ignored a map with a NaN coefficient is skipped: its lane keeps its value (a select,
 * not a step by (1, 0), which would turn a B of −0.0 into +0.0). Integers wrap modulo
 * 2^64: exact, any grouping. f16, bf16 and f32 step in f64 lanes in FAST as in DEFAULT,
 * as the GPU kernels do: in f32 lanes the long products of near-one maps reach the
 * subnormals within a piece, and FAST ran 4-14 x slower than DEFAULT there (f32 0.42
 * GB/s against 5.8 on the 2-core Xeon VM; f16 on the H200's host 17 GB/s against 67,
 * 2026-11-30). */
typedef double aff_vd __attribute__((vector_size(32)));
typedef int64_t aff_vl __attribute__((vector_size(32)));

/* (A, B) ← (a, b) ∘ (A, B), as tally__part_merge composes AFFINE parts. */
#define AFFINE_STEP(A, B, a, b) ((B) = (a) * (B) + (b), (A) = (a) * (A))

/* Lanes v*4 .. v*4+3 of element i of each piece, read with RD (rd_d, rd_f or rd_l). */
#define AFFINE_LD4(VT, RD, p, st, v, i)                                                     \
  ((VT){RD(dt, p, ((4 * (v) + 0) * piece + (i)) * (st)), RD(dt, p, ((4 * (v) + 1) * piece + (i)) * (st)), \
        RD(dt, p, ((4 * (v) + 2) * piece + (i)) * (st)), RD(dt, p, ((4 * (v) + 3) * piece + (i)) * (st))})

/* The whole chunk of floats in scalar type T through lane vectors VT (mask type MT), then the eight
 * pieces' maps composed in order into loc's (A, B) through the STORE statement. BLOCKS, an
 * expression, may compose each piece's first elements into A and B first and gives how
 * many it did. */
#define AFFINE_PIECES(T, VT, MT, RD, one, BLOCKS, STORE)                                    \
  do {                                                                                      \
    VT A[2] = {{one, one, one, one}, {one, one, one, one}}, B[2] = {{0}, {0}};               \
    for (int64_t i = (BLOCKS); i < piece; i++)                                              \
      for (int v = 0; v < 2; v++) {                                                         \
        VT a = AFFINE_LD4(VT, RD, x, sx, v, i), b = AFFINE_LD4(VT, RD, y, sy, v, i);         \
        if (ign) {                                                                          \
          MT ok = (MT)(a == a) & (MT)(b == b);                                              \
          VT nA = a * A[v], nB = a * B[v] + b;                                              \
          A[v] = (VT)(((MT)nA & ok) | ((MT)A[v] & ~ok));                                    \
          B[v] = (VT)(((MT)nB & ok) | ((MT)B[v] & ~ok));                                    \
        } else {                                                                            \
          AFFINE_STEP(A[v], B[v], a, b);                                                    \
        }                                                                                   \
      }                                                                                     \
    T sA[8], sB[8];                                                                         \
    for (int l = 0; l < 8; l++) sA[l] = A[l >> 2][l & 3], sB[l] = B[l >> 2][l & 3];          \
    for (int64_t e = 8 * piece; e < n; e++) {                                               \
      T a = RD(dt, x, e * sx), b = RD(dt, y, e * sy);                                       \
      if (ign && (a != a || b != b)) continue;                                              \
      AFFINE_STEP(sA[7], sB[7], a, b);                                                      \
    }                                                                                       \
    for (int l = 1; l < 8; l++) AFFINE_STEP(sA[0], sB[0], sA[l], sB[l]);                    \
    STORE;                                                                                  \
  } while (0)

/* The length of each of k pieces of n maps. Pieces of a power-of-two length start a
 * multiple of 4 KiB apart, and their streams (of x and of y) then fall in one set of an
 * 8-way L1 and evict each other (2026-11-26, AMD EPYC: AFFINE f32 at 2^18 3.6 GB/s against
 * 18 at 2^14): 33 elements fewer per piece puts each piece's stream at least a cache line
 * from the last's. */
AI int64_t affine_piece(int64_t n, int k) { return n / k > 64 ? n / k - 33 : n / k; }

/* Keeps an integer chain's value in a general register: without it GCC's vectorizer packs
 * the four chains into vectors (AVX-512: vpmullq, with lanes assembled through the stack,
 * a store-forwarding stall each element: u8 at 0.7 GB/s on the 2-core Xeon VM,
 * 2026-11-30). */
#define AFF_GPR(v) __asm__("" : "+r"(v))

#if defined(__AVX2__)
/* 1- and 2-byte integers, contiguous (AVX2 and up): four pieces side by side in the 64-bit
 * lanes of a vector. Each piece's block of 16 bytes is first composed in groups of four
 * (one-byte) or two (two-byte) maps in 32-bit lanes, where a group's (A, B) is held
 * exactly (unsigned below 2^32: u8 255^4 + 255^3 + 255^2 + 255; signed below 2^31 in
 * magnitude); bytes in pairs by vpmaddwd first. Two groups are then composed into one in
 * 64-bit lanes (32 x 32-bit products, exact), and that steps the pieces' chains: a 64 x
 * 64-bit multiply modulo 2^64 (three vpmuludq), which needs no sign handling. One chain
 * step per two groups, and none of the signed types' sign juggling, took i8 from 0.50 to
 * 0.30 ns an element and u8 from 0.37 to 0.30 (i16 0.72 to 0.48, u16 0.60 to 0.47; one
 * thread of the 2-core Xeon VM, 2026-11-30) against stepping each group as 64 x 32 bits
 * (signed: by its magnitude, the sign applied after); four chains in general registers
 * had taken u8 0.83-1.37. */
/* a·m modulo 2^64, lane by lane. */
AI __m256i aff_mul64(__m256i a, __m256i m) {
  const __m256i lo = _mm256_mul_epu32(a, m);
  const __m256i cross = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(a, 32), m),
                                         _mm256_mul_epu32(a, _mm256_srli_epi64(m, 32)));
  return _mm256_add_epi64(lo, _mm256_slli_epi64(cross, 32));
}
/* r[i][j] <-> r[j][i] for four vectors of four 64-bit lanes. */
AI void aff_transpose(__m256i r[4]) {
  const __m256i t0 = _mm256_unpacklo_epi64(r[0], r[1]), t1 = _mm256_unpackhi_epi64(r[0], r[1]),
                t2 = _mm256_unpacklo_epi64(r[2], r[3]), t3 = _mm256_unpackhi_epi64(r[2], r[3]);
  r[0] = _mm256_permute2x128_si256(t0, t2, 0x20);
  r[1] = _mm256_permute2x128_si256(t1, t3, 0x20);
  r[2] = _mm256_permute2x128_si256(t0, t2, 0x31);
  r[3] = _mm256_permute2x128_si256(t1, t3, 0x31);
}
/* The maps of one block (16 bytes of a's at p, of b's at q) composed in four groups in
 * order, lanes 0..3: (GA, GB) as 64-bit values (signed types: sign-extended). */
AI void aff_groups(int dt, const void *p, const void *q, __m256i *GA, __m256i *GB) {
  const __m128i ra = _mm_loadu_si128((const __m128i *)p), rb = _mm_loadu_si128((const __m128i *)q);
  const int sgn = dt == TALLY_I8 || dt == TALLY_I16;
  __m256i a, b; /* pairs' first and second elements in the 32-bit halves of each 64-bit lane */
  if (dt == TALLY_U8 || dt == TALLY_I8) {
    /* pairs of maps (first e, then o) in 32-bit lanes by vpmaddwd (16-bit factors, exact):
     * A = ae·ao, B = be·ao + bo·1 */
    const __m256i a16 = sgn ? _mm256_cvtepi8_epi16(ra) : _mm256_cvtepu8_epi16(ra),
                  b16 = sgn ? _mm256_cvtepi8_epi16(rb) : _mm256_cvtepu8_epi16(rb);
    const __m256i ao = _mm256_srli_epi32(a16, 16); /* (ao, 0) */
    a = _mm256_madd_epi16(_mm256_blend_epi16(a16, _mm256_setzero_si256(), 0xAA), ao);
    b = _mm256_madd_epi16(_mm256_blend_epi16(b16, _mm256_set1_epi16(1), 0xAA), _mm256_blend_epi16(ao, b16, 0xAA));
  } else {
    a = sgn ? _mm256_cvtepi16_epi32(ra) : _mm256_cvtepu16_epi32(ra);
    b = sgn ? _mm256_cvtepi16_epi32(rb) : _mm256_cvtepu16_epi32(rb);
  }
  const __m256i ao = _mm256_srli_epi64(a, 32), bo = _mm256_srli_epi64(b, 32);
  if (sgn) {
    *GA = _mm256_mul_epi32(a, ao);
    *GB = _mm256_add_epi64(_mm256_mul_epi32(b, ao), _mm256_mul_epi32(bo, _mm256_set1_epi64x(1)));
  } else {
    *GA = _mm256_mul_epu32(a, ao);
    *GB = _mm256_add_epi64(_mm256_mul_epu32(b, ao), bo);
  }
}
/* The whole blocks of four pieces (q elements each, p0 their first a's, q0 b's, es bytes
 * an element), from their starts, composed into A[l], B[l]; returns where the blocks end. */
AI int64_t aff_blocks(int dt, const char *p0, const char *q0, int64_t q, int es, uint64_t A[4], uint64_t B[4]) {
  const int64_t w = 16 / es;
  const int sgn = dt == TALLY_I8 || dt == TALLY_I16;
  __m256i vA = _mm256_loadu_si256((const __m256i *)A), vB = _mm256_loadu_si256((const __m256i *)B);
  int64_t i = 0;
  for (; i + w <= q; i += w) {
    __m256i GA[4], GB[4];
    for (int l = 0; l < 4; l++) aff_groups(dt, p0 + (l * q + i) * es, q0 + (l * q + i) * es, &GA[l], &GB[l]);
    aff_transpose(GA);
    aff_transpose(GB);
    for (int g = 0; g < 4; g += 2) { /* groups g, g + 1 composed (exact), then one step */
      const __m256i cA = sgn ? _mm256_mul_epi32(GA[g + 1], GA[g]) : _mm256_mul_epu32(GA[g + 1], GA[g]);
      const __m256i cB = _mm256_add_epi64(sgn ? _mm256_mul_epi32(GA[g + 1], GB[g]) : _mm256_mul_epu32(GA[g + 1], GB[g]), GB[g + 1]);
      vA = aff_mul64(vA, cA);
      vB = _mm256_add_epi64(aff_mul64(vB, cA), cB);
    }
  }
  _mm256_storeu_si256((__m256i *)A, vA);
  _mm256_storeu_si256((__m256i *)B, vB);
  return i;
}
#endif

#if defined(__AVX2__) && defined(__F16C__)
/* f16 and bf16, contiguous (AVX2 and up): AFFINE_PIECES's gather, element by element, read
 * f16 at 19.5 GB/s on the H200's 16-thread host (2026-11-30), under the 49 that keep up
 * with its PCIe copy. Here each step of four elements loads four of each piece at once
 * (pieces l and l + 4 in the halves of one register: one vcvtph2ps, or a shift, for eight
 * pieces' values) and transposes them in each 128-bit half, so that register t holds
 * element i + t of pieces 0-3 (low half) and 4-7 (high): AFFINE_PIECES's lanes. Each lane
 * then takes AFFINE_PIECES's steps in its order, with its values (the conversions are
 * exact): the same bits. FAST and DEFAULT both step the eight lanes in doubles. */
AI void affh_rows(int dt, const uint16_t *p, int64_t piece, int64_t i, __m256 c[4]) {
  for (int k = 0; k < 4; k++) { /* c[k]: piece k's elements i..i+3 | piece k + 4's */
    const __m128i lo = _mm_loadl_epi64((const __m128i *)(p + k * piece + i));
    const __m128i h = _mm_castpd_si128(_mm_loadh_pd(_mm_castsi128_pd(lo), (const double *)(p + (k + 4) * piece + i)));
    c[k] = dt == TALLY_F16 ? _mm256_cvtph_ps(h) : _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
  }
  const __m256 t0 = _mm256_unpacklo_ps(c[0], c[1]), t1 = _mm256_unpacklo_ps(c[2], c[3]),
               t2 = _mm256_unpackhi_ps(c[0], c[1]), t3 = _mm256_unpackhi_ps(c[2], c[3]);
  c[0] = _mm256_shuffle_ps(t0, t1, _MM_SHUFFLE(1, 0, 1, 0));
  c[1] = _mm256_shuffle_ps(t0, t1, _MM_SHUFFLE(3, 2, 3, 2));
  c[2] = _mm256_shuffle_ps(t2, t3, _MM_SHUFFLE(1, 0, 1, 0));
  c[3] = _mm256_shuffle_ps(t2, t3, _MM_SHUFFLE(3, 2, 3, 2));
}
/* DEFAULT: lanes in doubles (A[v], B[v]: pieces 4v..4v+3); returns the elements done. */
AI int64_t affh_blocks_pd(int dt, int ign, const void *x, const void *y, int64_t piece, aff_vd A[2], aff_vd B[2]) {
  int64_t i = 0;
#if defined(__AVX512F__)
  /* The eight lanes in one 512-bit register: half the conversions and steps of two
   * 256-bit ones. One thread of the 2-core Xeon VM (2026-11-30): f16 0.57 ns a map against
   * 0.71 in two; on the H200's host pageable f16 went from 0.97 to 1.27 x the pinned copy. */
  __m512d zA = _mm512_insertf64x4(_mm512_castpd256_pd512((__m256d)A[0]), (__m256d)A[1], 1),
          zB = _mm512_insertf64x4(_mm512_castpd256_pd512((__m256d)B[0]), (__m256d)B[1], 1);
  for (; i + 4 <= piece; i += 4) {
    __m256 ca[4], cb[4];
    affh_rows(dt, (const uint16_t *)x, piece, i, ca);
    affh_rows(dt, (const uint16_t *)y, piece, i, cb);
    for (int t = 0; t < 4; t++) {
      const __m512d a = _mm512_cvtps_pd(ca[t]), b = _mm512_cvtps_pd(cb[t]);
      const __m512d nB = _mm512_add_pd(_mm512_mul_pd(a, zB), b), nA = _mm512_mul_pd(a, zA);
      if (ign) {
        const __mmask8 ok = _mm512_cmp_pd_mask(a, a, _CMP_ORD_Q) & _mm512_cmp_pd_mask(b, b, _CMP_ORD_Q);
        zA = _mm512_mask_mov_pd(zA, ok, nA);
        zB = _mm512_mask_mov_pd(zB, ok, nB);
      } else {
        zA = nA;
        zB = nB;
      }
    }
  }
  A[0] = (aff_vd)_mm512_castpd512_pd256(zA), A[1] = (aff_vd)_mm512_extractf64x4_pd(zA, 1);
  B[0] = (aff_vd)_mm512_castpd512_pd256(zB), B[1] = (aff_vd)_mm512_extractf64x4_pd(zB, 1);
  return i;
#else
  __m256d vA[2] = {(__m256d)A[0], (__m256d)A[1]}, vB[2] = {(__m256d)B[0], (__m256d)B[1]};
  for (; i + 4 <= piece; i += 4) {
    __m256 ca[4], cb[4];
    affh_rows(dt, (const uint16_t *)x, piece, i, ca);
    affh_rows(dt, (const uint16_t *)y, piece, i, cb);
    for (int t = 0; t < 4; t++)
      for (int v = 0; v < 2; v++) {
        const __m256d a = _mm256_cvtps_pd(v ? _mm256_extractf128_ps(ca[t], 1) : _mm256_castps256_ps128(ca[t]));
        const __m256d b = _mm256_cvtps_pd(v ? _mm256_extractf128_ps(cb[t], 1) : _mm256_castps256_ps128(cb[t]));
        const __m256d nB = _mm256_add_pd(_mm256_mul_pd(a, vB[v]), b), nA = _mm256_mul_pd(a, vA[v]);
        if (ign) {
          const __m256d ok = _mm256_and_pd(_mm256_cmp_pd(a, a, _CMP_ORD_Q), _mm256_cmp_pd(b, b, _CMP_ORD_Q));
          vA[v] = _mm256_blendv_pd(vA[v], nA, ok);
          vB[v] = _mm256_blendv_pd(vB[v], nB, ok);
        } else {
          vA[v] = nA;
          vB[v] = nB;
        }
      }
  }
  for (int v = 0; v < 2; v++) A[v] = (aff_vd)vA[v], B[v] = (aff_vd)vB[v];
  return i;
#endif
}
#define AFFH_OK(dt) (((dt) == TALLY_F16 || (dt) == TALLY_BF16) && sx == 1 && sy == 1)
#define AFFH_BLOCKS_PD (AFFH_OK(dt) ? affh_blocks_pd(dt, ign, x, y, piece, A, B) : 0)
#else
#define AFFH_BLOCKS_PD 0
#endif

AI void affine_body(int dt, int ign, KARGS) {
  tally__part loc;
  tally__part_init(&loc, TALLY__FAM_AFFINE, 0);
  const int64_t piece = affine_piece(n, 8);
  if (!IS_FLOAT(dt)) {
    /* Exact, so any grouping: four pieces, in general registers (AVX2 has no 64 x 64-bit
     * vector multiply; its emulation was slower than one chain), or for 1- and 2-byte
     * elements in vector lanes after groups of them are composed in 32 bits, where a
     * 64 x 64-bit multiply takes three vpmuludq (aff_blocks). */
    const int64_t q = affine_piece(n, 4);
    uint64_t A[4] = {1, 1, 1, 1}, B[4] = {0, 0, 0, 0};
    int64_t i0 = 0;
#if defined(__AVX2__)
    if (sx == 1 && sy == 1 && tally_dtype_size(dt) <= 2 && dt != TALLY_BOOL)
      i0 = aff_blocks(dt, (const char *)x, (const char *)y, q, (int)tally_dtype_size(dt), A, B);
#endif
    for (int64_t i = i0; i < q; i++)
      for (int l = 0; l < 4; l++) {
        uint64_t a = (uint64_t)rd_l(dt, x, (l * q + i) * sx), b = (uint64_t)rd_l(dt, y, (l * q + i) * sy);
        AFFINE_STEP(A[l], B[l], a, b);
        AFF_GPR(A[l]);
        AFF_GPR(B[l]);
      }
    for (int64_t e = 4 * q; e < n; e++) {
      uint64_t a = (uint64_t)rd_l(dt, x, e * sx), b = (uint64_t)rd_l(dt, y, e * sy);
      AFFINE_STEP(A[3], B[3], a, b);
    }
    for (int l = 1; l < 4; l++) AFFINE_STEP(A[0], B[0], A[l], B[l]);
    loc.k0 = (int64_t)A[0];
    loc.k1 = (int64_t)B[0];
  } else { /* f16, bf16, f32 in f64 lanes in FAST too (see above) */
    AFFINE_PIECES(double, aff_vd, aff_vl, rd_d, 1.0, AFFH_BLOCKS_PD, (loc.hi = sA[0], loc.lo = sB[0]));
  }
  tally__part_merge(acc, &loc, TALLY__FAM_AFFINE);
}

AI void k_affine(int dt, KARGS) {
  if (kp->ignore_nan) affine_body(dt, 1, acc, x, y, sx, sy, n, idx0, kp);
  else affine_body(dt, 0, acc, x, y, sx, sy, n, idx0, kp);
}

/* ------------------------------------------------------------ instantiation and table */

#define DTYPES(X)                                                                  \
  X(TALLY_BOOL, bool) X(TALLY_I8, i8) X(TALLY_I16, i16) X(TALLY_I32, i32)            \
  X(TALLY_I64, i64) X(TALLY_U8, u8) X(TALLY_U16, u16) X(TALLY_U32, u32)              \
  X(TALLY_U64, u64) X(TALLY_F16, f16) X(TALLY_BF16, bf16) X(TALLY_F32, f32)          \
  X(TALLY_F64, f64)

#define FAMILIES(X)                                                                \
  X(TALLY__FAM_SUM, k_sum) X(TALLY__FAM_PROD, k_prod) X(TALLY__FAM_DOT, k_dot)       \
  X(TALLY__FAM_MINMAX, k_minmax) X(TALLY__FAM_ARGMIN, k_argmin)                     \
  X(TALLY__FAM_ARGMAX, k_argmax) X(TALLY__FAM_VAR, k_var)                           \
  X(TALLY__FAM_COUNT, k_count) X(TALLY__FAM_BITAND, k_bitand)                        \
  X(TALLY__FAM_BITOR, k_bitor) X(TALLY__FAM_BITXOR, k_bitxor)                        \
  X(TALLY__FAM_AFFINE, k_affine)

/* Contiguous input gets its own copy of each loop (strides the constant 1), so that its
 * loads are plain vector loads with no stride test inside the loop. */
#define INST_DT(dtenum, dtname, body)                                              \
  static void body##_##dtname(KARGS) {                                             \
    if (sx == 1 && (sy == 1 || y == NULL)) body(dtenum, acc, x, y, 1, 1, n, idx0, kp); \
    else body(dtenum, acc, x, y, sx, sy, n, idx0, kp);                              \
  }
#define INST_FAM(famenum, body)                                                    \
  INST_DT(TALLY_BOOL, bool, body) INST_DT(TALLY_I8, i8, body) INST_DT(TALLY_I16, i16, body) \
  INST_DT(TALLY_I32, i32, body) INST_DT(TALLY_I64, i64, body) INST_DT(TALLY_U8, u8, body)   \
  INST_DT(TALLY_U16, u16, body) INST_DT(TALLY_U32, u32, body) INST_DT(TALLY_U64, u64, body) \
  INST_DT(TALLY_F16, f16, body) INST_DT(TALLY_BF16, bf16, body)                           \
  INST_DT(TALLY_F32, f32, body) INST_DT(TALLY_F64, f64, body)
FAMILIES(INST_FAM)

#define ROW_DT(dtenum, dtname, body) body##_##dtname,
#define ROW_FAM(famenum, body) [famenum] = {DTYPES_OF(body)},
#define DTYPES_OF(body)                                                            \
  body##_bool, body##_i8, body##_i16, body##_i32, body##_i64, body##_u8, body##_u16, \
  body##_u32, body##_u64, body##_f16, body##_bf16, body##_f32, body##_f64

/* table[family][dtype], in the order of TALLY_DTYPE_LIST. */
const tally__kernel CAT(tally__cpu_kernels_, TALLY_ISA)[TALLY__FAM_COUNT_][TALLY_DTYPE_COUNT_] = {
    FAMILIES(ROW_FAM)};

/* Vector types and element loaders for the CPU kernels.
 *
 * The kernels use GCC vector extensions with a fixed number of lanes (8 doubles or
 * 64-bit integers, 16 floats or 32-bit integers per vector) whatever the ISA: the
 * compiler maps a 64-byte vector onto one AVX-512 register, two AVX2 registers or four
 * SSE2 registers. Lanes, and so rounding, are the same under every ISA.
 *
 * Loaders read 8 or 16 consecutive elements (stride s; s == 1 becomes one vector load
 * once inlined) and convert them to the working type. */
#ifndef TALLY_CPU_KERN_LOAD_H
#define TALLY_CPU_KERN_LOAD_H

#include <stdint.h>
#include <string.h>

#include "tally.h"

#if defined(__AVX2__) || defined(__AVX512F__) || defined(__F16C__)
#include <immintrin.h>
#endif

/* AVX2 without AVX-512: GCC gives the 64-byte lane vectors no register mode there (they
 * live on the stack, 10-100x slow), so the hot loops also have paths in 256-bit
 * registers, in the same lanes where the lanes decide the bits (see kernels.c). 0 or 1,
 * for #if (a macro that expands to `defined` is not portable). */
#if defined(__AVX2__) && !defined(__AVX512F__)
#define TALLY_AVX2_HALVES 1
#else
#define TALLY_AVX2_HALVES 0
#endif

/* AVX2 paths whose results are exact (integer products and sums, counts, extremes of
 * 16-bit keys): any lanes give the same bits, so the AVX-512 build uses them too where
 * its generic 64-byte lanes were measured slow (on an AVX-512 Xeon, 2026-11-26, 16
 * threads: PROD and DOT of 8/16-bit integers 12-23 GB/s, the extremes of f16 and bf16
 * 44-51 GB/s, against 100-230 for the 4/8-byte kernels). */
#if defined(__AVX2__)
#define TALLY_AVX2_EXACT 1
#else
#define TALLY_AVX2_EXACT 0
#endif

#define AI static inline __attribute__((always_inline))

typedef double vd __attribute__((vector_size(64)));   /* 8 doubles */
typedef float vf __attribute__((vector_size(64)));    /* 16 floats */
typedef float vf8 __attribute__((vector_size(32)));   /* 8 floats */
typedef int64_t vl __attribute__((vector_size(64)));  /* 8 int64 */
typedef uint64_t vul __attribute__((vector_size(64)));
typedef int32_t vi __attribute__((vector_size(64)));  /* 16 int32 */
typedef uint32_t vui __attribute__((vector_size(64)));
typedef int32_t vi8 __attribute__((vector_size(32)));  /* 8 int32 */
typedef uint32_t vui8 __attribute__((vector_size(32)));

#if TALLY_AVX2_HALVES
/* A 64-byte lane vector from its two 256-bit halves (lo: the lower 32 bytes' lanes): the
 * hand-over from 256-bit register loops to the generic lane code. */
AI vd vd_join(__m256d lo, __m256d hi) { vd v; memcpy(&v, &lo, 32); memcpy((char *)&v + 32, &hi, 32); return v; }
AI vf vf_join(__m256 lo, __m256 hi) { vf v; memcpy(&v, &lo, 32); memcpy((char *)&v + 32, &hi, 32); return v; }
AI vi vi_join(__m256i lo, __m256i hi) { vi v; memcpy(&v, &lo, 32); memcpy((char *)&v + 32, &hi, 32); return v; }
#endif

/* Element size, as a constant the compiler can fold (tally_dtype_size is a call). */
#define DT_SIZE(dt)                                                                    \
  ((dt) == TALLY_BOOL || (dt) == TALLY_I8 || (dt) == TALLY_U8 ? 1                      \
   : (dt) == TALLY_I16 || (dt) == TALLY_U16 || (dt) == TALLY_F16 || (dt) == TALLY_BF16 ? 2 \
   : (dt) == TALLY_I32 || (dt) == TALLY_U32 || (dt) == TALLY_F32 ? 4 : 8)

/* ------------------------------------------------------------ scalar element reads */

AI uint16_t rd_u16(const void *p, int64_t i) { uint16_t v; memcpy(&v, (const char *)p + 2 * i, 2); return v; }

AI float f16_to_float(uint16_t h) {
#if defined(__F16C__)
  /* vcvtph2ps, as the vector conversions: exact, and no subnormal float on the way (the
   * code below multiplies one for an f16 subnormal, which costs a microcode assist), nor
   * eight integer instructions: AFFINE of f16, which reads its elements one by one, went
   * from 9.7 to 19.5 GB/s on the H200's Xeon host (16 threads, AVX-512 build, run 210,
   * 2026-11-30; 1.35 to 4.6 on the 2-core VM). An f16
   * signalling NaN comes out quiet here and signalling below; every use computes with it
   * (which quiets it) or counts it as NaN, so no result differs. */
  return _cvtsh_ss(h);
#else
  uint32_t em = h & 0x7fffu, u;
  float f;
  u = em << 13;
  memcpy(&f, &u, 4);
  f *= 0x1p112f; /* rebias the exponent; exact for subnormals too */
  memcpy(&u, &f, 4);
  if (em >= 0x7c00u) u |= 0x7f800000u;
  u |= (uint32_t)(h & 0x8000u) << 16;
  memcpy(&f, &u, 4);
  return f;
#endif
}
AI float bf16_to_float(uint16_t h) { uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f; }

/* ------------------------------------------------------------ vector conversions */

AI vf8 f16x8_to_vf8(const uint16_t h[8]) {
#if defined(__F16C__)
  /* vcvtph2ps converts exactly, subnormals, Inf and NaN included: the same values. */
  return (vf8)_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)h));
#endif
  typedef uint16_t vh8 __attribute__((vector_size(16)));
  vh8 hv;
  memcpy(&hv, h, 16);
  vui8 u = __builtin_convertvector(hv, vui8);
  vui8 em = u & 0x7fffu;
  vui8 bits = em << 13;
  vf8 f;
  memcpy(&f, &bits, 32);
  f = f * 0x1p112f;
  vui8 r;
  memcpy(&r, &f, 32);
  vui8 infnan = (vui8)(em >= 0x7c00u) & 0x7f800000u;
  r = r | infnan | ((u & 0x8000u) << 16);
  memcpy(&f, &r, 32);
  return f;
}

AI vf8 bf16x8_to_vf8(const uint16_t h[8]) {
#if defined(__AVX2__)
  return (vf8)_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)h)), 16);
#endif
  typedef uint16_t vh8 __attribute__((vector_size(16)));
  vh8 hv;
  memcpy(&hv, h, 16);
  vui8 u = __builtin_convertvector(hv, vui8) << 16;
  vf8 f;
  memcpy(&f, &u, 32);
  return f;
}

#if TALLY_AVX2_HALVES
/* F16C: the AVX2 kernels are built with -mf16c, and the backend picks them only where
 * cpuid reports F16C (tally__isa_detect); elsewhere the scalar kernels run. */
#if !defined(__F16C__)
#error "the AVX2 kernels need F16C (-mf16c)"
#endif

/* 8 contiguous f16 or bf16 elements as floats in a 256-bit register: the values load_vf
 * gives (vcvtph2ps, or the bf16 bits shifted up). */
AI __m256 load8h_ps(int dt, const void *p) {
  return (__m256)(dt == TALLY_F16 ? f16x8_to_vf8((const uint16_t *)p) : bf16x8_to_vf8((const uint16_t *)p));
}

/* Elements i..i+3 of a contiguous array as doubles, the values load_vd gives (every
 * conversion here is exact). Not for 64-bit integers. */
AI __m256d load4_pd(int dt, const void *p, int64_t i) {
  const char *c = (const char *)p + i * DT_SIZE(dt);
  int32_t w; /* four bytes */
  switch (dt) {
  case TALLY_F64: return _mm256_loadu_pd((const double *)c);
  case TALLY_F32: return _mm256_cvtps_pd(_mm_loadu_ps((const float *)c));
  case TALLY_F16: return _mm256_cvtps_pd(_mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)c)));
  case TALLY_BF16: return _mm256_cvtps_pd(_mm_castsi128_ps(_mm_slli_epi32(_mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)c)), 16)));
  case TALLY_I32: return _mm256_cvtepi32_pd(_mm_loadu_si128((const __m128i *)c));
  case TALLY_U32: /* as i32 offset by 2^31, then the offset back: both steps exact */
    return _mm256_add_pd(_mm256_cvtepi32_pd(_mm_xor_si128(_mm_loadu_si128((const __m128i *)c), _mm_set1_epi32(INT32_MIN))),
                         _mm256_set1_pd(2147483648.0));
  case TALLY_I16: return _mm256_cvtepi32_pd(_mm_cvtepi16_epi32(_mm_loadl_epi64((const __m128i *)c)));
  case TALLY_U16: return _mm256_cvtepi32_pd(_mm_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)c)));
  case TALLY_I8: memcpy(&w, c, 4); return _mm256_cvtepi32_pd(_mm_cvtepi8_epi32(_mm_cvtsi32_si128(w)));
  case TALLY_U8: memcpy(&w, c, 4); return _mm256_cvtepi32_pd(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(w)));
  default: /* bool: any nonzero byte is 1 */
    memcpy(&w, c, 4);
    return _mm256_cvtepi32_pd(_mm_min_epu32(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(w)), _mm_set1_epi32(1)));
  }
}
#endif

/* Gather 8 (or 16) elements of size sz at stride s into a contiguous buffer. */
#define GATHER(buf, p, i, s, count, sz)                                          \
  do {                                                                           \
    for (int g_ = 0; g_ < (count); g_++)                                         \
      memcpy((char *)(buf) + g_ * (sz), (const char *)(p) + ((i) + (int64_t)g_) * (s) * (sz), (sz)); \
  } while (0)

/* Read logical elements i..i+count-1 (element j at p + j*s*sz) into buf, contiguous. */
#define READ_ELEMS(buf, p, i, s, count, sz)                                      \
  do {                                                                           \
    if ((s) == 1) memcpy((buf), (const char *)(p) + (i) * (sz), (size_t)(count) * (sz)); \
    else GATHER(buf, p, i, s, count, sz);                                        \
  } while (0)


/* ------------------------------------------------------------ typed loaders */

/* Does dtype dt sort by 32-bit keys (else 64-bit)? */
#define KEY32(dt) ((dt) != TALLY_F64 && (dt) != TALLY_I64 && (dt) != TALLY_U64)
#define IS_FLOAT(dt) ((dt) == TALLY_F16 || (dt) == TALLY_BF16 || (dt) == TALLY_F32 || (dt) == TALLY_F64)
#define IS_UNSIGNED(dt) ((dt) == TALLY_U8 || (dt) == TALLY_U16 || (dt) == TALLY_U32 || (dt) == TALLY_U64)

/* 8 elements as doubles (exact for every dtype but 64-bit integers beyond 2^53). */
AI vd load_vd(int dt, const void *p, int64_t i, int64_t s) {
  switch (dt) {
  case TALLY_F64: { vd v; READ_ELEMS(&v, p, i, s, 8, 8); return v; }
  case TALLY_F32: {
#if defined(__AVX512F__)
    /* GCC lowers the generic 8-float widening through 128-bit halves; one vcvtps2pd
     * does it. Same lanes, same values. */
    if (s == 1) return (vd)_mm512_cvtps_pd(_mm256_loadu_ps((const float *)p + i));
#elif TALLY_AVX2_HALVES
    if (s == 1)
      return vd_join(_mm256_cvtps_pd(_mm_loadu_ps((const float *)p + i)),
                     _mm256_cvtps_pd(_mm_loadu_ps((const float *)p + i + 4)));
#endif
    vf8 v; READ_ELEMS(&v, p, i, s, 8, 4); return __builtin_convertvector(v, vd); }
  case TALLY_F16:
  case TALLY_BF16: {
    uint16_t b[8];
    READ_ELEMS(b, p, i, s, 8, 2);
    vf8 f = dt == TALLY_F16 ? f16x8_to_vf8(b) : bf16x8_to_vf8(b);
#if defined(__AVX512F__)
    return (vd)_mm512_cvtps_pd((__m256)f); /* as for f32 above: one vcvtps2pd */
#else
    return __builtin_convertvector(f, vd);
#endif
  }
  case TALLY_BOOL: { typedef uint8_t v8 __attribute__((vector_size(8))); v8 b; READ_ELEMS(&b, p, i, s, 8, 1); b = (v8)(b != 0) & 1; return __builtin_convertvector(b, vd); }
  case TALLY_I8: { typedef int8_t v8 __attribute__((vector_size(8))); v8 b; READ_ELEMS(&b, p, i, s, 8, 1); return __builtin_convertvector(b, vd); }
  case TALLY_U8: { typedef uint8_t v8 __attribute__((vector_size(8))); v8 b; READ_ELEMS(&b, p, i, s, 8, 1); return __builtin_convertvector(b, vd); }
  case TALLY_I16: { typedef int16_t v8 __attribute__((vector_size(16))); v8 b; READ_ELEMS(&b, p, i, s, 8, 2); return __builtin_convertvector(b, vd); }
  case TALLY_U16: { typedef uint16_t v8 __attribute__((vector_size(16))); v8 b; READ_ELEMS(&b, p, i, s, 8, 2); return __builtin_convertvector(b, vd); }
  case TALLY_I32: { vi8 b; READ_ELEMS(&b, p, i, s, 8, 4); return __builtin_convertvector(b, vd); }
  case TALLY_U32: { vui8 b; READ_ELEMS(&b, p, i, s, 8, 4); return __builtin_convertvector(b, vd); }
  case TALLY_I64: { vl b; READ_ELEMS(&b, p, i, s, 8, 8); return __builtin_convertvector(b, vd); }
  default: { vul b; READ_ELEMS(&b, p, i, s, 8, 8); return __builtin_convertvector(b, vd); }
  }
}

/* 16 elements of a 16/32-bit float type as floats (FAST accumulation). */
AI vf load_vf(int dt, const void *p, int64_t i, int64_t s) {
  if (dt == TALLY_F32) { vf v; READ_ELEMS(&v, p, i, s, 16, 4); return v; }
#if defined(__AVX512F__)
  /* Two 8-float halves joined through memory cost a failed store forwarding per vector
   * (FAST f16 SUM at 49-58 GB/s on 16 Xeon threads, DEFAULT 88-201); one vcvtph2ps, or
   * one widening and shift for bf16, gives the same values in one register. */
  if (s == 1) {
    __m256i h = _mm256_loadu_si256((const __m256i *)((const uint16_t *)p + i));
    return dt == TALLY_F16 ? (vf)_mm512_cvtph_ps(h) : (vf)_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16);
  }
#endif
  uint16_t b[16];
  READ_ELEMS(b, p, i, s, 16, 2);
  vf8 lo = dt == TALLY_F16 ? f16x8_to_vf8(b) : bf16x8_to_vf8(b);
  vf8 hi = dt == TALLY_F16 ? f16x8_to_vf8(b + 8) : bf16x8_to_vf8(b + 8);
  vf v;
  memcpy(&v, &lo, 32);
  memcpy((char *)&v + 32, &hi, 32);
  return v;
}

/* 8 integer (or bool, as 0/1) elements as 64-bit lanes: sign- or zero-extended. */
AI vl load_vl(int dt, const void *p, int64_t i, int64_t s) {
  switch (dt) {
  case TALLY_BOOL: { typedef uint8_t v8 __attribute__((vector_size(8))); v8 b; READ_ELEMS(&b, p, i, s, 8, 1); b = (v8)(b != 0) & 1; return __builtin_convertvector(b, vl); }
  case TALLY_I8: { typedef int8_t v8 __attribute__((vector_size(8))); v8 b; READ_ELEMS(&b, p, i, s, 8, 1); return __builtin_convertvector(b, vl); }
  case TALLY_U8: { typedef uint8_t v8 __attribute__((vector_size(8))); v8 b; READ_ELEMS(&b, p, i, s, 8, 1); return __builtin_convertvector(b, vl); }
  case TALLY_I16: { typedef int16_t v8 __attribute__((vector_size(16))); v8 b; READ_ELEMS(&b, p, i, s, 8, 2); return __builtin_convertvector(b, vl); }
  case TALLY_U16: { typedef uint16_t v8 __attribute__((vector_size(16))); v8 b; READ_ELEMS(&b, p, i, s, 8, 2); return __builtin_convertvector(b, vl); }
  case TALLY_I32: { vi8 b; READ_ELEMS(&b, p, i, s, 8, 4); return __builtin_convertvector(b, vl); }
  case TALLY_U32: { vui8 b; READ_ELEMS(&b, p, i, s, 8, 4); return __builtin_convertvector(b, vl); }
  default: { vl b; READ_ELEMS(&b, p, i, s, 8, 8); return b; }
  }
}

/* Sort keys of 32-bit-key dtypes, 16 lanes: floats by their f32 bits (−0.0 < +0.0,
 * NaNs beyond ±Inf), u32 with its top bit flipped, the rest by value. */
AI vi f32bits_to_key(vi b) { return b ^ ((b >> 31) & 0x7fffffff); }

/* 16 small integers widened to 32-bit lanes. GCC lowers the generic byte-vector
 * conversion element by element; one vpmovzx/vpmovsx does it. */
AI vi widen16(int dt, const void *src) {
#if defined(__AVX512F__)
  __m128i b8 = _mm_loadu_si128((const __m128i *)src);
  switch (dt) {
  case TALLY_I8: return (vi)_mm512_cvtepi8_epi32(b8);
  case TALLY_U8: return (vi)_mm512_cvtepu8_epi32(b8);
  case TALLY_I16: return (vi)_mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)src));
  default: return (vi)_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)src));
  }
#elif TALLY_AVX2_HALVES
  const char *c = (const char *)src;
  __m256i lo, hi;
  switch (dt) {
  case TALLY_I8: lo = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)c)); hi = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(c + 8))); break;
  case TALLY_U8: lo = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)c)); hi = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(c + 8))); break;
  case TALLY_I16: lo = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)c)); hi = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(c + 16))); break;
  default: lo = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)c)); hi = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(c + 16))); break;
  }
  return vi_join(lo, hi);
#else
  vi v;
  for (int l = 0; l < 16; l++) {
    switch (dt) {
    case TALLY_I8: v[l] = ((const int8_t *)src)[l]; break;
    case TALLY_U8: v[l] = ((const uint8_t *)src)[l]; break;
    case TALLY_I16: { int16_t t; memcpy(&t, (const char *)src + 2 * l, 2); v[l] = t; break; }
    default: { uint16_t t; memcpy(&t, (const char *)src + 2 * l, 2); v[l] = t; break; }
    }
  }
  return v;
#endif
}

AI vi load_key32(int dt, const void *p, int64_t i, int64_t s) {
  if ((dt == TALLY_I8 || dt == TALLY_U8 || dt == TALLY_I16 || dt == TALLY_U16) && s == 1)
    return widen16(dt, (const char *)p + i * DT_SIZE(dt));
  switch (dt) {
  case TALLY_F32: { vi b; READ_ELEMS(&b, p, i, s, 16, 4); return f32bits_to_key(b); }
  case TALLY_F16: case TALLY_BF16: { vf f = load_vf(dt, p, i, s); vi b; memcpy(&b, &f, 64); return f32bits_to_key(b); }
  case TALLY_BOOL: { typedef uint8_t v16 __attribute__((vector_size(16))); v16 b; READ_ELEMS(&b, p, i, s, 16, 1); b = (v16)(b != 0) & 1; return __builtin_convertvector(b, vi); }
  case TALLY_I8: { typedef int8_t v16 __attribute__((vector_size(16))); v16 b; READ_ELEMS(&b, p, i, s, 16, 1); return __builtin_convertvector(b, vi); }
  case TALLY_U8: { typedef uint8_t v16 __attribute__((vector_size(16))); v16 b; READ_ELEMS(&b, p, i, s, 16, 1); return __builtin_convertvector(b, vi); }
  case TALLY_I16: { typedef int16_t v16 __attribute__((vector_size(32))); v16 b; READ_ELEMS(&b, p, i, s, 16, 2); return __builtin_convertvector(b, vi); }
  case TALLY_U16: { typedef uint16_t v16 __attribute__((vector_size(32))); v16 b; READ_ELEMS(&b, p, i, s, 16, 2); return __builtin_convertvector(b, vi); }
  case TALLY_I32: { vi b; READ_ELEMS(&b, p, i, s, 16, 4); return b; }
  default: /* U32 */ { vi b; READ_ELEMS(&b, p, i, s, 16, 4); return b ^ INT32_MIN; }
  }
}

AI vl load_key64(int dt, const void *p, int64_t i, int64_t s) {
  vl b;
  READ_ELEMS(&b, p, i, s, 8, 8);
  if (dt == TALLY_F64) return b ^ ((b >> 63) & INT64_MAX);
  if (dt == TALLY_U64) return b ^ INT64_MIN;
  return b;
}

/* The NaN test on keys: outside the keys of ±Inf. Only floats have NaN keys. */
#define KEYS_NAN32(dt, k) (IS_FLOAT(dt) ? ((k) > (vi){0} + 0x7f800000) | ((k) < (vi){0} + (int32_t)0x807fffff) : (vi){0})
#define KEYS_NAN64(dt, k) (IS_FLOAT(dt) ? ((k) > (vl){0} + 0x7ff0000000000000) | ((k) < (vl){0} + (int64_t)0x800fffffffffffff) : (vl){0})

/* Scalar reads, for tails and sequential loops. */
AI double rd_d(int dt, const void *p, int64_t j) {
  switch (dt) {
  case TALLY_F64: { double v; memcpy(&v, (const char *)p + 8 * j, 8); return v; }
  case TALLY_F32: { float v; memcpy(&v, (const char *)p + 4 * j, 4); return v; }
  case TALLY_F16: return f16_to_float(rd_u16(p, j));
  case TALLY_BF16: return bf16_to_float(rd_u16(p, j));
  case TALLY_BOOL: return ((const uint8_t *)p)[j] != 0;
  case TALLY_I8: return ((const int8_t *)p)[j];
  case TALLY_U8: return ((const uint8_t *)p)[j];
  case TALLY_I16: { int16_t v; memcpy(&v, (const char *)p + 2 * j, 2); return v; }
  case TALLY_U16: return rd_u16(p, j);
  case TALLY_I32: { int32_t v; memcpy(&v, (const char *)p + 4 * j, 4); return v; }
  case TALLY_U32: { uint32_t v; memcpy(&v, (const char *)p + 4 * j, 4); return v; }
  case TALLY_I64: { int64_t v; memcpy(&v, (const char *)p + 8 * j, 8); return (double)v; }
  default: { uint64_t v; memcpy(&v, (const char *)p + 8 * j, 8); return (double)v; }
  }
}

AI int64_t rd_l(int dt, const void *p, int64_t j) {
  switch (dt) {
  case TALLY_BOOL: return ((const uint8_t *)p)[j] != 0;
  case TALLY_I8: return ((const int8_t *)p)[j];
  case TALLY_U8: return ((const uint8_t *)p)[j];
  case TALLY_I16: { int16_t v; memcpy(&v, (const char *)p + 2 * j, 2); return v; }
  case TALLY_U16: return rd_u16(p, j);
  case TALLY_I32: { int32_t v; memcpy(&v, (const char *)p + 4 * j, 4); return v; }
  case TALLY_U32: { uint32_t v; memcpy(&v, (const char *)p + 4 * j, 4); return v; }
  default: { int64_t v; memcpy(&v, (const char *)p + 8 * j, 8); return v; }
  }
}

AI float rd_f(int dt, const void *p, int64_t j) {
  if (dt == TALLY_F32) { float v; memcpy(&v, (const char *)p + 4 * j, 4); return v; }
  return dt == TALLY_F16 ? f16_to_float(rd_u16(p, j)) : bf16_to_float(rd_u16(p, j));
}

AI int64_t rd_key(int dt, const void *p, int64_t j) {
  if (dt == TALLY_F64) { int64_t b; memcpy(&b, (const char *)p + 8 * j, 8); return b ^ ((b >> 63) & INT64_MAX); }
  if (dt == TALLY_F32 || dt == TALLY_F16 || dt == TALLY_BF16) {
    float f = rd_f(dt, p, j);
    int32_t b;
    memcpy(&b, &f, 4);
    return b ^ ((b >> 31) & 0x7fffffff);
  }
  if (dt == TALLY_U32) return (int32_t)((uint32_t)rd_l(dt, p, j) ^ 0x80000000u);
  if (dt == TALLY_U64) return rd_l(dt, p, j) ^ INT64_MIN;
  return rd_l(dt, p, j);
}

#endif

/* Vector kernels of the CPU scan's exact ops, compiled once per ISA (TALLY_ISA) like
 * scan_simd.c: integer SUM and PROD (modulo 2^64), integer MIN and MAX, and float MIN and
 * MAX by order keys (scan_kern.c), over the full vectors of a contiguous run.
 *
 * These ops are exact and commutative, so any grouping gives the same bits as the scalar
 * kernels' one accumulator in index order (RUN_KERNEL_C): each vector's inclusive prefix
 * by log2(lanes) Hillis–Steele steps (the vector and itself shifted up by 1, 2, 4, ...
 * lanes, the identity shifted in), then the running value applied to every lane. The
 * running value is kept in every lane, and moved on by the vector's last prefix lane, so
 * its chain is one operation a vector. The scalar kernels ran one element a step: at 2^26
 * on 2 threads u8 MIN reached 0.14 x a copy, f32 MIN 0.21, i32 PROD 0.61.
 *
 * Lanes are as narrow as the values allow: MIN and MAX of a dtype in its own width (64
 * u8 lanes in a 64-byte vector), float keys in the float's width (a NaN's key and the
 * identity's, the 64-bit kernels' extremes, become the lane type's extremes, which no
 * value's key reaches: -NaN's bits would key to it, but a NaN never goes through the
 * key); SUM and PROD in u64 lanes, the results' width. */
#include "scan.h"

#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#ifndef TALLY_ISA
#define TALLY_ISA scalar
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* Vector bytes: one register of the ISA (SSE2 for the scalar set). */
#if defined(__AVX512BW__)
#define VB 64
#define N1 64
#define N2 32
#define N4 16
#define N8 8
#elif defined(__AVX2__)
#define VB 32
#define N1 32
#define N2 16
#define N4 8
#define N8 4
#else
#define VB 16
#define N1 16
#define N2 8
#define N4 4
#define N8 2
#endif

#if VB > 16 /* (to the table at the end) */

/* Index lists of n lanes for __builtin_shufflevector: F(j, k, n) for j = b, b+1, ... */
#define SEQ1(F, b, k, n) F(b, k, n)
#define SEQ2(F, b, k, n) SEQ1(F, b, k, n), SEQ1(F, (b) + 1, k, n)
#define SEQ4(F, b, k, n) SEQ2(F, b, k, n), SEQ2(F, (b) + 2, k, n)
#define SEQ8(F, b, k, n) SEQ4(F, b, k, n), SEQ4(F, (b) + 4, k, n)
#define SEQ16(F, b, k, n) SEQ8(F, b, k, n), SEQ8(F, (b) + 8, k, n)
#define SEQ32(F, b, k, n) SEQ16(F, b, k, n), SEQ16(F, (b) + 16, k, n)
#define SEQ64(F, b, k, n) SEQ32(F, b, k, n), SEQ32(F, (b) + 32, k, n)
#define SEQ(n) CAT(SEQ, n)
#define SHI(j, k, n) ((j) < (k) ? (n) + (j) : (j) - (k))
#define LASTI(j, k, n) ((n) - 1)
/* v shifted up by k lanes, the lanes below k from f; every lane of v its last */
#define VSH(v, f, k, n) __builtin_shufflevector(v, f, SEQ(n)(SHI, 0, k, n))
#define VLAST(v, n) __builtin_shufflevector(v, v, SEQ(n)(LASTI, 0, 0, n))
/* v rotated down by k lanes (lane j from lane j + k mod n) */
#define ROTI(j, k, n) (((j) + (k)) % (n))
#define VROT(v, k, n) __builtin_shufflevector(v, v, SEQ(n)(ROTI, 0, k, n))
/* Every lane of v folded into lane 0 (then into all lanes), log2(n) steps: pass 1 runs on
 * pieces of 256 elements, and a lane-by-lane fold of 64 u8 lanes cost more than the
 * piece's loads. */
#define VFOLD(v, n, OPV)                               \
  do {                                                 \
    if ((n) > 32) v = OPV(v, VROT(v, 32, n));          \
    if ((n) > 16) v = OPV(v, VROT(v, 16, n));          \
    if ((n) > 8) v = OPV(v, VROT(v, 8, n));            \
    if ((n) > 4) v = OPV(v, VROT(v, 4, n));            \
    if ((n) > 2) v = OPV(v, VROT(v, 2, n));            \
    v = OPV(v, VROT(v, 1, n));                         \
  } while (0)

/* Lane selects (GCC's vector ?: is C++ only): m all ones where x is taken. */
#define VSEL(m, x, y) ((__typeof__(y))(((__typeof__(m))(x) & (m)) | ((__typeof__(m))(y) & ~(m))))
#define V_ADD(a, b) ((a) + (b))
#define V_MUL(a, b) ((a) * (b))
#define V_MIN(a, b) VSEL((b) < (a), b, a)
#define V_MAX(a, b) VSEL((b) > (a), b, a)
/* MIN and MAX of each lane type by the ISA's instructions where it has them (a compare
 * and a masked move otherwise: GCC does not make vpminsd of the select) */
#define MM_(F, W, a, b) ((__typeof__(a))F((W)(a), (W)(b)))
#if VB == 64
#define VMM_(mm, SUF, a, b) MM_(_mm512_##mm##_##SUF, __m512i, a, b)
#define HAVE_MM64 1
#else
#define VMM_(mm, SUF, a, b) MM_(_mm256_##mm##_##SUF, __m256i, a, b)
#define HAVE_MM64 0 /* (AVX2 has no 64-bit minimum) */
#endif
#define V_MIN_i8(a, b) VMM_(min, epi8, a, b)
#define V_MAX_i8(a, b) VMM_(max, epi8, a, b)
#define V_MIN_u8(a, b) VMM_(min, epu8, a, b)
#define V_MAX_u8(a, b) VMM_(max, epu8, a, b)
#define V_MIN_i16(a, b) VMM_(min, epi16, a, b)
#define V_MAX_i16(a, b) VMM_(max, epi16, a, b)
#define V_MIN_u16(a, b) VMM_(min, epu16, a, b)
#define V_MAX_u16(a, b) VMM_(max, epu16, a, b)
#define V_MIN_i32(a, b) VMM_(min, epi32, a, b)
#define V_MAX_i32(a, b) VMM_(max, epi32, a, b)
#define V_MIN_u32(a, b) VMM_(min, epu32, a, b)
#define V_MAX_u32(a, b) VMM_(max, epu32, a, b)
#if HAVE_MM64
#define V_MIN_i64(a, b) VMM_(min, epi64, a, b)
#define V_MAX_i64(a, b) VMM_(max, epi64, a, b)
#define V_MIN_u64(a, b) VMM_(min, epu64, a, b)
#define V_MAX_u64(a, b) VMM_(max, epu64, a, b)
#else
#define V_MIN_i64 V_MIN
#define V_MAX_i64 V_MAX
#define V_MIN_u64 V_MIN
#define V_MAX_u64 V_MAX
#endif
#define V_MIN_b V_MIN_u8
#define V_MAX_b V_MAX_u8
#define S_ADD(a, b) ((a) + (b))
#define S_MUL(a, b) ((a) * (b))
#define S_MIN(a, b) ((b) < (a) ? (b) : (a))
#define S_MAX(a, b) ((b) > (a) ? (b) : (a))

/* The inclusive prefix of the n lanes of v, the identity vector f shifted in. */
#define VPREFIX(v, f, n, OPV)                          \
  do {                                                 \
    v = OPV(v, VSH(v, f, 1, n));                       \
    if ((n) > 2) v = OPV(v, VSH(v, f, 2, n));          \
    if ((n) > 4) v = OPV(v, VSH(v, f, 4, n));          \
    if ((n) > 8) v = OPV(v, VSH(v, f, 8, n));          \
    if ((n) > 16) v = OPV(v, VSH(v, f, 16, n));        \
    if ((n) > 32) v = OPV(v, VSH(v, f, 32, n));        \
  } while (0)

/* Whether every lane of vectors a and b holds the same bits. */
#if VB == 64
#define VSAME(a, b) (_mm512_cmpneq_epi8_mask((__m512i)(a), (__m512i)(b)) == 0)
#else
#define VSAME(a, b) (_mm256_movemask_epi8(_mm256_cmpeq_epi8((__m256i)(a), (__m256i)(b))) == -1)
#endif

/* A tally__scan_simd_fn: the full vectors of [0, m) (n lanes of L each). *sp, *tp: the
 * running value and the total as the scalar kernel keeps them (A: int64_t or uint64_t),
 * tp NULL: no total. LOADV(V, i) gives the lanes of elements i.., OUTV(V, r) the bits
 * that results r store as (both may use kc, the call's constants); TO_L, FROM_L map an A
 * value to a lane and back; ID is the identity lane; OPV the op on vectors, OPS on
 * scalars.
 *
 * IDEM (MIN and MAX: x ⊕ x = x, and x ⊕ y is x or y): a vector none of whose lanes beats
 * the running value s (v ⊕ s = s in every lane) has every result s, inclusive or
 * exclusive, and leaves s as it is: it is stored as s's bits, without its prefix. The
 * running value settles fast on most data (a 1-byte type's can change at most 255 times a
 * run), and then every vector takes this path: a load, the op, a compare and a store
 * instead of log2(n) shuffle steps. Where every vector holds a new extreme (sorted input
 * of a 4- or 8-byte type, or of a 2-byte one up to about 2^21 elements) the test costs
 * two operations a vector more. */
#define EXACT_KERNEL(NAME, L, n, A, ID, TO_L, FROM_L, LOADV, OUTV, OPV, OPS, IDEM)           \
  static int64_t NAME(const tally__scan_args *g, const char *x, char *o, int64_t m, void *sp, \
                      void *tp, int write) {                                                  \
    typedef L V __attribute__((vector_size(VB)));                                            \
    const kconst kc = kconst_of(g);                                                           \
    (void)kc;                                                                                 \
    const L idl = (L)(ID);                                                                    \
    const V id = (V){} + idl;                                                                 \
    A s0, t0 = 0;                                                                             \
    memcpy(&s0, sp, sizeof s0);                                                               \
    if (tp) memcpy(&t0, tp, sizeof t0);                                                       \
    V s = (V){} + (L)TO_L(s0), tv = id;                                                       \
    int64_t i = 0;                                                                            \
    if (!write) {                                                                             \
      V t2 = id;                                                                              \
      for (; i + 2 * (n) <= m; i += 2 * (n)) {                                                \
        tv = OPV(tv, LOADV(V, i));                                                            \
        t2 = OPV(t2, LOADV(V, i + (n)));                                                      \
      }                                                                                       \
      for (; i + (n) <= m; i += (n)) tv = OPV(tv, LOADV(V, i));                               \
      tv = OPV(tv, t2);                                                                       \
    } else {                                                                                  \
      const int excl = g->exclusive;                                                          \
      V sb = s;     /* s as stored, once sb_ok */                                             \
      int sb_ok = 0; /* (mapped when needed: sorted data would map it every vector) */        \
      for (; i + (n) <= m; i += (n)) {                                                        \
        V v = LOADV(V, i);                                                                    \
        if (tp) tv = OPV(tv, v);                                                              \
        if ((IDEM) && VSAME(OPV(v, s), s)) {                                                  \
          if (!sb_ok) sb = OUTV(V, s), sb_ok = 1;                                             \
          ST_NATIVE(V, i, sb);                                                                \
          continue;                                                                           \
        }                                                                                     \
        VPREFIX(v, id, n, OPV);                                                               \
        V r = OUTV(V, OPV(excl ? VSH(v, id, 1, n) : v, s));                                   \
        ST_NATIVE(V, i, r);                                                                   \
        s = OPV(s, VLAST(v, n));                                                              \
        sb_ok = 0;                                                                            \
      }                                                                                       \
      memcpy(sp, &(A){FROM_L(s[0])}, sizeof(A));                                              \
    }                                                                                         \
    if (tp) {                                                                                 \
      VFOLD(tv, n, OPV);                                                                      \
      t0 = OPS(t0, (A)FROM_L(tv[0]));                                                         \
      memcpy(tp, &t0, sizeof t0);                                                             \
    }                                                                                         \
    return i;                                                                                 \
  }

/* Per-call constants of the float keys: the NaN rule. */
typedef struct {
  int ign;
} kconst;
static inline kconst kconst_of(const tally__scan_args *g) { return (kconst){g->ignore_nan}; }

#define NOMAP(v) (v)
#define OUT_NATIVE(V, r) (r)
#define LD_NATIVE(V, i) ({ V v_; memcpy(&v_, x + (i) * (int64_t)sizeof v_[0], sizeof v_); v_; })
#define ST_NATIVE(V, i, r) memcpy(o + (i) * (int64_t)sizeof(r)[0], &(r), sizeof(r))
#define LD_BOOL(V, i) ({ V u_ = LD_NATIVE(V, i); (V)(u_ != 0) & 1; })

/* ------------------------------------------------------------ integer MIN, MAX */

#define INT_MM(SUF, L, n, A, LO, HI, LOADV)                                                  \
  EXACT_KERNEL(min_##SUF, L, n, A, HI, NOMAP, NOMAP, LOADV, OUT_NATIVE, V_MIN_##SUF, S_MIN, 1) \
  EXACT_KERNEL(max_##SUF, L, n, A, LO, NOMAP, NOMAP, LOADV, OUT_NATIVE, V_MAX_##SUF, S_MAX, 1)
INT_MM(b, uint8_t, N1, uint64_t, 0, 1, LD_BOOL)
INT_MM(i8, int8_t, N1, int64_t, INT8_MIN, INT8_MAX, LD_NATIVE)
INT_MM(i16, int16_t, N2, int64_t, INT16_MIN, INT16_MAX, LD_NATIVE)
INT_MM(i32, int32_t, N4, int64_t, INT32_MIN, INT32_MAX, LD_NATIVE)
INT_MM(i64, int64_t, N8, int64_t, INT64_MIN, INT64_MAX, LD_NATIVE)
INT_MM(u8, uint8_t, N1, uint64_t, 0, UINT8_MAX, LD_NATIVE)
INT_MM(u16, uint16_t, N2, uint64_t, 0, UINT16_MAX, LD_NATIVE)
INT_MM(u32, uint32_t, N4, uint64_t, 0, UINT32_MAX, LD_NATIVE)
INT_MM(u64, uint64_t, N8, uint64_t, 0, UINT64_MAX, LD_NATIVE)

/* ------------------------------------------------------------ integer SUM, PROD */

/* N8 elements of a narrower integer at element i, each as a u64 lane (sign-extended
 * from signed types): by the ISA's widening loads (vpmovzx/sx); GCC's convertvector of a
 * vector of 8 bytes went through general registers, byte by byte (u8 SUM ran slower
 * than the scalar kernel). */
#if VB == 64
#define LDW_(CVT, LOAD, S, i) (V) CVT(LOAD((const void *)(x + (i) * (int64_t)sizeof(S))))
#define LDW_i8(V, i) LDW_(_mm512_cvtepi8_epi64, ld_lo8, int8_t, i)
#define LDW_u8(V, i) LDW_(_mm512_cvtepu8_epi64, ld_lo8, uint8_t, i)
#define LDW_i16(V, i) LDW_(_mm512_cvtepi16_epi64, ld_16, int16_t, i)
#define LDW_u16(V, i) LDW_(_mm512_cvtepu16_epi64, ld_16, uint16_t, i)
#define LDW_i32(V, i) LDW_(_mm512_cvtepi32_epi64, ld_32, int32_t, i)
#define LDW_u32(V, i) LDW_(_mm512_cvtepu32_epi64, ld_32, uint32_t, i)
static inline __m128i ld_lo8(const void *p) { return _mm_loadl_epi64((const __m128i *)p); }
static inline __m128i ld_16(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
static inline __m256i ld_32(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
#elif VB == 32
#define LDW_(CVT, LOAD, S, i) (V) CVT(LOAD((const void *)(x + (i) * (int64_t)sizeof(S))))
#define LDW_i8(V, i) LDW_(_mm256_cvtepi8_epi64, ld_lo4, int8_t, i)
#define LDW_u8(V, i) LDW_(_mm256_cvtepu8_epi64, ld_lo4, uint8_t, i)
#define LDW_i16(V, i) LDW_(_mm256_cvtepi16_epi64, ld_lo8, int16_t, i)
#define LDW_u16(V, i) LDW_(_mm256_cvtepu16_epi64, ld_lo8, uint16_t, i)
#define LDW_i32(V, i) LDW_(_mm256_cvtepi32_epi64, ld_16, int32_t, i)
#define LDW_u32(V, i) LDW_(_mm256_cvtepu32_epi64, ld_16, uint32_t, i)
static inline __m128i ld_lo4(const void *p) { int32_t v; memcpy(&v, p, 4); return _mm_cvtsi32_si128(v); }
static inline __m128i ld_lo8(const void *p) { return _mm_loadl_epi64((const __m128i *)p); }
static inline __m128i ld_16(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
#endif
#define LDW_i64(V, i) LD_NATIVE(V, i)
#define LDW_u64(V, i) LD_NATIVE(V, i)
#define LDW_b(V, i) ({ V w_ = LDW_u8(V, i); (V)(w_ != 0) & 1; })

#define INT_SP(SUF)                                                                          \
  EXACT_KERNEL(sum_##SUF, uint64_t, N8, uint64_t, 0, NOMAP, NOMAP, LDW_##SUF, OUT_NATIVE,   \
               V_ADD, S_ADD, 0)                                                              \
  EXACT_KERNEL(prod_##SUF, uint64_t, N8, uint64_t, 1, NOMAP, NOMAP, LDW_##SUF, OUT_NATIVE,  \
               V_MUL, S_MUL, 0)
INT_SP(b)
INT_SP(i8)
INT_SP(i16)
INT_SP(i32)
INT_SP(i64)
INT_SP(u8)
INT_SP(u16)
INT_SP(u32)
INT_SP(u64)

/* ------------------------------------------------------------ float MIN, MAX by keys */

/* As scan_kern.c's fkey, key_in and key_out, lane by lane in the float's width W (the
 * lanes signed): the key b ^ ((b >> (W-1)) & MAG); a NaN (magnitude above Inf's) keys
 * past every value on the winning side (KNAN: MIN's is the lane minimum), or, ignored, to
 * the identity (KNONE, the other extreme); a result maps back the same way, the NaN key
 * to the dtype's quiet NaN, the identity's to it too under NAN_IGNORE (nothing but NaNs
 * seen), else to +Inf (MIN) or -Inf (MAX). */
/* Lanes of W bits where a > c (a == c) take x, the others y. AVX-512: a compare into a
 * mask register and a blend (GCC made four operations of the generic select there: f32
 * MIN ran slower than with AVX2). */
#if VB == 64
#define KSEL_(CMP, W, a, c, x, y)                                                            \
  ((__typeof__(y))_mm512_mask_blend_epi##W(_mm512_##CMP##_epi##W##_mask((__m512i)(a), (__m512i)(c)), \
                                           (__m512i)(y), (__m512i)(x)))
#define KSEL_GT(W, a, c, x, y) KSEL_(cmpgt, W, a, c, x, y)
#define KSEL_EQ(W, a, c, x, y) KSEL_(cmpeq, W, a, c, x, y)
#else
#define KSEL_GT(W, a, c, x, y) VSEL((a) > (c), x, y)
#define KSEL_EQ(W, a, c, x, y) VSEL((a) == (c), x, y)
#endif
#define KEY_LD(V, i, L, W, MAG, INF, QNAN, KNAN, KNONE)                                      \
  ({                                                                                         \
    V b_ = LD_NATIVE(V, i);                                                                  \
    V k_ = b_ ^ ((b_ >> ((W) - 1)) & (L)(MAG));                                              \
    KSEL_GT(W, b_ & (L)(MAG), (V){} + (L)(INF), (V){} + (L)(kc.ign ? (KNONE) : (KNAN)), k_); \
  })
#define KEY_OUT(V, r, L, W, MAG, INF, QNAN, MN, KNAN, KNONE)                                \
  ({                                                                                         \
    V k_ = (r);                                                                              \
    V b_ = k_ ^ ((k_ >> ((W) - 1)) & (L)(MAG));                                              \
    const L none_ = (L)(kc.ign ? (QNAN) : (MN) ? (INF) : (INF) | ((uint64_t)1 << ((W) - 1))); \
    b_ = KSEL_EQ(W, k_, (V){} + (L)(KNAN), (V){} + (L)(QNAN), b_);                           \
    b_ = KSEL_EQ(W, k_, (V){} + (L)(KNONE), (V){} + none_, b_);                              \
    b_;                                                                                      \
  })
/* (one more expansion, so that the ARGS lists below split into arguments) */
#define KLD(V, i, ...) KEY_LD(V, i, __VA_ARGS__)
#define KOUT(V, r, ...) KEY_OUT(V, r, __VA_ARGS__)
/* L, W, MAG, INF, QNAN of each float dtype */
#define F16_ARGS int16_t, 16, 0x7fff, 0x7c00, 0x7e00
#define BF16_ARGS int16_t, 16, 0x7fff, 0x7f80, 0x7fc0
#define F32_ARGS int32_t, 32, 0x7fffffff, 0x7f800000, 0x7fc00000
#define F64_ARGS int64_t, 64, 0x7fffffffffffffff, 0x7ff0000000000000, 0x7ff8000000000000

/* A 64-bit key (the scalar kernels' carries) as a lane and back: the 64-bit extremes
 * (NaN's key and the identity's) are the lane's. */
#define FLOAT_MM(SUF, L, LS, n, LMIN, LMAX)                                                  \
  static inline L lane_of_##SUF(int64_t k) {                                                 \
    return k == INT64_MIN ? (L)(LMIN) : k == INT64_MAX ? (L)(LMAX) : (L)k;                   \
  }                                                                                          \
  static inline int64_t key_of_##SUF(L l) {                                                  \
    return l == (L)(LMIN) ? INT64_MIN : l == (L)(LMAX) ? INT64_MAX : (int64_t)l;             \
  }                                                                                          \
  EXACT_KERNEL(min_##SUF, L, n, int64_t, LMAX, lane_of_##SUF, key_of_##SUF, MIN_LD_##SUF,   \
               MIN_OUT_##SUF, V_MIN_##LS, S_MIN, 1)                                          \
  EXACT_KERNEL(max_##SUF, L, n, int64_t, LMIN, lane_of_##SUF, key_of_##SUF, MAX_LD_##SUF,   \
               MAX_OUT_##SUF, V_MAX_##LS, S_MAX, 1)
/* MIN: a NaN keys to the lane minimum, the identity is the maximum; MAX the other way */
#define MIN_LD_f16(V, i) KLD(V, i, F16_ARGS, INT16_MIN, INT16_MAX)
#define MAX_LD_f16(V, i) KLD(V, i, F16_ARGS, INT16_MAX, INT16_MIN)
#define MIN_OUT_f16(V, r) KOUT(V, r, F16_ARGS, 1, INT16_MIN, INT16_MAX)
#define MAX_OUT_f16(V, r) KOUT(V, r, F16_ARGS, 0, INT16_MAX, INT16_MIN)
#define MIN_LD_bf16(V, i) KLD(V, i, BF16_ARGS, INT16_MIN, INT16_MAX)
#define MAX_LD_bf16(V, i) KLD(V, i, BF16_ARGS, INT16_MAX, INT16_MIN)
#define MIN_OUT_bf16(V, r) KOUT(V, r, BF16_ARGS, 1, INT16_MIN, INT16_MAX)
#define MAX_OUT_bf16(V, r) KOUT(V, r, BF16_ARGS, 0, INT16_MAX, INT16_MIN)
#define MIN_LD_f32(V, i) KLD(V, i, F32_ARGS, INT32_MIN, INT32_MAX)
#define MAX_LD_f32(V, i) KLD(V, i, F32_ARGS, INT32_MAX, INT32_MIN)
#define MIN_OUT_f32(V, r) KOUT(V, r, F32_ARGS, 1, INT32_MIN, INT32_MAX)
#define MAX_OUT_f32(V, r) KOUT(V, r, F32_ARGS, 0, INT32_MAX, INT32_MIN)
#define MIN_LD_f64(V, i) KLD(V, i, F64_ARGS, INT64_MIN, INT64_MAX)
#define MAX_LD_f64(V, i) KLD(V, i, F64_ARGS, INT64_MAX, INT64_MIN)
#define MIN_OUT_f64(V, r) KOUT(V, r, F64_ARGS, 1, INT64_MIN, INT64_MAX)
#define MAX_OUT_f64(V, r) KOUT(V, r, F64_ARGS, 0, INT64_MAX, INT64_MIN)
FLOAT_MM(f16, int16_t, i16, N2, INT16_MIN, INT16_MAX)
FLOAT_MM(bf16, int16_t, i16, N2, INT16_MIN, INT16_MAX)
FLOAT_MM(f32, int32_t, i32, N4, INT32_MIN, INT32_MAX)
FLOAT_MM(f64, int64_t, i64, N8, INT64_MIN, INT64_MAX)

/* ------------------------------------------------------------ the table */

#define BY_DT(PRE, dt)                                                                       \
  ((dt) == TALLY_BOOL ? PRE##_b : (dt) == TALLY_I8 ? PRE##_i8 : (dt) == TALLY_I16 ? PRE##_i16 \
   : (dt) == TALLY_I32 ? PRE##_i32 : (dt) == TALLY_I64 ? PRE##_i64 : (dt) == TALLY_U8 ? PRE##_u8 \
   : (dt) == TALLY_U16 ? PRE##_u16 : (dt) == TALLY_U32 ? PRE##_u32 : (dt) == TALLY_U64 ? PRE##_u64 \
   : NULL)
#define BY_FDT(PRE, dt)                                                                      \
  ((dt) == TALLY_F16 ? PRE##_f16 : (dt) == TALLY_BF16 ? PRE##_bf16 : (dt) == TALLY_F32 ? PRE##_f32 \
   : (dt) == TALLY_F64 ? PRE##_f64 : NULL)

tally__scan_simd_fn CAT(tally__scan_exact_, TALLY_ISA)(tally_op op, tally_dtype dt) {
  tally__scan_simd_fn f = NULL;
  if (op == TALLY_MIN) f = (f = BY_DT(min, dt)) ? f : BY_FDT(min, dt);
  else if (op == TALLY_MAX) f = (f = BY_DT(max, dt)) ? f : BY_FDT(max, dt);
  else if (op == TALLY_SUM) f = BY_DT(sum, dt);
  else if (op == TALLY_PROD) f = BY_DT(prod, dt);
  return f;
}

#else
/* SSE2 (the scalar set, for CPUs without AVX2): no kernels. Its 16-byte vectors lack the
 * lane shifts, the widening loads and most minimums; measured slower than the scalar
 * kernels (u8 MIN 2.4 ns an element in cache against about 1, f64 MIN 4.9). */
tally__scan_simd_fn CAT(tally__scan_exact_, TALLY_ISA)(tally_op op, tally_dtype dt) {
  (void)op, (void)dt;
  return NULL;
}
#endif

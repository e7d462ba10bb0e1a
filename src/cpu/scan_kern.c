/* Typed kernels of the CPU scan: one per (op, dtype, accumulator), written once as macros.
 *
 * Three shapes. Exact ops (integers, MIN, MAX, integer AFFINE) run one accumulator
 * through the run in index order. Float SUM, PROD and AFFINE run in blocks of 8
 * (BLOCK_KERNEL, AFF_BLOCK_KERNEL below): the chain that carries the running value costs
 * one operation per 8 elements instead of one per element, and the block's own prefix
 * is what an 8-lane vector computes, so contiguous data runs vector code (scan_simd.c,
 * scan_affine.c) with the same bits as this scalar code; the rounding is the same on
 * every ISA (no contraction). The compensated f64 SUM
 * (DEFAULT) runs blocks of 256 in sequential lanes (scan_dd.h; vector code scan_dd.c). */
#include "scan.h"
#include "kern_load.h" /* f16_to_float, bf16_to_float: inline (tally_f16_to_f32 is a call) */
#include "scan_dd.h"   /* dd, dd_add, the f64 DEFAULT sum's blocks */

#include <math.h>
#include <string.h>

/* ------------------------------------------------------------ accumulator types */

typedef struct { uint64_t a, b; } pu;          /* integer AFFINE (A, B) modulo 2^64 */
typedef struct { double a, b; } pd;            /* float AFFINE in f64 */
typedef struct { float a, b; } pf;             /* f32 AFFINE, FAST */

#define OP_ADD(g, a, b) ((a) + (b))
#define OP_MUL(g, a, b) ((a) * (b))
#define OP_MIN(g, a, b) ((b) < (a) ? (b) : (a))
#define OP_MAX(g, a, b) ((b) > (a) ? (b) : (a))
/* AFFINE: apply acc's map first, then x's: (A, B) then (a, b) gives (a·A, a·B + b). */
#define OP_AFF(T)                                                                     \
  static inline T aff_##T(T acc, T x) { return (T){x.a * acc.a, x.a * acc.b + x.b}; }
OP_AFF(pu)
OP_AFF(pd)
OP_AFF(pf)
#define OP_AFF_PU(g, a, b) aff_pu((a), (b))
#define OP_AFF_PD(g, a, b) aff_pd((a), (b))
#define OP_AFF_PF(g, a, b) aff_pf((a), (b))

/* ------------------------------------------------------------ loads and stores */

#define AT(p, i, step) ((p) + (i) * (step))
#define LD(T, p, i, step) (*(const T *)AT(p, i, step))
#define F16(p, i, s) f16_to_float(LD(uint16_t, p, i, s))
#define BF16(p, i, s) bf16_to_float(LD(uint16_t, p, i, s))

/* A float input value, NaN replaced by `neutral` under NAN_IGNORE. */
static inline double nz(const tally__scan_args *g, double v, double neutral) {
  return (g->ignore_nan && v != v) ? neutral : v;
}

/* ------------------------------------------------------------ kernel shapes */

#define KERNEL_HEAD(NAME, A)                                                               \
  static void NAME(const tally__scan_args *g, const char *x, const char *y, char *o,       \
                   int64_t m, tally__sacc *carry, tally__sacc *total, int write) {        \
    (void)y;                                                                               \
    A s, t;                                                                                \
    memcpy(&s, carry, sizeof s);                                                           \
    memcpy(&t, total, sizeof t);

#define KERNEL_TAIL                                                                        \
    memcpy(carry, &s, sizeof s);                                                           \
    memcpy(total, &t, sizeof t);                                                           \
  }

/* One accumulator in index order. total NULL (writing; tally__scan_impl.total_optional):
 * the run's total is not wanted, and not computed (the threaded chain has it from pass
 * 1): half the operations of pass 2. COMM: the op is exact and commutative (integer SUM
 * and PROD modulo 2^64, MIN and MAX of integers and keys), so any grouping gives the same
 * bits: pass 1 (the total alone) folds four interleaved accumulators, four dependency
 * chains instead of one. (Blocks of 4 for the writing passes too, each block's prefix
 * apart from the running value, measured slower: 2026-11-27, PERFORMANCE.md.) */
#define RUN_KERNEL(NAME, A, LOAD, STORE, OP) RUN_KERNEL_C(NAME, A, LOAD, STORE, OP, 0)
#define RUN_KERNEL_C(NAME, A, LOAD, STORE, OP, COMM)                                       \
  static void NAME(const tally__scan_args *g, const char *x, const char *y, char *o,       \
                   int64_t m, tally__sacc *carry, tally__sacc *total, int write) {        \
    (void)y;                                                                               \
    A s, t;                                                                                \
    memcpy(&s, carry, sizeof s);                                                           \
    if (total) memcpy(&t, total, sizeof t);                                                \
    else memset(&t, 0, sizeof t);                                                          \
    /* the full vectors first (scan_exact.c; AFFINE scan_affine.c): the same bits */     \
    const int64_t i0 = COMM && g->simd ? g->simd(g, x, o, m, &s, total ? &t : NULL, write)  \
                       : g->pair ? g->pair(g, x, y, o, m, &s, total ? &t : NULL, write) : 0;   \
  if (!write && COMM) {                                                                    \
    A t1, t2, t3;                                                                          \
    memcpy(&t1, &g->identity, sizeof t1);                                                  \
    t2 = t3 = t1;                                                                          \
    int64_t i = i0;                                                                        \
    for (; i + 4 <= m; i += 4) {                                                           \
      t = OP(g, t, LOAD(i));                                                               \
      t1 = OP(g, t1, LOAD(i + 1));                                                         \
      t2 = OP(g, t2, LOAD(i + 2));                                                         \
      t3 = OP(g, t3, LOAD(i + 3));                                                         \
    }                                                                                      \
    for (; i < m; i++) t = OP(g, t, LOAD(i));                                              \
    t = OP(g, OP(g, t, t1), OP(g, t2, t3));                                                \
  } else if (!write) {                                                                     \
    for (int64_t i = i0; i < m; i++) t = OP(g, t, LOAD(i));                                 \
  } else if (!total && g->exclusive) {                                                     \
    for (int64_t i = i0; i < m; i++) {                                                      \
      A v = LOAD(i);                                                                       \
      STORE(i, s);                                                                         \
      s = OP(g, s, v);                                                                     \
    }                                                                                      \
  } else if (!total) {                                                                     \
    for (int64_t i = i0; i < m; i++) {                                                      \
      s = OP(g, s, LOAD(i));                                                               \
      STORE(i, s);                                                                         \
    }                                                                                      \
  } else if (g->exclusive) {                                                               \
    for (int64_t i = i0; i < m; i++) {                                                      \
      A v = LOAD(i);                                                                       \
      STORE(i, s);                                                                         \
      s = OP(g, s, v);                                                                     \
      t = OP(g, t, v);                                                                     \
    }                                                                                      \
  } else {                                                                                 \
    for (int64_t i = i0; i < m; i++) {                                                      \
      A v = LOAD(i);                                                                       \
      s = OP(g, s, v);                                                                     \
      t = OP(g, t, v);                                                                     \
      STORE(i, s);                                                                         \
    }                                                                                      \
  }                                                                                        \
    memcpy(carry, &s, sizeof s);                                                           \
    if (total) memcpy(total, &t, sizeof t);                                                \
  }

/* The blocks of 8 from element i on (the last may be shorter): each block's prefix by
 * the Hillis–Steele steps, as an 8-lane vector computes it, y[j] = x[j-1] ⊕ x[j], z[j] =
 * y[j-2] ⊕ y[j], w[j] = z[j-4] ⊕ z[j], by COMB(earlier, later), a lane with no term k lanes
 * back EDGE(its value); then out[j] = s ⊕ w[j] (exclusive: out[0] = FIRST, out[j] = s ⊕
 * w[j-1]), s = s ⊕ w[b-1], and t likewise where TOT. Every load of a block comes before
 * its stores, so in place works. */
#define BLOCK_STEPS(A, LOAD, STORE, OP, COMB, EDGE, FIRST, TOT)                            \
  for (; i < m; i += 8) {                                                                  \
    int b = m - i < 8 ? (int)(m - i) : 8;                                                  \
    A w[8], z[8];                                                                          \
    for (int j = 0; j < b; j++) w[j] = LOAD(i + j);                                        \
    for (int j = b - 1; j >= 0; j--) w[j] = j >= 1 ? COMB(OP, w[j - 1], w[j]) : EDGE(OP, w[j]); \
    for (int j = 0; j < b; j++) z[j] = j >= 2 ? COMB(OP, w[j - 2], w[j]) : EDGE(OP, w[j]);  \
    for (int j = 0; j < b; j++) w[j] = j >= 4 ? COMB(OP, z[j - 4], z[j]) : EDGE(OP, z[j]);  \
    if (write) {                                                                           \
      if (g->exclusive) {                                                                  \
        STORE(i, FIRST);                                                                   \
        for (int j = 1; j < b; j++) STORE(i + j, OP(g, s, w[j - 1]));                      \
      } else {                                                                             \
        for (int j = 0; j < b; j++) STORE(i + j, OP(g, s, w[j]));                          \
      }                                                                                    \
    }                                                                                      \
    s = OP(g, s, w[b - 1]);                                                                \
    if (TOT) t = OP(g, t, w[b - 1]);                                                       \
  }

/* Float SUM and PROD: a term before the block's start is FILL (−0.0, which adds exactly
 * nothing, or 1.0), as the lanes a vector shifts in, and the later operand comes first,
 * as in the vector code (x86 keeps the first operand's NaN payload). A vector kernel of
 * the same steps (scan_simd.c, contiguous data) runs the full blocks first when g->simd
 * is set: the same bits. */
#define BLOCK_KERNEL(NAME, A, LOAD, STORE, OP, FILL)                                       \
  KERNEL_HEAD(NAME, A)                                                                     \
  const A f = FILL;                                                                        \
  int64_t i = !g->simd ? 0                                                                 \
              : !write && g->simd_reduce ? g->simd_reduce(g, x, o, m, &s, &t, 0)           \
                                         : g->simd(g, x, o, m, &s, &t, write);             \
  BLOCK_STEPS(A, LOAD, STORE, OP, COMB_LATER_FIRST, EDGE_FILL, OP(g, s, f), 1)             \
  KERNEL_TAIL
#define COMB_LATER_FIRST(OP, e, l) OP(g, l, e)
#define EDGE_FILL(OP, v) OP(g, v, f)

/* AFFINE of floats: the same blocks with the order of operands kept (the earlier map
 * first) and no fill: a lane with no term k lanes back keeps its value (composing with the
 * identity (1, 0) instead would make A·0 NaN for an infinite A, and -0.0 + +0.0 +0.0);
 * exclusive, out[0] = s. The full blocks of contiguous data in vector code (scan_affine.c,
 * g->pair): the same bits. Integer AFFINE (modulo 2^64) is exact and runs RUN_KERNEL, its
 * full blocks through g->pair too. The total may be NULL (tally__scan_impl.total_optional). */
#define AFF_BLOCK_KERNEL(NAME, A, LOAD, STORE, OP)                                         \
  static void NAME(const tally__scan_args *g, const char *x, const char *y, char *o,       \
                   int64_t m, tally__sacc *carry, tally__sacc *total, int write) {        \
    A s, t;                                                                                \
    memcpy(&s, carry, sizeof s);                                                           \
    memcpy(&t, total ? total : &g->identity, sizeof t);                                    \
    int64_t i = g->pair ? g->pair(g, x, y, o, m, &s, total ? &t : NULL, write) : 0;        \
    BLOCK_STEPS(A, LOAD, STORE, OP, COMB_EARLIER_FIRST, EDGE_KEEP, s, total)               \
    memcpy(carry, &s, sizeof s);                                                           \
    if (total) memcpy(total, &t, sizeof t);                                                \
  }
#define COMB_EARLIER_FIRST(OP, e, l) OP(g, e, l)
#define EDGE_KEEP(OP, v) (v)

/* ------------------------------------------------------------ integer SUM, PROD */

#define ST_U64(i, v) (*(uint64_t *)AT(o, i, g->bo0) = (v))
#define LD_S(T) (uint64_t)(int64_t)LD(T, x, i_, g->bx)
#define LD_U(T) (uint64_t)LD(T, x, i_, g->bx)

#define INT_SUMPROD(SUF, EXPR)                                                             \
  static inline uint64_t ld_##SUF(const tally__scan_args *g, const char *x, int64_t i_) { \
    return EXPR;                                                                           \
  }                                                                                        \
  RUN_KERNEL_C(sum_##SUF, uint64_t, LDX_##SUF, ST_U64, OP_ADD, 1)                         \
  RUN_KERNEL_C(prod_##SUF, uint64_t, LDX_##SUF, ST_U64, OP_MUL, 1)
#define LDX_b(i) ld_b(g, x, i)
#define LDX_i8(i) ld_i8(g, x, i)
#define LDX_i16(i) ld_i16(g, x, i)
#define LDX_i32(i) ld_i32(g, x, i)
#define LDX_i64(i) ld_i64(g, x, i)
#define LDX_u8(i) ld_u8(g, x, i)
#define LDX_u16(i) ld_u16(g, x, i)
#define LDX_u32(i) ld_u32(g, x, i)
#define LDX_u64(i) ld_u64(g, x, i)
INT_SUMPROD(b, (uint64_t)(LD(uint8_t, x, i_, g->bx) != 0))
INT_SUMPROD(i8, LD_S(int8_t))
INT_SUMPROD(i16, LD_S(int16_t))
INT_SUMPROD(i32, LD_S(int32_t))
INT_SUMPROD(i64, LD_S(int64_t))
INT_SUMPROD(u8, LD_U(uint8_t))
INT_SUMPROD(u16, LD_U(uint16_t))
INT_SUMPROD(u32, LD_U(uint32_t))
INT_SUMPROD(u64, LD_U(uint64_t))

/* ------------------------------------------------------------ integer MIN, MAX */

#define INT_MINMAX(SUF, A, T, EXPR)                                                        \
  static inline A ldm_##SUF(const tally__scan_args *g, const char *x, int64_t i_) {       \
    return (A)(EXPR);                                                                      \
  }                                                                                        \
  static inline void stm_##SUF(const tally__scan_args *g, char *o, int64_t i, A v) {      \
    *(T *)AT(o, i, g->bo0) = (T)v;                                                         \
  }                                                                                        \
  RUN_KERNEL_C(min_##SUF, A, LDM_##SUF, STM_##SUF, OP_MIN, 1)                             \
  RUN_KERNEL_C(max_##SUF, A, LDM_##SUF, STM_##SUF, OP_MAX, 1)
#define LDM_b(i) ldm_b(g, x, i)
#define LDM_i8(i) ldm_i8(g, x, i)
#define LDM_i16(i) ldm_i16(g, x, i)
#define LDM_i32(i) ldm_i32(g, x, i)
#define LDM_i64(i) ldm_i64(g, x, i)
#define LDM_u8(i) ldm_u8(g, x, i)
#define LDM_u16(i) ldm_u16(g, x, i)
#define LDM_u32(i) ldm_u32(g, x, i)
#define LDM_u64(i) ldm_u64(g, x, i)
#define STM_b(i, v) stm_b(g, o, i, v)
#define STM_i8(i, v) stm_i8(g, o, i, v)
#define STM_i16(i, v) stm_i16(g, o, i, v)
#define STM_i32(i, v) stm_i32(g, o, i, v)
#define STM_i64(i, v) stm_i64(g, o, i, v)
#define STM_u8(i, v) stm_u8(g, o, i, v)
#define STM_u16(i, v) stm_u16(g, o, i, v)
#define STM_u32(i, v) stm_u32(g, o, i, v)
#define STM_u64(i, v) stm_u64(g, o, i, v)
INT_MINMAX(b, uint64_t, uint8_t, LD(uint8_t, x, i_, g->bx) != 0)
INT_MINMAX(i8, int64_t, int8_t, LD(int8_t, x, i_, g->bx))
INT_MINMAX(i16, int64_t, int16_t, LD(int16_t, x, i_, g->bx))
INT_MINMAX(i32, int64_t, int32_t, LD(int32_t, x, i_, g->bx))
INT_MINMAX(i64, int64_t, int64_t, LD(int64_t, x, i_, g->bx))
INT_MINMAX(u8, uint64_t, uint8_t, LD(uint8_t, x, i_, g->bx))
INT_MINMAX(u16, uint64_t, uint16_t, LD(uint16_t, x, i_, g->bx))
INT_MINMAX(u32, uint64_t, uint32_t, LD(uint32_t, x, i_, g->bx))
INT_MINMAX(u64, uint64_t, uint64_t, LD(uint64_t, x, i_, g->bx))

/* ------------------------------------------------------------ integer AFFINE */

#define INT_AFFINE(SUF, EXPRA, EXPRB)                                                      \
  static inline pu lda_##SUF(const tally__scan_args *g, const char *x, const char *y,     \
                             int64_t i_) {                                                 \
    (void)y;                                                                               \
    return (pu){(uint64_t)(EXPRA), (uint64_t)(EXPRB)};                                     \
  }                                                                                        \
  RUN_KERNEL(aff_##SUF, pu, LDA_##SUF, ST_PU, OP_AFF_PU)
#define ST_PU(i, v)                                                                        \
  do {                                                                                     \
    pu v_ = (v);                                                                           \
    *(uint64_t *)AT(o, i, g->bo0) = v_.a;                                                  \
    *(uint64_t *)(AT(o, i, g->bo0) + g->bo1) = v_.b;                                       \
  } while (0)
#define LDA_i8(i) lda_i8(g, x, y, i)
#define LDA_i16(i) lda_i16(g, x, y, i)
#define LDA_i32(i) lda_i32(g, x, y, i)
#define LDA_i64(i) lda_i64(g, x, y, i)
#define LDA_u8(i) lda_u8(g, x, y, i)
#define LDA_u16(i) lda_u16(g, x, y, i)
#define LDA_u32(i) lda_u32(g, x, y, i)
#define LDA_u64(i) lda_u64(g, x, y, i)
#define SA(T) (int64_t)LD(T, x, i_, g->bx)
#define SB(T) (int64_t)LD(T, y, i_, g->by)
#define UA(T) LD(T, x, i_, g->bx)
#define UB(T) LD(T, y, i_, g->by)
INT_AFFINE(i8, SA(int8_t), SB(int8_t))
INT_AFFINE(i16, SA(int16_t), SB(int16_t))
INT_AFFINE(i32, SA(int32_t), SB(int32_t))
INT_AFFINE(i64, SA(int64_t), SB(int64_t))
INT_AFFINE(u8, UA(uint8_t), UB(uint8_t))
INT_AFFINE(u16, UA(uint16_t), UB(uint16_t))
INT_AFFINE(u32, UA(uint32_t), UB(uint32_t))
INT_AFFINE(u64, UA(uint64_t), UB(uint64_t))

/* ------------------------------------------------------------ float SUM, PROD */

/* Loads of a float dtype as double (exact), with the NaN rule. */
#define FLD(SUF, EXPR)                                                                      \
  static inline double fl_##SUF(const tally__scan_args *g, const char *x, int64_t i_,      \
                                double neutral) {                                           \
    return nz(g, (double)(EXPR), neutral);                                                  \
  }
FLD(f16, F16(x, i_, g->bx))
FLD(bf16, BF16(x, i_, g->bx))
FLD(f32, LD(float, x, i_, g->bx))
FLD(f64, LD(double, x, i_, g->bx))

#define ST_F32(i, v) (*(float *)AT(o, i, g->bo0) = (float)(v))
#define ST_F64(i, v) (*(double *)AT(o, i, g->bo0) = (v))

/* f16, bf16, f32: DEFAULT in f64 (each output rounded once to f32), FAST in f32. */
#define SMALL_FLOAT(SUF)                                                                    \
  static inline double ls0_##SUF(const tally__scan_args *g, const char *x, int64_t i) {    \
    return fl_##SUF(g, x, i, 0.0);                                                          \
  }                                                                                         \
  static inline double ls1_##SUF(const tally__scan_args *g, const char *x, int64_t i) {    \
    return fl_##SUF(g, x, i, 1.0);                                                          \
  }                                                                                         \
  BLOCK_KERNEL(sumd_##SUF, double, LS0_##SUF, ST_F32, OP_ADD, -0.0)                        \
  BLOCK_KERNEL(sumf_##SUF, float, (float)LS0_##SUF, ST_F32, OP_ADD, -0.0f)                  \
  BLOCK_KERNEL(prodd_##SUF, double, LS1_##SUF, ST_F32, OP_MUL, 1.0)                         \
  BLOCK_KERNEL(prodf_##SUF, float, (float)LS1_##SUF, ST_F32, OP_MUL, 1.0f)
#define LS0_f16(i) ls0_f16(g, x, i)
#define LS1_f16(i) ls1_f16(g, x, i)
#define LS0_bf16(i) ls0_bf16(g, x, i)
#define LS1_bf16(i) ls1_bf16(g, x, i)
#define LS0_f32(i) ls0_f32(g, x, i)
#define LS1_f32(i) ls1_f32(g, x, i)
SMALL_FLOAT(f16)
SMALL_FLOAT(bf16)
SMALL_FLOAT(f32)

/* f64: DEFAULT SUM compensated (double-double), FAST plain; PROD plain in both. */
#define LD64S(i) fl_f64(g, x, i, 0.0)
#define LD64P(i) fl_f64(g, x, i, 1.0)
/* DEFAULT SUM: scan_dd.h's blocks, the full ones of contiguous data in vector code
 * (scan_dd.c) when g->simd is set: the same bits. */
static void sumdd_f64(const tally__scan_args *g, const char *x, const char *y, char *o, int64_t m,
                      tally__sacc *carry, tally__sacc *total, int write) {
  (void)y;
  int64_t i = !g->simd ? 0
              : !write && g->simd_reduce ? g->simd_reduce(g, x, o, m, carry->d, total->d, 0)
                                         : g->simd(g, x, o, m, carry->d, total->d, write);
  dd s = {carry->d[0], carry->d[1]}, t = {total->d[0], total->d[1]};
  for (; i < m; i += DD_BLOCK) {
    int b = m - i < DD_BLOCK ? (int)(m - i) : DD_BLOCK;
    dd_block(x + i * g->bx, g->bx, o + i * g->bo0, g->bo0, b, &s, &t, write, g->exclusive,
             g->ignore_nan);
  }
  carry->d[0] = s.hi, carry->d[1] = s.lo;
  total->d[0] = t.hi, total->d[1] = t.lo;
}
BLOCK_KERNEL(sumd_f64, double, LD64S, ST_F64, OP_ADD, -0.0)
BLOCK_KERNEL(prodd_f64, double, LD64P, ST_F64, OP_MUL, 1.0)

/* ------------------------------------------------------------ float MIN, MAX */

/* By order keys: a float's bits as a signed integer that orders like the value (-0.0
 * below +0.0; its own inverse), so that the extremes are integer ones, with no branch an
 * element for NaN or signed zeros (IEEE 754-2019 minimum/maximum by comparisons ran at
 * 2.8 ns an f32 element on one thread, against the integers' 0.7; f16 and bf16 also
 * converted each element both ways). A NaN, propagated, takes the key past every value's
 * on the side that wins; ignored, the identity's (KEY_NONE). A result maps back to its
 * bits; a NaN result is the dtype's quiet NaN (its payload is unspecified), as on the GPU
 * (src/gpu/scan.clh). The carries are keys too (c_min_i, c_max_i). */
#define KEY_NONE(mn) ((mn) ? INT64_MAX : INT64_MIN)
#define KEY_NAN(mn) ((mn) ? INT64_MIN : INT64_MAX)

/* The key of w-bit float bits (w: 16, 32 or 64); of a key, its bits (the low w). The
 * reductions' rd_key (kern_load.h) keys f16 and bf16 by their f32 bits, which has no
 * cheap way back: here each width keys its own bits. */
static inline int64_t fkey(uint64_t bits, int w) {
  if (w == 64) {
    int64_t b = (int64_t)bits;
    return b ^ ((b >> 63) & INT64_MAX);
  }
  if (w == 32) {
    int32_t b = (int32_t)(uint32_t)bits;
    return b ^ ((b >> 31) & INT32_MAX);
  }
  int32_t b = (int16_t)(uint16_t)bits;
  return b ^ ((b >> 15) & 0x7fff);
}

/* An element's key; inf: the dtype's +Inf bits (above them, a NaN); ign: NaN ignored. */
static inline int64_t key_in(int ign, uint64_t bits, int w, uint64_t inf, int mn) {
  uint64_t mag = bits & (w == 64 ? (uint64_t)INT64_MAX : w == 32 ? 0x7fffffffu : 0x7fffu);
  if (mag > inf) return ign ? KEY_NONE(mn) : KEY_NAN(mn);
  return fkey(bits, w);
}

/* A result's bits: the identity's (ignoring NaN: NaN; else +Inf for MIN, -Inf for MAX). */
static inline uint64_t key_out(int ign, int64_t k, int w, uint64_t inf, uint64_t qnan, int mn) {
  if (k == KEY_NAN(mn)) return qnan;
  if (k == KEY_NONE(mn)) return ign ? qnan : mn ? inf : inf | (uint64_t)1 << (w - 1);
  return (uint64_t)fkey((uint64_t)k, w);
}

#define FKEYS(SUF, U, W, INF, QNAN)                                                        \
  static inline int64_t kin_##SUF(const tally__scan_args *g, const char *x, int64_t i,     \
                                  int mn) {                                                \
    return key_in(g->ignore_nan, LD(U, x, i, g->bx), W, INF, mn);                          \
  }                                                                                        \
  static inline void kout_##SUF(const tally__scan_args *g, char *o, int64_t i, int64_t k,  \
                                int mn) {                                                  \
    *(U *)AT(o, i, g->bo0) = (U)key_out(g->ignore_nan, k, W, INF, QNAN, mn);               \
  }
FKEYS(f16, uint16_t, 16, 0x7c00u, 0x7e00u)
FKEYS(bf16, uint16_t, 16, 0x7f80u, 0x7fc0u)
FKEYS(f32, uint32_t, 32, 0x7f800000u, 0x7fc00000u)
FKEYS(f64, uint64_t, 64, 0x7ff0000000000000u, 0x7ff8000000000000u)
#define KMIN_f16(i) kin_f16(g, x, i, 1)
#define KMAX_f16(i) kin_f16(g, x, i, 0)
#define KMIN_bf16(i) kin_bf16(g, x, i, 1)
#define KMAX_bf16(i) kin_bf16(g, x, i, 0)
#define KMIN_f32(i) kin_f32(g, x, i, 1)
#define KMAX_f32(i) kin_f32(g, x, i, 0)
#define KMIN_f64(i) kin_f64(g, x, i, 1)
#define KMAX_f64(i) kin_f64(g, x, i, 0)
#define OMIN_f16(i, k) kout_f16(g, o, i, k, 1)
#define OMAX_f16(i, k) kout_f16(g, o, i, k, 0)
#define OMIN_bf16(i, k) kout_bf16(g, o, i, k, 1)
#define OMAX_bf16(i, k) kout_bf16(g, o, i, k, 0)
#define OMIN_f32(i, k) kout_f32(g, o, i, k, 1)
#define OMAX_f32(i, k) kout_f32(g, o, i, k, 0)
#define OMIN_f64(i, k) kout_f64(g, o, i, k, 1)
#define OMAX_f64(i, k) kout_f64(g, o, i, k, 0)
RUN_KERNEL_C(min_f16, int64_t, KMIN_f16, OMIN_f16, OP_MIN, 1)
RUN_KERNEL_C(max_f16, int64_t, KMAX_f16, OMAX_f16, OP_MAX, 1)
RUN_KERNEL_C(min_bf16, int64_t, KMIN_bf16, OMIN_bf16, OP_MIN, 1)
RUN_KERNEL_C(max_bf16, int64_t, KMAX_bf16, OMAX_bf16, OP_MAX, 1)
RUN_KERNEL_C(min_f32, int64_t, KMIN_f32, OMIN_f32, OP_MIN, 1)
RUN_KERNEL_C(max_f32, int64_t, KMAX_f32, OMAX_f32, OP_MAX, 1)
RUN_KERNEL_C(min_f64, int64_t, KMIN_f64, OMIN_f64, OP_MIN, 1)
RUN_KERNEL_C(max_f64, int64_t, KMAX_f64, OMAX_f64, OP_MAX, 1)

/* ------------------------------------------------------------ float AFFINE */

#define AFF_LOADS(SUF, EXA, EXB)                                                            \
  static inline pd lpd_##SUF(const tally__scan_args *g, const char *x, const char *y,      \
                             int64_t i_) {                                                  \
    return (pd){(double)(EXA), (double)(EXB)};                                              \
  }
AFF_LOADS(f16, F16(x, i_, g->bx), F16(y, i_, g->by))
AFF_LOADS(bf16, BF16(x, i_, g->bx), BF16(y, i_, g->by))
AFF_LOADS(f32, LD(float, x, i_, g->bx), LD(float, y, i_, g->by))
AFF_LOADS(f64, LD(double, x, i_, g->bx), LD(double, y, i_, g->by))
#define ST_PD32(i, v)                                                                       \
  do {                                                                                      \
    pd v_ = (v);                                                                            \
    *(float *)AT(o, i, g->bo0) = (float)v_.a;                                               \
    *(float *)(AT(o, i, g->bo0) + g->bo1) = (float)v_.b;                                    \
  } while (0)
#define ST_PF32(i, v)                                                                       \
  do {                                                                                      \
    pf v_ = (v);                                                                            \
    *(float *)AT(o, i, g->bo0) = v_.a;                                                      \
    *(float *)(AT(o, i, g->bo0) + g->bo1) = v_.b;                                           \
  } while (0)
#define ST_PD64(i, v)                                                                       \
  do {                                                                                      \
    pd v_ = (v);                                                                            \
    *(double *)AT(o, i, g->bo0) = v_.a;                                                     \
    *(double *)(AT(o, i, g->bo0) + g->bo1) = v_.b;                                          \
  } while (0)
static inline pf to_pf(pd v) { return (pf){(float)v.a, (float)v.b}; }
#define LPD_f16(i) lpd_f16(g, x, y, i)
#define LPD_bf16(i) lpd_bf16(g, x, y, i)
#define LPD_f32(i) lpd_f32(g, x, y, i)
#define LPD_f64(i) lpd_f64(g, x, y, i)
#define LPF_f16(i) to_pf(lpd_f16(g, x, y, i))
#define LPF_bf16(i) to_pf(lpd_bf16(g, x, y, i))
#define LPF_f32(i) to_pf(lpd_f32(g, x, y, i))
AFF_BLOCK_KERNEL(affd_f16, pd, LPD_f16, ST_PD32, OP_AFF_PD)
AFF_BLOCK_KERNEL(affd_bf16, pd, LPD_bf16, ST_PD32, OP_AFF_PD)
AFF_BLOCK_KERNEL(affd_f32, pd, LPD_f32, ST_PD32, OP_AFF_PD)
AFF_BLOCK_KERNEL(afff_f16, pf, LPF_f16, ST_PF32, OP_AFF_PF)
AFF_BLOCK_KERNEL(afff_bf16, pf, LPF_bf16, ST_PF32, OP_AFF_PF)
AFF_BLOCK_KERNEL(afff_f32, pf, LPF_f32, ST_PF32, OP_AFF_PF)
AFF_BLOCK_KERNEL(affd_f64, pd, LPD_f64, ST_PD64, OP_AFF_PD)

/* ------------------------------------------------------------ carry combines */

/* Unused arguments are the price of one signature for every combine. */
static void c_add_u(const tally__scan_args *g, tally__sacc *a, const tally__sacc *t) { a->u[0] += t->u[0]; }
static void c_mul_u(const tally__scan_args *g, tally__sacc *a, const tally__sacc *t) { a->u[0] *= t->u[0]; }
static void c_min_i(const tally__scan_args *g, tally__sacc *a, const tally__sacc *t) { if (t->i[0] < a->i[0]) a->i[0] = t->i[0]; }
static void c_max_i(const tally__scan_args *g, tally__sacc *a, const tally__sacc *t) { if (t->i[0] > a->i[0]) a->i[0] = t->i[0]; }
static void c_min_u(const tally__scan_args *g, tally__sacc *a, const tally__sacc *t) { if (t->u[0] < a->u[0]) a->u[0] = t->u[0]; }
static void c_max_u(const tally__scan_args *g, tally__sacc *a, const tally__sacc *t) { if (t->u[0] > a->u[0]) a->u[0] = t->u[0]; }
static void c_add_d(const tally__scan_args *g, tally__sacc *a, const tally__sacc *t) { a->d[0] += t->d[0]; }
static void c_mul_d(const tally__scan_args *g, tally__sacc *a, const tally__sacc *t) { a->d[0] *= t->d[0]; }
static void c_add_f(const tally__scan_args *g, tally__sacc *a, const tally__sacc *t) { a->f[0] += t->f[0]; }
static void c_mul_f(const tally__scan_args *g, tally__sacc *a, const tally__sacc *t) { a->f[0] *= t->f[0]; }
static void c_add_dd(const tally__scan_args *g, tally__sacc *a, const tally__sacc *t) {
  dd r = dd_add((dd){a->d[0], a->d[1]}, (dd){t->d[0], t->d[1]});
  a->d[0] = r.hi;
  a->d[1] = r.lo;
}
static void c_aff_u(const tally__scan_args *g, tally__sacc *a, const tally__sacc *t) {
  pu r = aff_pu((pu){a->u[0], a->u[1]}, (pu){t->u[0], t->u[1]});
  a->u[0] = r.a;
  a->u[1] = r.b;
}
static void c_aff_d(const tally__scan_args *g, tally__sacc *a, const tally__sacc *t) {
  pd r = aff_pd((pd){a->d[0], a->d[1]}, (pd){t->d[0], t->d[1]});
  a->d[0] = r.a;
  a->d[1] = r.b;
}
static void c_aff_f(const tally__scan_args *g, tally__sacc *a, const tally__sacc *t) {
  pf r = aff_pf((pf){a->f[0], a->f[1]}, (pf){t->f[0], t->f[1]});
  a->f[0] = r.a;
  a->f[1] = r.b;
}

/* ------------------------------------------------------------ the table */

#define BY_INT(PRE, dt)                                                                     \
  ((dt) == TALLY_BOOL ? PRE##_b : (dt) == TALLY_I8 ? PRE##_i8 : (dt) == TALLY_I16 ? PRE##_i16 \
   : (dt) == TALLY_I32 ? PRE##_i32 : (dt) == TALLY_I64 ? PRE##_i64 : (dt) == TALLY_U8 ? PRE##_u8 \
   : (dt) == TALLY_U16 ? PRE##_u16 : (dt) == TALLY_U32 ? PRE##_u32 : PRE##_u64)
#define BY_SMALL(PRE, dt) ((dt) == TALLY_F16 ? PRE##_f16 : (dt) == TALLY_BF16 ? PRE##_bf16 : PRE##_f32)

static bool is_signed(tally_dtype t) { return t >= TALLY_I8 && t <= TALLY_I64; }

/* The identity (signed and unsigned integer MIN/MAX: the dtype's extreme values). */
static void int_extremes(tally_dtype t, int64_t *lo, uint64_t *hi) {
  int bits = 8 * (int)tally_dtype_size(t);
  if (t == TALLY_BOOL) { *lo = 0; *hi = 1; return; }
  if (is_signed(t)) {
    *lo = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
    *hi = bits == 64 ? (uint64_t)INT64_MAX : ((uint64_t)1 << (bits - 1)) - 1;
  } else {
    *lo = 0;
    *hi = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
  }
}

void tally__scan_impl_for(const tally__scan_problem *p, tally__scan_impl *im) {
  tally_dtype dt = p->dtype;
  bool fl = tally__dtype_kind(dt) == TALLY__KIND_FLOAT;
  bool fast = p->accuracy == TALLY_ACCURACY_FAST;
  memset(im, 0, sizeof *im);
  tally__sacc *id = &im->identity;
  switch (p->op) {
  case TALLY_SUM:
  case TALLY_PROD: {
    bool sum = p->op == TALLY_SUM;
    if (!fl) {
      im->total_optional = 1;
      im->run = sum ? BY_INT(sum, dt) : BY_INT(prod, dt);
      im->combine = sum ? c_add_u : c_mul_u;
      id->u[0] = sum ? 0 : 1;
    } else if (dt == TALLY_F64) {
      if (sum && !fast) im->run = sumdd_f64, im->combine = c_add_dd;
      else if (sum) im->run = sumd_f64, im->combine = c_add_d;
      else im->run = prodd_f64, im->combine = c_mul_d;
      id->d[0] = sum ? 0.0 : 1.0;
    } else if (fast) {
      im->run = sum ? BY_SMALL(sumf, dt) : BY_SMALL(prodf, dt);
      im->combine = sum ? c_add_f : c_mul_f;
      id->f[0] = sum ? 0.0f : 1.0f;
    } else {
      im->run = sum ? BY_SMALL(sumd, dt) : BY_SMALL(prodd, dt);
      im->combine = sum ? c_add_d : c_mul_d;
      id->d[0] = sum ? 0.0 : 1.0;
    }
    break;
  }
  case TALLY_MIN:
  case TALLY_MAX: {
    bool mn = p->op == TALLY_MIN;
    im->total_optional = 1;
    if (!fl) {
      int64_t lo;
      uint64_t hi;
      int_extremes(dt, &lo, &hi);
      im->run = mn ? BY_INT(min, dt) : BY_INT(max, dt);
      if (is_signed(dt)) {
        im->combine = mn ? c_min_i : c_max_i;
        id->i[0] = mn ? (int64_t)hi : lo;
      } else {
        im->combine = mn ? c_min_u : c_max_u;
        id->u[0] = mn ? hi : (uint64_t)lo;
      }
    } else { /* by keys */
      im->run = mn ? (dt == TALLY_F16 ? min_f16 : dt == TALLY_BF16 ? min_bf16
                      : dt == TALLY_F32 ? min_f32 : min_f64)
                   : (dt == TALLY_F16 ? max_f16 : dt == TALLY_BF16 ? max_bf16
                      : dt == TALLY_F32 ? max_f32 : max_f64);
      im->combine = mn ? c_min_i : c_max_i;
      id->i[0] = KEY_NONE(mn);
    }
    break;
  }
  default: /* AFFINE */
    im->total_optional = 1;
    if (!fl) {
      im->run = dt == TALLY_I8 ? aff_i8 : dt == TALLY_I16 ? aff_i16 : dt == TALLY_I32 ? aff_i32
                : dt == TALLY_I64 ? aff_i64 : dt == TALLY_U8 ? aff_u8 : dt == TALLY_U16 ? aff_u16
                : dt == TALLY_U32 ? aff_u32 : aff_u64;
      im->combine = c_aff_u;
      id->u[0] = 1;
      id->u[1] = 0;
    } else if (dt == TALLY_F64) {
      im->run = affd_f64;
      im->combine = c_aff_d;
      id->d[0] = 1.0;
    } else if (fast) {
      im->run = BY_SMALL(afff, dt);
      im->combine = c_aff_f;
      id->f[0] = 1.0f;
    } else {
      im->run = BY_SMALL(affd, dt);
      im->combine = c_aff_d;
      id->d[0] = 1.0;
    }
    break;
  }
}

static uint64_t f32_bits_of(const void *v) { uint32_t u; memcpy(&u, v, 4); return u; }
static uint64_t f64_bits_of(const void *v) { uint64_t u; memcpy(&u, v, 8); return u; }

/* The init value, given in the result dtype, as the accumulator of impl_for. */
void tally__scan_init_acc(const tally__scan_problem *p, const void *init, tally__sacc *acc) {
  tally_dtype rd = p->rdtype, dt = p->dtype;
  bool fl = tally__dtype_kind(dt) == TALLY__KIND_FLOAT;
  bool fast = p->accuracy == TALLY_ACCURACY_FAST;
  memset(acc, 0, sizeof *acc);
  for (int w = 0; w < p->width; w++) {
    const char *v = (const char *)init + w * (int64_t)tally_dtype_size(rd);
    double d = 0;
    uint64_t u = 0;
    switch (rd) {
    case TALLY_BOOL: u = *(const uint8_t *)v != 0; break;
    case TALLY_I8: u = (uint64_t)(int64_t)*(const int8_t *)v; break;
    case TALLY_I16: u = (uint64_t)(int64_t)*(const int16_t *)v; break;
    case TALLY_I32: u = (uint64_t)(int64_t)*(const int32_t *)v; break;
    case TALLY_I64: case TALLY_U64: memcpy(&u, v, 8); break;
    case TALLY_U8: u = *(const uint8_t *)v; break;
    case TALLY_U16: u = *(const uint16_t *)v; break;
    case TALLY_U32: u = *(const uint32_t *)v; break;
    case TALLY_F16: d = tally_f16_to_f32(*(const uint16_t *)v); break;
    case TALLY_BF16: d = tally_bf16_to_f32(*(const uint16_t *)v); break;
    case TALLY_F32: d = *(const float *)v; break;
    default: d = *(const double *)v; break;
    }
    if (!fl) acc->u[w] = u;
    else if (p->op == TALLY_MIN || p->op == TALLY_MAX) { /* the key of the init's bits */
      const int ign = p->nan == TALLY_NAN_IGNORE, mn = p->op == TALLY_MIN;
      uint16_t h = 0;
      if (rd == TALLY_F16 || rd == TALLY_BF16) memcpy(&h, v, 2);
      acc->i[0] = rd == TALLY_F16    ? key_in(ign, h, 16, 0x7c00u, mn)
                  : rd == TALLY_BF16 ? key_in(ign, h, 16, 0x7f80u, mn)
                  : rd == TALLY_F32  ? key_in(ign, f32_bits_of(v), 32, 0x7f800000u, mn)
                                     : key_in(ign, f64_bits_of(v), 64, 0x7ff0000000000000u, mn);
    } else if (dt != TALLY_F64 && fast) acc->f[w] = (float)d;
    else acc->d[w] = d; /* the dd's lo stays 0 */
  }
}

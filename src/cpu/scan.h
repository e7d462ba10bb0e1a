/* The CPU scan's typed kernels (scan_kern.c) and what the driver (scan.c) needs of them. */
#ifndef TALLY_CPU_SCAN_H
#define TALLY_CPU_SCAN_H

#include "core/internal.h"

#include <stdint.h>

/* An accumulator: one value (a double-double's hi and lo) or a pair (AFFINE's A, B). */
typedef union {
  double d[2];
  float f[2];
  uint64_t u[2];
  int64_t i[2];
} tally__sacc;

typedef struct tally__scan_args tally__scan_args;

/* AFFINE's vector kernel for the full blocks of 8 of a contiguous run (scan_affine.c): a's
 * at x, b's at y, out [A0 B0 A1 B1 ...] at o; s and t (t may be NULL: no total) the
 * scalar kernel's accumulators (pairs of double, float or uint64_t); returns the
 * elements done (a multiple of 8). */
typedef int64_t (*tally__scan_pair_fn)(const tally__scan_args *g, const char *x, const char *y,
                                       char *o, int64_t m, void *s, void *t, int write);

/* A vector kernel for the full blocks of 8 of a contiguous run (scan_simd.c): updates
 * the running value *s and the total *t (the accumulator type), returns the elements
 * done (a multiple of 8); the scalar kernel does the rest. */
typedef int64_t (*tally__scan_simd_fn)(const tally__scan_args *g, const char *x, char *o,
                                       int64_t m, void *s, void *t, int write);

/* Pass 2 of a contiguous piece and pass 1 of another, interleaved (scan_simd.c): the same
 * bits as simd(g, x, o, m, s, -, 1) then simd_reduce(g, x1, NULL, m, -, t1, 0), for m a
 * multiple of 64, inclusive, no NaN rule, not in place; pass 2's total is left out (the
 * threaded chain has it from pass 1). Pass 1's running total is a chain of dependent
 * additions, one per block: run alone its latency bounds the loop; beside pass 2 it runs
 * in pass 2's shadow.
 *
 * The stash (scan_dd.c only; the others return 0 and ignore it): pass 1 may leave in o1,
 * the output of the piece at x1 (not yet written, and not the input: not in place), what
 * pass 2 of that piece will need, and returns 1 when it did. Pass 2 of a piece whose
 * output holds a stash is told so by flags (TALLY__SCAN_STASHED, here) or by write = 2
 * (simd), and reads it before writing there instead of computing it again: the same bits.
 * TALLY__SCAN_STREAM: pass 2 may write with streaming stores (g->stream_out, simd). */
typedef int (*tally__scan_fused_fn)(const char *x, char *o, int64_t m, void *s, const char *x1,
                                    void *t1, char *o1, int flags);
#define TALLY__SCAN_STASHED 1
#define TALLY__SCAN_STREAM 2

struct tally__scan_args {
  int exclusive;
  int ignore_nan;
  int64_t bx, by, bo0, bo1; /* byte strides: in, in2, out element, out value */
  tally__sacc identity;
  tally__scan_simd_fn simd; /* NULL, or the vector kernel of this (op, dtype, accuracy) */
  tally__scan_simd_fn simd_reduce; /* NULL, or its pass 1 (totals only) */
  /* f16, bf16 SUM and PROD: the f32 kernels that simd and simd_reduce (a set's half_f16,
   * half_reduce_f16, ...) run on pieces converted to f32 */
  tally__scan_simd_fn simd_f32, simd_reduce_f32;
  tally__scan_fused_fn fused;      /* NULL, or both (when it applies: see above) */
  tally__scan_pair_fn pair;        /* NULL, or AFFINE's vector kernel */
  /* The compensated f64 sum's kernels (scan_dd.c) may write with streaming stores, which
   * do not read the lines first (and leave them out of the cache): set by scan.c for
   * large outputs; used where the output is not the input (whole 64-byte lines streamed,
   * the partial ones at a block's ends plain). Every other scan streams through scan.c's
   * buffered pieces (scan_job.stream). A chunk's writes are fenced at its end. */
  int stream_out;
};

/* The vector kernels of one ISA: SUM of f32 in f64 (DEFAULT) and in f32 (FAST), SUM of
 * f64 (FAST), and the same PRODs. Contiguous input and output only. */
typedef struct {
  tally__scan_simd_fn sum_f32_d, sum_f32_f, sum_f64;
  /* Pass 1 (write 0) of the three: the totals only, blocks taken 8 at a time. */
  tally__scan_simd_fn reduce_f32_d, reduce_f32_f, reduce_f64;
  /* Both passes of the three at once, or NULL (AVX2 only so far). */
  tally__scan_fused_fn fused_f32_d, fused_f32_f, fused_f64;
  /* PROD of f32 in f64 (DEFAULT) and in f32 (FAST), of f64: every pass (no fused or
   * pass-1 variant). */
  tally__scan_simd_fn prod_f32_d, prod_f32_f, prod_f64;
  /* f16 and bf16 (SUM, PROD) on pieces converted to f32, through g->simd_f32 (and its
   * pass 1, g->simd_reduce_f32): simd and simd_reduce of those dtypes where lanes_d
   * (below) has none of its own (the SSE2 and AVX-512 sets; FAST halves run as DEFAULT). */
  tally__scan_simd_fn half_f16, half_reduce_f16, half_bf16, half_reduce_bf16;
  /* The f64-lane kernels of (op, dt) with a pass 1 and a fused pass, inputs converted in
   * registers: 1 and the three set, or 0 (AVX2 only: f16 and bf16 DEFAULT SUM; f16, bf16,
   * f32 DEFAULT and f64 PROD). The same bits as the kernels above. */
  int (*lanes_d)(tally_op op, tally_dtype dt, tally__scan_simd_fn *simd,
                 tally__scan_simd_fn *reduce, tally__scan_fused_fn *fused);
} tally__scan_simd_set;
extern const tally__scan_simd_set tally__scan_simd_scalar, tally__scan_simd_avx2,
    tally__scan_simd_avx512;

/* The vector kernel of an exact op (scan_exact.c: integer SUM and PROD, MIN and MAX of
 * every dtype) of one ISA for a contiguous run, or NULL. Its *s and *t are the scalar
 * kernel's accumulators (int64_t or uint64_t), t may be NULL (no total); it does the
 * full vectors, any count, and returns how many elements that was. */
tally__scan_simd_fn tally__scan_exact_scalar(tally_op op, tally_dtype dt);
tally__scan_simd_fn tally__scan_exact_avx2(tally_op op, tally_dtype dt);
tally__scan_simd_fn tally__scan_exact_avx512(tally_op op, tally_dtype dt);

/* AFFINE's vector kernel of one ISA for a dtype (fast: f32 lanes for f16/bf16/f32), or
 * NULL (the scalar set; bool). */
tally__scan_pair_fn tally__scan_affine_scalar(tally_dtype dt, int fast, int tree8);
tally__scan_pair_fn tally__scan_affine_avx2(tally_dtype dt, int fast, int tree8);
tally__scan_pair_fn tally__scan_affine_avx512(tally_dtype dt, int fast, int tree8);

/* The compensated f64 SUM's (DEFAULT) vector kernels of one ISA (scan_dd.c: blocks of
 * scan_dd.h's DD_BLOCK elements, not of 8), or NULLs (the scalar set). */
typedef struct {
  tally__scan_simd_fn sum, reduce;
  tally__scan_fused_fn fused; /* for m a multiple of DD_BLOCK */
} tally__scan_dd_set;
extern const tally__scan_dd_set tally__scan_dd_scalar, tally__scan_dd_avx2, tally__scan_dd_avx512;

/* Scan m elements of a run (no segment head inside them): x, y at the first input
 * element, o at the first output element. *carry is the running value, *total the run's
 * fold from the identity (the caller starts it at the identity), both updated, so a run
 * may be scanned in pieces with the same bits: pieces of multiples of 8 elements, and of
 * 256 (scan_dd.h's DD_BLOCK) for the compensated f64 SUM. The total is
 * kept apart from the carry so that a pass that only reduces (write 0) gives the same
 * bits as the pass that writes. */
typedef void (*tally__scan_kernel)(const tally__scan_args *g, const char *x, const char *y,
                                   char *o, int64_t m, tally__sacc *carry,
                                   tally__sacc *total, int write);

typedef struct {
  tally__scan_kernel run;
  /* 1: run takes total NULL where it writes (the run's total not wanted; the threaded
   * chain has it from pass 1) and leaves the total's work out */
  int total_optional;
  /* acc = acc ⊕ t (the carry chain, in the accumulator's arithmetic). */
  void (*combine)(const tally__scan_args *g, tally__sacc *acc, const tally__sacc *t);
  tally__sacc identity;
} tally__scan_impl;

/* The kernel of a validated built-in scan; the init value (result dtype) as an
 * accumulator. */
void tally__scan_impl_for(const tally__scan_problem *p, tally__scan_impl *im);
void tally__scan_init_acc(const tally__scan_problem *p, const void *init, tally__sacc *acc);

#endif

/* The CPU backend's private declarations. */
#ifndef TALLY_CPU_H
#define TALLY_CPU_H

#include "core/internal.h"
#include "core/part.h"
#include "pool.h"

typedef enum { TALLY__ISA_SCALAR, TALLY__ISA_AVX2, TALLY__ISA_AVX512, TALLY__ISA_COUNT_ } tally__isa;

typedef const tally__kernel tally__kernel_table[TALLY__FAM_COUNT_][TALLY_DTYPE_COUNT_];
extern tally__kernel_table tally__cpu_kernels_scalar, tally__cpu_kernels_avx2,
    tally__cpu_kernels_avx512;

const char *tally__isa_name(tally__isa isa);
/* The best ISA this CPU and OS support. */
tally__isa tally__isa_detect(void);
/* Whether the processor is AMD's: some kernel choices differ by vendor (scan_affine.c). */
int tally__cpu_is_amd(void);
/* Parse "scalar", "avx2", "avx512"; -1 if unknown. */
int tally__isa_parse(const char *name);
/* The CPU's model name, e.g. from /proc/cpuinfo; "" if unknown. */
void tally__cpu_model(char *buf, size_t len);

typedef enum { TALLY__VAR_BEST, TALLY__VAR_SEQUENTIAL, TALLY__VAR_NAIVE } tally__variant;

typedef struct {
  tally_context base; /* must be first */
  tally__pool *pool;
  int threads;
  tally__isa isa;
  int amd; /* an AMD processor ($TALLY_CPU_AMD overrides): see tally__cpu_is_amd */
  const tally__kernel (*kernels)[TALLY_DTYPE_COUNT_];
  int64_t parallel_bytes; /* below this many input bytes, one thread */
  int parallel_bytes_given; /* ... set by the device string: scans then use the threads
                               from there on even while they sleep (scan.c, go_parallel) */
  int64_t stream_bytes;   /* scans moving more bytes (in + out) than this write with
                             streaming stores where they can (scan.c): the last-level cache */
  void *scratch;          /* chunk parts for tally_reduce, grown on demand */
  size_t scratch_bytes;
} tally__cpu_ctx;

/* The driver (reduce.c): run a validated problem with the best variant. */
tally_status tally__cpu_reduce(tally_context *ctx, const tally__problem *p, const void *in,
                               const void *in2, void *out, int64_t out_s0, int64_t out_s1,
                               void *ws);
/* The part (not the value) of elements [base, base + len) of a contiguous 1-D problem:
 * chunks of tally__chunk_len(len) on the pool, merged in index order, VAR relative to
 * `shift`; ARG* indices count from the start of the input. For a GPU backend that reduces
 * some chunks of a host input on the host (cuda/stream.c). */
tally_status tally__cpu_reduce_run(tally_context *ctx, const tally__problem *p, const void *in,
                                   const void *in2, int64_t base, int64_t len, double shift,
                                   tally__part *acc);
/* NORM2 of a contiguous f64 input of len elements whose plain sum of squares (from
 * tally__cpu_reduce_run) is ss: sqrt(ss), or the rescue pass (rescaled by a power of two)
 * where ss overflowed or lost bits to underflow, as the cpu device does. */
double tally__cpu_norm2_f64(tally_context *ctx, const tally__problem *p, const void *in, int64_t len,
                            double ss);
/* Whether this context's kernel for (fam, dt) reads contiguous input at about memory
 * speed on its ISA (a table of measurements: docs/PERFORMANCE.md), so that a GPU backend
 * may reduce a pageable host input on the host rather than copy it (cuda/stream.c). */
bool tally__cpu_reads_at_memory_speed(const tally_context *ctx, tally__family fam, tally_dtype dt,
                                      bool ignore_nan);
size_t tally__cpu_workspace_size(const tally_context *ctx, const tally__problem *p);

/* The sequential and naive variants (sequential.c): one slice, in index order. */
tally_status tally__cpu_reduce_simple(tally_context *ctx, const tally__problem *p,
                                      tally__variant v, const void *in, const void *in2,
                                      void *out, int64_t out_s0, int64_t out_s1);
bool tally__naive_supports(tally_op op, tally_dtype dt);

/* User-defined reductions (user.c). */
tally_status tally__cpu_reduce_user(tally_context *ctx, const tally_user_op *uop,
                                    const void *data, int64_t n, int64_t stride, void *out);

/* Scans (scan.c) and histograms (histogram.c). */
tally_status tally__cpu_scan(tally_context *ctx, const tally__scan_problem *p, const void *in,
                             const void *in2, void *out);
tally_status tally__cpu_histogram(tally_context *ctx, const tally__hist_problem *p, const void *in,
                                  const void *weights, void *counts, void *weight_sums,
                                  tally_hist_stats *stats);

#include "core/finalize.h"

#endif

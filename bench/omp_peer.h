/* The OpenMP peer: the loop a user would write with `#pragma omp parallel for
 * reduction(...)`, compiled with the project's flags (no -ffast-math, so a float sum is
 * not vectorized: that is what the plain loop gives). Ops: SUM (accumulator of the result
 * type: a float for f32), MIN and MAX (reduction(min:)/(max:)), DOT and SUMSQ. Dtypes: f32,
 * f64 and the integers (64-bit accumulators); f16, bf16 and bool have no plain C loop. */
#ifndef TALLY_BENCH_OMP_PEER_H
#define TALLY_BENCH_OMP_PEER_H

#include "tally.h"

#include <stdint.h>

/* 1 if the peer has a loop for (op, t) in this build (0 without OpenMP). */
int omp_peer_supported(tally_op op, tally_dtype t);
/* Threads of the loop (OpenMP's default team). */
int omp_peer_threads(void);
/* Run the loop over n elements of x (and y for DOT); writes one value of
 * tally_result_dtype(op, t) to out. 0, or -1 where unsupported. */
int omp_peer_run(tally_op op, tally_dtype t, const void *x, const void *y, int64_t n, void *out);

#endif

/* The probe: the plainest fastest streaming read of the same bytes a reduction reads, the
 * bandwidth ceiling that tally's timings are divided by. A read-only loop XORs the buffer
 * into eight independent vector accumulators (AVX-512, else AVX2, else 64-bit scalar,
 * chosen at run time with __builtin_cpu_supports), one thread or all OpenMP threads
 * (static split into contiguous, 64-byte aligned parts). The XOR of everything is
 * returned and stored by the caller, so the compiler cannot drop the loads. */
#ifndef TALLY_BENCH_PROBE_H
#define TALLY_BENCH_PROBE_H

#include <stddef.h>
#include <stdint.h>

/* "avx512", "avx2" or "scalar": the loop this CPU runs. */
const char *probe_isa(void);
/* Threads of the parallel probe (OpenMP's default team), 1 without OpenMP. */
int probe_threads(void);

/* Read bytes of a and, when b is not NULL, the same number of bytes of b (both in the same
 * loop, as DOT reads its two inputs). a and b must be 64-byte aligned. parallel: use all
 * OpenMP threads. Returns the XOR of all words read. */
uint64_t probe_read(const void *a, const void *b, size_t bytes, int parallel);

#endif

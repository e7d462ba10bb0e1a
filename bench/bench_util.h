/* Small helpers of `tally bench`: the clock, 64-byte aligned buffers filled with the
 * benchmark's random data, and waiting for spinning threads to go to sleep. */
#ifndef TALLY_BENCH_UTIL_H
#define TALLY_BENCH_UTIL_H

#include "tally.h"

#include <stddef.h>
#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t bench_now_ns(void);

/* 64-byte aligned memory with every page written once (so no page fault lands in a timed
 * run); NULL on failure. Free with bench_free(). */
void *bench_alloc(size_t bytes);
void bench_free(void *p);

/* Fill n elements of dtype t at p with the benchmark's data, never zero:
 *   floats: 0.5 + k·2^-m, k uniform in [0, 2^m) with m the type's mantissa bits (f16 10,
 *           bf16 7, f32 23, f64 52): uniform in [0.5, 1.5), every value exact in the type;
 *   signed ints: ±[1, 64], unsigned ints: [1, 64]; bool: 1.
 * stream picks an independent sequence for the same seed (the second input of DOT). */
void bench_fill(void *p, tally_dtype t, int64_t n, uint64_t seed, uint64_t stream);

/* Fill n elements with a ramp over the type's range, rising with the index (descending:
 * falling): integers i·2^w/n from the type's minimum, floats through their bit patterns
 * from 0.5 to the largest finite value (sums of them overflow), bool 0 then 1. Every
 * element a new maximum (minimum) as far as the type has values: an integer type of w
 * bits has 2^w, f16 17,408 and bf16 16,512 from 0.5 up, so past those counts values
 * repeat. The MIN and MAX scans' worst case (`tally bench --scan --order`). */
void bench_fill_ramp(void *p, tally_dtype t, int64_t n, int descending);

/* Sleep until this process's other threads (tally's pool, OpenMP workers) have stopped
 * spinning: in 1 ms steps until a step costs the process under 0.2 ms of CPU time, at
 * most ~100 ms. Called before every contender is timed, so that nobody's idle spinners
 * steal a core from the next one. */
void bench_settle(void);

/* Other work on the machine: mark the CPU time of all CPUs (/proc/stat) and of this
 * process at two moments; bench_others_busy() gives how many CPUs other processes kept
 * busy in between on average (0.0 on a quiet machine), or -1 where unknown. */
typedef struct {
  int64_t busy_ticks; /* all CPUs: user, nice, system, irq, softirq, steal */
  int64_t self_ns;    /* this process (all threads) */
  int64_t wall_ns;
} bench_cpu_mark;

void bench_cpu_mark_now(bench_cpu_mark *m);
double bench_others_busy(const bench_cpu_mark *a, const bench_cpu_mark *b);

/* The current UTC time as "YYYY-MM-DDTHH:MM:SSZ". */
void bench_utc_date(char *buf, size_t size);

#endif

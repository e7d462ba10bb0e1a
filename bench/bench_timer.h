/* The timing method of `tally bench`, the same for every contender (tally, the probe, the
 * OpenMP peer; bench/peers/numpy_peer.py repeats it in Python, in one round):
 *
 *   1. warm-up and batch size: one untimed call, then batches of 1, 2, 4, ... calls
 *      until one batch takes ≥ 50 µs (so a sample is never shorter than that, whatever
 *      the call costs);
 *   2. samples: time batches of that size, each with CLOCK_MONOTONIC, until the samples
 *      add up to ≥ min_time seconds and there are ≥ 5 of them (≥ 3 when one call takes
 *      more than min_time/4: huge sizes), or exactly `repeat` samples when repeat > 0;
 *   3. report the median of (batch time / batch size).
 *
 * Step 2 may be split into rounds: the contenders of one size then take turns (a round
 * each, several times), so a change in the machine's background load (a shared machine)
 * reaches all of them alike instead of whichever ran at the time. Each round runs one
 * untimed batch first, and takes its share of the time and of the sample counts.
 */
#ifndef TALLY_BENCH_TIMER_H
#define TALLY_BENCH_TIMER_H

#include <stdint.h>

/* One call of the contender; nonzero stops the timing (an error). */
typedef int (*bench_call)(void *arg);

typedef struct {
  double min_time; /* seconds of samples to collect, default 0.2 */
  int repeat;      /* > 0: exactly this many samples, ignoring min_time */
  int rounds;      /* turns the samples are split into (1 or more) */
} bench_timing;

typedef struct {
  double median_us; /* median time of one call */
  double min_us;    /* fastest sample, per call */
  int runs;         /* samples taken */
  int64_t batch;    /* calls per sample */
} bench_stats;

/* The samples of one contender, collected in rounds. */
typedef struct {
  bench_call fn;
  void *arg;
  int64_t batch;     /* 0 until the warm-up has run */
  double per_call_s; /* the warm-up's estimate */
  double *s;         /* samples, µs per call */
  int runs, cap;
} bench_series;

void bench_series_init(bench_series *se, bench_call fn, void *arg);
/* Round k of t->rounds (k from 0): the warm-up in round 0, then this round's samples.
 * 0, or the contender's nonzero return (-1: out of memory). */
int bench_series_round(bench_series *se, const bench_timing *t, int k);
/* Median and the rest over every round so far. */
void bench_series_stats(const bench_series *se, bench_stats *out);
void bench_series_free(bench_series *se);

/* All rounds of one contender at once. */
int bench_time(bench_call fn, void *arg, const bench_timing *t, bench_stats *out);

#endif

/* The monotonic clock in nanoseconds, for the library's waits and timings: the CUDA
 * flag wait's stream queries (src/cuda/reduce.c), the thread pool's spin
 * (src/cpu/pool.c) and the stage trace (stage_trace.c). clock_gettime needs POSIX, which
 * the library's build asks for (_GNU_SOURCE, src/CMakeLists.txt). */
#ifndef TALLY_CLOCK_H
#define TALLY_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t tally__now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

#endif

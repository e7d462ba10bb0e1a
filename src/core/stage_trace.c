/* TALLY__STAGE's clock and report (stage_trace.h): compiled to nothing unless the build
 * asks for it (cmake -DTALLY_STAGE_TRACE=ON), since a library must not print. A traced
 * build keeps, per stage k, the time since the latest earlier stage stamped in the same
 * call, and at exit writes each stage's median, 10th and 90th percentiles to stderr.
 * One thread at a time (it is for timing one caller's calls). */
#include "stage_trace.h"
#include "clock.h"

#ifdef TALLY_STAGE_TRACE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define STAGES 16
#define SAMPLES 200000

static long long stamp[STAGES];
static int stamped[STAGES];
static float *delta[STAGES];
static int ndelta[STAGES];

void tally__stage(int k) {
  long long t = (long long)tally__now_ns();
  if (k < 0 || k >= STAGES) return;
  stamp[k] = t;
  stamped[k] = 1;
  if (k == 0) { /* a new call */
    for (int i = 1; i < STAGES; i++) stamped[i] = 0;
    return;
  }
  int p = k - 1;
  while (p > 0 && !stamped[p]) p--;
  if (!delta[k] && !(delta[k] = malloc(sizeof(float) * SAMPLES))) return;
  if (ndelta[k] < SAMPLES) delta[k][ndelta[k]++] = (float)(t - stamp[p]);
}

static int by_value(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return x < y ? -1 : x > y;
}

__attribute__((destructor)) static void report(void) {
  for (int k = 1; k < STAGES; k++) {
    int n = ndelta[k];
    if (!n) continue;
    qsort(delta[k], (size_t)n, sizeof(float), by_value);
    fprintf(stderr, "tally stage %2d: %7d calls, median %8.3f us, p10 %8.3f, p90 %8.3f\n", k, n,
            delta[k][n / 2] / 1e3, delta[k][n / 10] / 1e3, delta[k][n * 9 / 10] / 1e3);
    free(delta[k]);
  }
}
#else
typedef int tally__stage_trace_unused; /* ISO C wants something in a translation unit */
#endif

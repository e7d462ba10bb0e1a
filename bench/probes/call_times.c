/* call_times: the host clock around N tally_reduce() calls of f32 SUM over a device
 * array of 2^LOG2N elements, warm L2 (no flush), and their median. Built beside the
 * library; with cmake -DTALLY_STAGE_TRACE=ON the library adds where each call's time went
 * (src/core/stage_trace.h), on stderr at exit. Not part of the bench: it found tally's
 * fixed cost per call (docs/DECISIONS.md, "A call's fixed cost").
 * Usage: call_times LOG2N [N] [DEVICE]; exits 77 where the device cannot be opened. */
#include "tally.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  int lg = argc > 1 ? atoi(argv[1]) : 10, calls = argc > 2 ? atoi(argv[2]) : 3000;
  const char *device = argc > 3 ? argv[3] : "cuda";
  if (lg < 0 || lg > 30 || calls < 1) {
    fprintf(stderr, "usage: call_times LOG2N (0..30) [N >= 1] [DEVICE]\n");
    return 2;
  }
  tally_context *ctx;
  if (tally_open(device, &ctx) != TALLY_OK) {
    fprintf(stderr, "call_times: %s\n", tally_errmsg(NULL));
    return 77;
  }
  int64_t n = (int64_t)1 << lg;
  float *host = malloc((size_t)n * sizeof *host);
  double *us = malloc((size_t)calls * sizeof *us);
  void *dev = NULL;
  if (!host || !us) {
    fprintf(stderr, "call_times: out of memory\n");
    return 1;
  }
  srand(1);
  for (int64_t i = 0; i < n; i++) host[i] = (float)(rand() % 1000) / 8.0f; /* exact sums */
  if (tally_mem_alloc(ctx, (size_t)n * 4, &dev) != TALLY_OK ||
      tally_mem_copy(ctx, dev, TALLY_MEM_DEVICE, host, TALLY_MEM_HOST, (size_t)n * 4) != TALLY_OK) {
    fprintf(stderr, "call_times: %s\n", tally_errmsg(ctx));
    return 1;
  }
  double expect = 0;
  for (int64_t i = 0; i < n; i++) expect += host[i];
  tally_array in = tally_array_1d(dev, TALLY_F32, n);
  in.mem = TALLY_MEM_DEVICE;
  float sum = 0;
  tally_array out = tally_array_1d(&sum, TALLY_F32, 1);
  for (int i = 0; i < calls + 20; i++) { /* 20 first: the kernel's build, the scratch */
    long long t0 = now_ns();
    tally_status s = tally_reduce(ctx, TALLY_SUM, &in, NULL, &out, NULL);
    if (i >= 20) us[i - 20] = (double)(now_ns() - t0) / 1e3;
    if (s != TALLY_OK) {
      fprintf(stderr, "call_times: %s\n", tally_errmsg(ctx));
      return 1;
    }
  }
  qsort(us, (size_t)calls, sizeof *us, by_value);
  printf("f32 SUM of 2^%d on %s: %d calls, median %.2f us, p10 %.2f, p90 %.2f; sum %s\n", lg, device,
         calls, us[calls / 2], us[calls / 10], us[calls * 9 / 10],
         (double)sum == (double)(float)expect ? "right" : "WRONG");
  tally_mem_free(ctx, dev);
  tally_close(ctx);
  free(host);
  free(us);
  return (double)sum == (double)(float)expect ? 0 : 1;
}

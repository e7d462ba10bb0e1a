/* The timing method of `tally bench`; see bench_timer.h. */
#include "bench_timer.h"

#include "bench_util.h"

#include <stdlib.h>
#include <string.h>

#define BATCH_MIN_NS 50000 /* a sample lasts at least this long */
#define BATCH_MAX ((int64_t)1 << 24)
#define MAX_RUNS 100000

static int time_batch(bench_call fn, void *arg, int64_t batch, int64_t *ns) {
  int64_t t0 = bench_now_ns();
  for (int64_t i = 0; i < batch; i++) {
    int rc = fn(arg);
    if (rc) return rc;
  }
  *ns = bench_now_ns() - t0;
  return 0;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void bench_series_init(bench_series *se, bench_call fn, void *arg) {
  memset(se, 0, sizeof *se);
  se->fn = fn;
  se->arg = arg;
}

void bench_series_free(bench_series *se) {
  free(se->s);
  se->s = NULL;
}

static int warm_up(bench_series *se) {
  int64_t batch = 1, ns = 0;
  int rc = se->fn(se->arg); /* the first call (lazy set-up, cold caches) */
  if (rc) return rc;
  /* Double the batch until one lasts BATCH_MIN_NS: these calls warm up too, and are
   * never among the samples. */
  for (;;) {
    if ((rc = time_batch(se->fn, se->arg, batch, &ns)) != 0) return rc;
    if (ns >= BATCH_MIN_NS || batch >= BATCH_MAX) break;
    batch *= 2;
  }
  se->batch = batch;
  se->per_call_s = (double)ns / (double)batch * 1e-9;
  return 0;
}

/* Round k's share of total: the samples that rounds 0..k together should reach. */
static int share(int total, int k, int rounds) {
  return (int)(((int64_t)total * (k + 1) + rounds - 1) / rounds);
}

int bench_series_round(bench_series *se, const bench_timing *t, int k) {
  int rounds = t->rounds > 0 ? t->rounds : 1, rc;
  int64_t ns;
  if (se->batch == 0) {
    if ((rc = warm_up(se)) != 0) return rc;
  } else if ((rc = time_batch(se->fn, se->arg, se->batch, &ns)) != 0) {
    return rc; /* one untimed batch: back from the other contenders' turns */
  }
  int huge = se->per_call_s > t->min_time / 4;
  int want = t->repeat > 0 ? share(t->repeat, k, rounds) : share(huge ? 3 : 5, k, rounds);
  double round_s = t->repeat > 0 || huge ? 0 : t->min_time / rounds, spent = 0;
  if (se->cap < MAX_RUNS) {
    int cap = t->repeat > 0 ? t->repeat : MAX_RUNS;
    double *p = realloc(se->s, (size_t)cap * sizeof *p);
    if (!p) return -1;
    se->s = p;
    se->cap = cap;
  }
  while (se->runs < se->cap && (se->runs < want || spent < round_s)) {
    if ((rc = time_batch(se->fn, se->arg, se->batch, &ns)) != 0) return rc;
    se->s[se->runs++] = (double)ns / (double)se->batch * 1e-3;
    spent += (double)ns * 1e-9;
  }
  return 0;
}

void bench_series_stats(const bench_series *se, bench_stats *out) {
  memset(out, 0, sizeof *out);
  out->batch = se->batch;
  out->runs = se->runs;
  if (se->runs == 0) return;
  double *s = malloc((size_t)se->runs * sizeof *s);
  if (!s) return;
  memcpy(s, se->s, (size_t)se->runs * sizeof *s);
  qsort(s, (size_t)se->runs, sizeof *s, cmp_double);
  int n = se->runs;
  out->median_us = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
  out->min_us = s[0];
  free(s);
}

int bench_time(bench_call fn, void *arg, const bench_timing *t, bench_stats *out) {
  bench_series se;
  bench_series_init(&se, fn, arg);
  int rc = 0;
  for (int k = 0; k < (t->rounds > 0 ? t->rounds : 1) && !rc; k++) rc = bench_series_round(&se, t, k);
  if (!rc) bench_series_stats(&se, out);
  bench_series_free(&se);
  return rc;
}

/* `tally bench`'s state: the run (context, variants, peers) and one measured point
 * (op, dtype, n) with its rows (variant × accuracy). bench_point.c measures a point,
 * bench_report.c prints it, cmd_bench.c drives the loops. */
#ifndef TALLY_CLI_BENCH_RUN_H
#define TALLY_CLI_BENCH_RUN_H

#include "bench_opts.h"
#include "bench_ref.h"
#include "bench_timer.h"
#include "numpy_peer.h"
#include "tally.h"

#include <stdint.h>

#define BENCH_MAX_VARIANTS 16
#define BENCH_MAX_ROWS (2 * BENCH_MAX_VARIANTS)

typedef struct {
  const bench_opts *o;
  tally_context *ctx;
  tally_context_info info;
  const char *variants[BENCH_MAX_VARIANTS]; /* the library's strings */
  int nvariants;
  numpy_peer numpy;
  char date[32];
} bench_run;

/* One variant and accuracy at a point. */
typedef struct {
  const char *variant;
  tally_accuracy acc;
  bench_stats plan;  /* tally_plan_run() */
  double reduce_us;  /* tally_reduce(), for small inputs only; NaN: not measured */
  double err;        /* max relative error of the result; NaN: no reference */
} bench_row;

typedef struct {
  tally_op op;
  tally_dtype dt, rt; /* input and result dtype */
  int64_t n;
  double bytes;       /* input bytes (both inputs for DOT, AFFINE) */
  double others_busy; /* CPUs kept busy by other processes meanwhile; -1: unknown */
  int have_ref;
  bench_ref ref;
  double probe_us;
  int probe_nthreads; /* threads of the faster probe */
  double numpy_us, numpy_err; /* numpy_us < 0: absent */
  double omp_us, omp_err;     /* omp_us < 0: absent */
  const char *peer;           /* the fastest peer present, or NULL */
  double peer_us;
  bench_row rows[BENCH_MAX_ROWS];
  int nrows; /* rows measured; variants that do not do the op have none */
} bench_point;

/* Measure p (op, dt, rt, n, numpy_* set by the caller). 0, or -1 after an error line. */
int bench_measure_point(const bench_run *r, bench_point *p);

void bench_report_header(const bench_run *r);
void bench_report_point(const bench_run *r, const bench_point *p);

#endif

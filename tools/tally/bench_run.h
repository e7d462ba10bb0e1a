/* `tally bench`'s state: the run (context, variants, peers) and one measured point
 * (op, dtype, n) with its rows (variant × accuracy). bench_point.c measures a point,
 * bench_report.c prints it, cmd_bench.c drives the loops. */
#ifndef TALLY_CLI_BENCH_RUN_H
#define TALLY_CLI_BENCH_RUN_H

#include "bench_opts.h"
#include "bench_ref.h"
#include "bench_timer.h"
#include "cub_peer.h"
#include "numpy_peer.h"
#include "tally.h"

#include <stddef.h>
#include <stdint.h>

#define BENCH_MAX_VARIANTS 32
#define BENCH_MAX_ROWS (2 * BENCH_MAX_VARIANTS)

/* --local-sizes: the best work-group size seen for each (op, dtype, n, variant, accuracy). */
#define BENCH_SWEEP_MAX 1024
typedef struct {
  tally_op op;
  tally_dtype dt;
  int64_t n;
  const char *variant;
  tally_accuracy acc;
  int local;
  double median_us, bytes;
} bench_sweep_entry;
typedef struct {
  bench_sweep_entry e[BENCH_SWEEP_MAX];
  int n;
} bench_sweep;

typedef struct {
  const bench_opts *o;
  tally_context *ctx;
  int local;           /* --local-sizes: this run's work-group size */
  bench_sweep *sweep;  /* --local-sizes: where each point's rows are noted, else NULL */
  tally_context_info info;
  const char *variants[BENCH_MAX_VARIANTS]; /* the library's strings */
  int nvariants;
  numpy_peer numpy;
  char date[32];
  /* The GPU method (bench_gpu.c): a GPU device, or --gpu-method. */
  int gpu;
  cub_peer cub;
  int peer_device;            /* the CUDA device number the CUB peer runs on */
  void *flush_a, *flush_b;    /* device buffers of flush_bytes each; NULL: no flush */
  int64_t flush_bytes;
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
  /* The GPU method: probe_us, peer and peer_us come from the CUB peer's call times. */
  double probe_kernel_us;     /* < 0: absent */
  const char *probe_note;     /* why the probe is absent, or NULL */
  double peer_kernel_us;      /* < 0: absent */
  const char *peer_note;      /* why the peer is absent, or NULL */
  char peer_result[64];       /* the peer's result as it printed it */
  int64_t peer_index;         /* ARG*: the peer's index */
  double peer_err;            /* the peer's relative error; NaN: none */
} bench_point;

/* Measure p (op, dt, rt, n, numpy_* set by the caller). 0, or -1 after an error line. */
int bench_measure_point(const bench_run *r, bench_point *p);

void bench_report_header(const bench_run *r);
void bench_report_point(const bench_run *r, const bench_point *p);

/* The GPU method (bench_gpu.c): set up (the L2 flush's buffers, the CUB peer), measure
 * every size of one (op, dtype) (0 measured, -1 failed after an error line), free. */
int bench_gpu_init(bench_run *r);
int bench_gpu_measure_op_dtype(const bench_run *r, tally_op op, tally_dtype dt, tally_dtype rt);
void bench_gpu_free(bench_run *r);
/* Flush the L2 (a device copy and a read of flush_bytes); 0, or -1 after an error line. */
int bench_gpu_flush(const bench_run *r);
/* `tally bench --scan` on a GPU (bench_scan_gpu.c): every size of op and dtype dt. */
int bench_scan_gpu_dtype(const bench_run *r, tally_op op, tally_dtype dt);
void bench_scan_gpu_header(const bench_run *r, int hist);
/* `tally bench --hist` on a GPU (bench_scan_gpu.c): every size of dtype dt, uniform and
 * skewed data (and with --hist-edges data on the edges), against CUB's HistogramEven
 * (256 bins, f32 and u8; not on the edges). */
int bench_hist_gpu_dtype(const bench_run *r, tally_dtype dt);
/* The bench's histogram data (bench_scan.c) by kind: uniform over [lo, hi), one value
 * (skewed), or uniform values rounded down to a multiple of (hi - lo)/bins (edges: on
 * the bins' edges, which for a float type and 256 bins are floats, so exactly there). */
enum { BENCH_HIST_UNIFORM, BENCH_HIST_SKEWED, BENCH_HIST_EDGES };
void bench_hist_data(void *x, tally_dtype dt, int64_t n, int kind, int64_t bins, uint64_t seed,
                     double *lo, double *hi);
/* Its output (bench_report_gpu.c). */
void bench_gpu_report_header(const bench_run *r);
void bench_gpu_report_point(const bench_run *r, const bench_point *p);

/* Shared by both reports (bench_report.c). */
const char *bench_acc_name(tally_accuracy a);
const char *bench_nan_name(tally_nan n);
void bench_format_n(char *buf, size_t size, int64_t n); /* "2^20", or the number */
void bench_json_num(const char *key, double v, int absent); /* ,"key":v or null */
void bench_json_str(const char *key, const char *s);       /* ,"key":"s" or null */

#endif

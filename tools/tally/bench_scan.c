/* `tally bench --scan` and `tally bench --hist` (CPU): scans and histograms timed side by
 * side with their ceiling, in rounds (bench_timer.h), each contender after bench_settle().
 *
 * --scan: tally_scan of each op (--ops: sum, prod, min, max, affine: the a's and the b's
 * in, 2 results an element out), dtype and size, against the copy probe (bench/copy_probe.c:
 * read the input's bytes and write the output's, the traffic a scan cannot avoid), on one
 * thread and on all; GB/s counts both the bytes read and the bytes written. Also the
 * copy with streaming stores (all threads; ratio_nt): the ceiling where a scan streams
 * its output too (outputs beyond the last-level cache, src/cpu/scan.c).
 * --hist: tally_histogram with --bins even bins over the data's range, on uniform data
 * (every bin alike) and on skewed data (every element in one bin), against the read
 * probe (bench/probe.c); GB/s counts the bytes read. */
#include "bench_opts.h"
#include "bench_run.h"
#include "bench_util.h"
#include "cli.h"
#include "copy_probe.h"
#include "probe.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXC 8

typedef struct {
  void *dst;
  size_t out_bytes;
  void *src;
  size_t in_bytes;
  int parallel;
  int stream; /* probe_copy_stream */
} copy_job;

static int run_copy(void *arg) {
  copy_job *j = arg;
  (j->stream ? probe_copy_stream : probe_copy)(j->dst, j->out_bytes, j->src, j->in_bytes, j->parallel);
  return 0;
}

typedef struct {
  const void *x;
  size_t bytes;
  int parallel;
  volatile uint64_t sink;
} read_job;

static int run_read(void *arg) {
  read_job *j = arg;
  j->sink ^= probe_read(j->x, NULL, j->bytes, j->parallel);
  return 0;
}

typedef struct {
  tally_context *ctx;
  tally_array in, in2, out, counts; /* in2: AFFINE's b's */
  tally_scan_options so;
  tally_hist_spec hs;
  tally_op op; /* the scan's */
  int hist;
  tally_status st;
} tally_job;

static int run_tally(void *arg) {
  tally_job *j = arg;
  j->st = j->hist ? tally_histogram(j->ctx, &j->in, NULL, &j->hs, &j->counts, NULL, NULL)
                  : tally_scan(j->ctx, j->op, &j->in, j->op == TALLY_AFFINE ? &j->in2 : NULL, &j->out, &j->so);
  return j->st != TALLY_OK;
}

/* Time contenders [0, nc) in rounds; medians into us[]. 0, or -1 after an error line. */
static int time_all(const bench_opts *o, tally_context *ctx, bench_series *se, int nc,
                    tally_job *const *jobs, double *us, double *busy) {
  int rounds = o->timing.rounds > 0 ? o->timing.rounds : 1;
  bench_cpu_mark m0, m1;
  bench_cpu_mark_now(&m0);
  for (int k = 0; k < rounds; k++)
    for (int i = 0; i < nc; i++) {
      bench_settle();
      int rc = bench_series_round(&se[i], &o->timing, k);
      if (rc == 0) continue;
      if (jobs[i] && jobs[i]->st != TALLY_OK) cli_lib_error(ctx, jobs[i]->st);
      else cli_error("out of memory");
      return -1;
    }
  bench_cpu_mark_now(&m1);
  *busy = bench_others_busy(&m0, &m1);
  for (int i = 0; i < nc; i++) {
    bench_stats st;
    bench_series_stats(&se[i], &st);
    us[i] = st.median_us;
  }
  return 0;
}

static void header(const bench_run *r, int hist) {
  if (r->o->json) return;
  printf("# tally bench --%s: device %s (%s, isa %s, %d threads), %s%s\n", hist ? "hist" : "scan",
         r->info.backend, r->info.device, r->info.isa, r->info.threads, r->date,
         hist || !r->o->order ? "" : r->o->order == 1 ? "; ascending input" : "; descending input");
  if (hist)
    printf("%-6s %6s %10s %-8s %11s %9s %12s %9s %7s\n", "dtype", "bins", "n", "data", "median_us",
           "GB/s", "probe_GB/s", "ratio", "busy");
  else
    printf("%-6s %-4s %10s %-8s %11s %9s %11s %9s %9s %7s\n", "dtype", "op", "n", "accuracy",
           "median_us", "GB/s", "copy_GB/s", "ratio", "ratio_nt", "busy");
}

static void row(const bench_run *r, int hist, tally_op op, tally_dtype dt, int64_t n, const char *what,
                double us, double bytes, double probe_us, int probe_threads_used, double stream_us,
                double busy) {
  char ns[32];
  bench_format_n(ns, sizeof ns, n);
  double gbps = bytes / us * 1e-3, pg = bytes / probe_us * 1e-3, sg = bytes / stream_us * 1e-3;
  if (r->o->json) {
    printf("{\"kind\":\"%s\"", hist ? "hist" : "scan");
    bench_json_str("backend", r->info.backend);
    bench_json_str("device", r->info.device);
    printf(",\"threads\":%d", r->info.threads);
    bench_json_str("date", r->date);
    if (!hist) bench_json_str("op", tally_op_name(op));
    if (!hist && r->o->order) bench_json_str("order", r->o->order == 1 ? "ascending" : "descending");
    bench_json_str("dtype", tally_dtype_name(dt));
    printf(",\"n\":%" PRId64, n);
    if (hist) printf(",\"bins\":%" PRId64 ",\"data\":\"%s\"", r->o->bins, what);
    else bench_json_str("accuracy", what);
    bench_json_num("median_us", us, 0);
    bench_json_num("bytes", bytes, 0);
    bench_json_num("gbps", gbps, 0);
    bench_json_num(hist ? "probe_gbps" : "copy_gbps", pg, 0);
    printf(",\"probe_threads\":%d", probe_threads_used);
    bench_json_num(hist ? "ratio_probe" : "ratio_copy", gbps / pg, 0);
    if (!hist) {
      bench_json_num("copy_stream_gbps", sg, 0);
      bench_json_num("ratio_copy_stream", gbps / sg, 0);
    }
    bench_json_num("others_busy", busy, busy < 0);
    puts("}");
  } else if (hist) {
    printf("%-6s %6" PRId64 " %10s %-8s %11.1f %9.2f %12.2f %9.3f %7.2f\n", tally_dtype_name(dt),
           r->o->bins, ns, what, us, gbps, pg, gbps / pg, busy);
  } else {
    printf("%-6s %-4s %10s %-8s %11.1f %9.2f %11.2f %9.3f %9.3f %7.2f\n", tally_dtype_name(dt),
           tally_op_name(op), ns, what, us, gbps, pg, gbps / pg, gbps / sg, busy);
  }
  fflush(stdout);
}

static int scan_point(const bench_run *r, tally_op op, tally_dtype dt, int64_t n) {
  const bench_opts *o = r->o;
  tally_dtype rt;
  if (tally_result_dtype(op, dt, &rt) != TALLY_OK) return 1;
  const int w = op == TALLY_AFFINE ? 2 : 1; /* inputs and results an element */
  /* AFFINE's a's and b's side by side in one buffer, so that one copy probe moves the
   * same bytes as the scan */
  size_t ib = (size_t)n * tally_dtype_size(dt) * w, ob = (size_t)n * tally_dtype_size(rt) * w;
  void *x = bench_alloc(ib), *y = bench_alloc(ob);
  if (!x || !y) { bench_free(x); bench_free(y); cli_error("out of memory"); return -1; }
  for (int k = 0; k < w; k++) {
    char *at = (char *)x + (size_t)k * (ib / 2);
    if (o->order) bench_fill_ramp(at, dt, n, o->order == 2);
    else bench_fill(at, dt, n, o->seed, (uint64_t)k);
  }
  copy_job c1 = {y, ob, x, ib, 0, 0}, ca = {y, ob, x, ib, 1, 0}, cs = {y, ob, x, ib, 1, 1};
  tally_job tj[2];
  bench_series se[MAXC];
  tally_job *jobs[MAXC] = {0};
  int nc = 0, nt = 0;
  bench_series_init(&se[nc++], run_copy, &c1);
  bench_series_init(&se[nc++], run_copy, &ca);
  bench_series_init(&se[nc++], run_copy, &cs);
  for (int a = 0; a < 2; a++) {
    if (!(o->accuracies & (a ? BENCH_ACC_FAST : BENCH_ACC_DEFAULT))) continue;
    tally_job *j = &tj[nt++];
    memset(j, 0, sizeof *j);
    j->ctx = r->ctx;
    j->op = op;
    j->in = tally_array_1d(x, dt, n);
    j->in2 = tally_array_1d((char *)x + ib / 2, dt, n);
    j->out = tally_array_1d(y, rt, n * w);
    tally_scan_options_init(&j->so);
    j->so.accuracy = a ? TALLY_ACCURACY_FAST : TALLY_ACCURACY_DEFAULT;
    j->so.nan = o->nan;
    jobs[nc] = j;
    bench_series_init(&se[nc++], run_tally, j);
  }
  double us[MAXC], busy;
  int rc = time_all(o, r->ctx, se, nc, jobs, us, &busy);
  if (rc == 0) {
    int pt = us[1] < us[0] ? probe_threads() : 1;
    double probe = us[1] < us[0] ? us[1] : us[0];
    for (int k = 0; k < nt; k++)
      row(r, 0, op, dt, n, bench_acc_name(tj[k].so.accuracy), us[3 + k], (double)(ib + ob), probe, pt,
          us[2], busy);
  }
  for (int i = 0; i < nc; i++) bench_series_free(&se[i]);
  bench_free(x);
  bench_free(y);
  return rc;
}

/* Uniform over the bins, every element the same value, or values on the bins' edges. */
void bench_hist_data(void *x, tally_dtype dt, int64_t n, int kind, int64_t bins, uint64_t seed,
                     double *lo, double *hi) {
  uint64_t s = seed * 0x9e3779b97f4a7c15u + 1;
  int fl = dt == TALLY_F16 || dt == TALLY_BF16 || dt == TALLY_F32 || dt == TALLY_F64;
  size_t es = tally_dtype_size(dt);
  *lo = 0;
  *hi = fl ? 1.0 : (es == 1 ? 256.0 : 65536.0);
  for (int64_t i = 0; i < n; i++) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17; /* xorshift64 */
    double u = kind == BENCH_HIST_SKEWED ? 0.3 : (double)(s >> 11) * 0x1p-53;
    if (kind == BENCH_HIST_EDGES) u = floor(u * (double)bins) / (double)bins; /* k/bins */
    char *p = (char *)x + i * (int64_t)es;
    if (dt == TALLY_F32) { float f = (float)u; memcpy(p, &f, 4); }
    else if (dt == TALLY_F64) memcpy(p, &u, 8);
    else if (dt == TALLY_F16) { uint16_t h = tally_f32_to_f16((float)u); memcpy(p, &h, 2); }
    else if (dt == TALLY_BF16) { uint16_t h = tally_f32_to_bf16((float)u); memcpy(p, &h, 2); }
    else { uint64_t v = (uint64_t)(u * *hi); memcpy(p, &v, es < 8 ? es : 8); }
  }
}

static int hist_point(const bench_run *r, tally_dtype dt, int64_t n) {
  const bench_opts *o = r->o;
  size_t ib = (size_t)n * tally_dtype_size(dt);
  void *x[2] = {bench_alloc(ib), bench_alloc(ib)};
  uint64_t *counts = calloc((size_t)o->bins, sizeof *counts);
  if (!x[0] || !x[1] || !counts) {
    bench_free(x[0]), bench_free(x[1]), free(counts);
    cli_error("out of memory");
    return -1;
  }
  tally_job tj[2];
  bench_series se[MAXC];
  tally_job *jobs[MAXC] = {0};
  read_job r1 = {x[0], ib, 0, 0}, ra = {x[0], ib, 1, 0};
  int nc = 0;
  bench_series_init(&se[nc++], run_read, &r1);
  bench_series_init(&se[nc++], run_read, &ra);
  for (int k = 0; k < 2; k++) {
    tally_job *j = &tj[k];
    memset(j, 0, sizeof *j);
    double lo, hi;
    bench_hist_data(x[k], dt, n, k, o->bins, o->seed, &lo, &hi);
    j->ctx = r->ctx;
    j->hist = 1;
    j->in = tally_array_1d(x[k], dt, n);
    j->counts = tally_array_1d(counts, TALLY_U64, o->bins);
    tally_hist_spec_init(&j->hs);
    j->hs.nbins = o->bins;
    j->hs.lo = lo;
    j->hs.hi = hi;
    jobs[nc] = j;
    bench_series_init(&se[nc++], run_tally, j);
  }
  double us[MAXC], busy;
  int rc = time_all(o, r->ctx, se, nc, jobs, us, &busy);
  if (rc == 0) {
    int pt = us[1] < us[0] ? probe_threads() : 1;
    double probe = us[1] < us[0] ? us[1] : us[0];
    row(r, 1, TALLY_SUM, dt, n, "uniform", us[2], (double)ib, probe, pt, probe, busy);
    row(r, 1, TALLY_SUM, dt, n, "skewed", us[3], (double)ib, probe, pt, probe, busy);
  }
  for (int i = 0; i < nc; i++) bench_series_free(&se[i]);
  bench_free(x[0]);
  bench_free(x[1]);
  free(counts);
  return rc;
}

/* --scan times the ops a scan has a bench for: 0, or an error line and the exit code. */
static int scan_ops_ok(const bench_opts *o) {
  for (int p = 0; o->scan && p < o->nops; p++) {
    tally_op op = o->ops[p];
    if (op != TALLY_SUM && op != TALLY_PROD && op != TALLY_MIN && op != TALLY_MAX && op != TALLY_AFFINE)
      return cli_error("--ops: %s: --scan times sum, prod, min, max and affine", tally_op_name(op)),
             CLI_EXIT_USAGE;
  }
  return 0;
}

int bench_scan_hist(const bench_opts *o) {
  int bad = scan_ops_ok(o);
  if (bad) return bad;
  bench_run r;
  memset(&r, 0, sizeof r);
  r.o = o;
  tally_status st = tally_open(o->device, &r.ctx);
  if (st != TALLY_OK) return cli_lib_error(NULL, st);
  int rc = 0;
  if ((st = tally_context_describe(r.ctx, &r.info)) != TALLY_OK) {
    rc = cli_lib_error(r.ctx, st);
  } else if (strcmp(r.info.backend, "cuda") == 0) {
    bench_utc_date(r.date, sizeof r.date);
    r.gpu = 1;
    if (bench_gpu_init(&r) != 0) {
      rc = CLI_EXIT_FAIL;
    } else {
      for (int pass = 0; pass < 2 && rc == 0; pass++) {
        int hist = pass == 1;
        if (hist ? !o->hist : !o->scan) continue;
        bench_scan_gpu_header(&r, hist);
        for (int p = 0; p < (hist ? 1 : o->nops) && rc == 0; p++)
          for (int d = 0; d < o->ndtypes && rc == 0; d++)
            if ((hist ? bench_hist_gpu_dtype(&r, o->dtypes[d])
                      : bench_scan_gpu_dtype(&r, o->ops[p], o->dtypes[d])) < 0)
              rc = CLI_EXIT_FAIL;
      }
    }
    bench_gpu_free(&r);
  } else if (strcmp(r.info.backend, "cpu") != 0) {
    cli_error("--%s: CPU and CUDA devices only for now (this is %s)", o->hist ? "hist" : "scan",
              r.info.backend);
    rc = CLI_EXIT_USAGE;
  } else if (o->hist && o->hist_edges) {
    cli_error("--hist-edges: GPU devices only for now (this is %s)", r.info.backend);
    rc = CLI_EXIT_USAGE;
  } else if (strcmp(o->variants, "best") != 0) {
    cli_error("--variants: %s: the cpu device scans and counts with best only (the ladders' "
              "rungs run on GPU devices)", o->variants);
    rc = CLI_EXIT_USAGE;
  } else {
    bench_utc_date(r.date, sizeof r.date);
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
      int hist = pass == 1;
      if (hist ? !o->hist : !o->scan) continue;
      header(&r, hist);
      for (int p = 0; p < (hist ? 1 : o->nops) && rc == 0; p++)
        for (int d = 0; d < o->ndtypes && rc == 0; d++)
          for (int i = 0; i < o->nsizes && rc == 0; i++) {
            int x = hist ? hist_point(&r, o->dtypes[d], o->sizes[i])
                         : scan_point(&r, o->ops[p], o->dtypes[d], o->sizes[i]);
            if (x < 0) rc = CLI_EXIT_FAIL;
          }
    }
  }
  tally_close(r.ctx);
  return rc;
}

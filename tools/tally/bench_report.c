/* `tally bench`'s output: a table on the terminal, or one JSON object per line and row. */
#include "bench_run.h"
#include "bench_util.h"
#include "cli.h"
#include "omp_peer.h"
#include "probe.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

const char *bench_acc_name(tally_accuracy a) { return a == TALLY_ACCURACY_FAST ? "fast" : "default"; }
const char *bench_nan_name(tally_nan n) { return n == TALLY_NAN_IGNORE ? "ignore" : "propagate"; }

/* "2^20" for powers of two, else the number. */
void bench_format_n(char *buf, size_t size, int64_t n) {
  int e = 0;
  while (e < 62 && ((int64_t)1 << e) < n) e++;
  if (((int64_t)1 << e) == n) snprintf(buf, size, "2^%d", e);
  else snprintf(buf, size, "%" PRId64, n);
}

/* ,"key":v, or null where absent or not finite (JSON has no NaN or infinity). */
void bench_json_num(const char *key, double v, int absent) {
  if (absent || !isfinite(v)) printf(",\"%s\":null", key);
  else printf(",\"%s\":%.6g", key, v);
}

void bench_json_str(const char *key, const char *s) {
  printf(",\"%s\":", key);
  if (s) cli_json_string(stdout, s);
  else fputs("null", stdout);
}

static void print_json(const bench_run *r, const bench_point *p, const bench_row *w) {
  double gbps = p->bytes / w->plan.median_us * 1e-3, probe_gbps = p->bytes / p->probe_us * 1e-3;
  printf("{\"backend\":");
  cli_json_string(stdout, r->info.backend);
  bench_json_str("device", r->info.device);
  bench_json_str("isa", r->info.isa);
  printf(",\"threads\":%d", r->info.threads);
  bench_json_str("date", r->date);
  bench_json_str("op", tally_op_name(p->op));
  bench_json_str("dtype", tally_dtype_name(p->dt));
  printf(",\"n\":%" PRId64, p->n);
  bench_json_str("variant", w->variant);
  bench_json_str("accuracy", bench_acc_name(w->acc));
  bench_json_str("nan", bench_nan_name(r->o->nan));
  bench_json_num("median_us", w->plan.median_us, 0);
  bench_json_num("min_us", w->plan.min_us, 0);
  printf(",\"runs\":%d,\"batch\":%" PRId64, w->plan.runs, w->plan.batch);
  bench_json_num("reduce_us", w->reduce_us, 0);
  bench_json_num("bytes", p->bytes, 0);
  bench_json_num("gbps", gbps, 0);
  bench_json_num("probe_gbps", probe_gbps, 0);
  printf(",\"probe_threads\":%d", p->probe_nthreads);
  bench_json_str("probe_isa", probe_isa());
  bench_json_num("ratio_probe", gbps / probe_gbps, 0);
  bench_json_str("peer", p->peer);
  bench_json_num("peer_us", p->peer_us, !p->peer);
  bench_json_num("ratio_peer", p->peer_us / w->plan.median_us, !p->peer);
  bench_json_num("numpy_us", p->numpy_us, p->numpy_us < 0);
  bench_json_num("numpy_rel_err", p->numpy_err, p->numpy_us < 0);
  bench_json_num("omp_us", p->omp_us, p->omp_us < 0);
  bench_json_num("omp_rel_err", p->omp_err, p->omp_us < 0);
  bench_json_num("max_rel_err", w->err, !p->have_ref);
  bench_json_num("others_busy", p->others_busy, p->others_busy < 0);
  printf("}\n");
}

void bench_report_header(const bench_run *r) {
  const bench_opts *o = r->o;
  if (r->gpu) {
    bench_gpu_report_header(r);
    return;
  }
  if (o->json) return;
  printf("# tally bench %s: %s, %s (%s, %d threads); nan %s; ", r->date, r->info.backend,
         r->info.device, r->info.isa, r->info.threads, bench_nan_name(o->nan));
  if (o->timing.repeat) printf("median of %d runs", o->timing.repeat);
  else printf("median of >= 5 runs and >= %gs", o->timing.min_time);
  printf(" in %d rounds\n", o->timing.rounds);
  /* A quarter second's look at the machine before starting. */
  bench_cpu_mark m0, m1;
  bench_cpu_mark_now(&m0);
  struct timespec ts = {0, 250000000};
  nanosleep(&ts, NULL);
  bench_cpu_mark_now(&m1);
  double others = bench_others_busy(&m0, &m1);
  if (others > 0.2)
    printf("# warning: other processes keep %.1f CPUs busy: absolute figures will vary, "
           "ratios less (more --rounds help)\n", others);
  printf("# probe: %s read on 1 and %d threads, the faster counts\n", probe_isa(),
         probe_threads());
  if (o->no_peers) {
    printf("# peers: none (--no-peers)\n");
  } else {
    if (r->numpy.present) printf("# peers: numpy %s (%s)", r->numpy.version, r->numpy.python);
    else printf("# peers: numpy absent: %s", r->numpy.why);
    if (omp_peer_threads() > 0) printf("; openmp loop on %d threads\n", omp_peer_threads());
    else printf("; openmp loop absent (built without OpenMP)\n");
  }
  printf("%-13s %-5s %7s %-10s %-7s %10s %7s %10s %11s %-6s %10s %10s %11s\n", "op", "dtype",
         "n", "variant", "acc", "median_us", "GB/s", "probe_GB/s", "ratio_probe", "peer",
         "peer_us", "ratio_peer", "max_rel_err");
  fflush(stdout);
}

static void print_row(const bench_point *p, const bench_row *w) {
  char n[32], peer_us[32] = "-", ratio[32] = "-", err[32] = "-";
  bench_format_n(n, sizeof n, p->n);
  double gbps = p->bytes / w->plan.median_us * 1e-3, probe_gbps = p->bytes / p->probe_us * 1e-3;
  if (p->peer) {
    snprintf(peer_us, sizeof peer_us, "%.3f", p->peer_us);
    snprintf(ratio, sizeof ratio, "%.2f", p->peer_us / w->plan.median_us);
  }
  if (p->have_ref) snprintf(err, sizeof err, "%.2g", w->err);
  printf("%-13s %-5s %7s %-10s %-7s %10.3f %7.2f %10.2f %11.2f %-6s %10s %10s %11s\n",
         tally_op_name(p->op), tally_dtype_name(p->dt), n, w->variant, bench_acc_name(w->acc),
         w->plan.median_us, gbps, probe_gbps, gbps / probe_gbps, p->peer ? p->peer : "-",
         peer_us, ratio, err);
}

void bench_report_point(const bench_run *r, const bench_point *p) {
  if (r->gpu) {
    bench_gpu_report_point(r, p);
    return;
  }
  for (int k = 0; k < p->nrows; k++) {
    if (r->o->json) print_json(r, p, &p->rows[k]);
    else print_row(p, &p->rows[k]);
  }
  fflush(stdout);
}

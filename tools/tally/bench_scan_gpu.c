/* `tally bench --scan` on a GPU: tally_scan (each of --ops: sum, prod, min, max, affine)
 * of device arrays (AFFINE: the a's and the b's, and 2 results an element), each call timed by the host clock from the call to its return (the scan done),
 * after an L2 flush; medians. In the same run, in its own process, the CUB peer times
 * cub::DeviceScan's inclusive scan of the same op and dtype (every dtype but bool) and a
 * device-to-device copy of the bytes a scan reads and writes (its ceiling), the same way
 * (bench/peers/cub_peer.cu). GB/s counts bytes read + written. */
#include "bench_run.h"
#include "bench_util.h"
#include "cli.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_RUNS 50

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* One call of tally_scan or tally_histogram on the arrays of a point. */
typedef struct {
  tally_array in, in2, out; /* in2: AFFINE's b's */
  tally_scan_options so;
  tally_hist_spec hs;
  tally_op op; /* the scan's */
  int hist;
} gpu_call;

static tally_status call_once(const bench_run *r, const gpu_call *g) {
  tally_array out = g->out;
  return g->hist ? tally_histogram(r->ctx, &g->in, NULL, &g->hs, &out, NULL, NULL)
                 : tally_scan(r->ctx, g->op, &g->in, g->op == TALLY_AFFINE ? &g->in2 : NULL, &out, &g->so);
}

/* Median µs of `runs` flushed calls, after two to warm up (kernel build, scratch); < 0
 * after an error line. */
static double time_calls(const bench_run *r, const gpu_call *g, int runs) {
  double *us = malloc((size_t)runs * sizeof *us);
  if (!us) return cli_error("out of memory"), -1;
  for (int k = -2; k < runs; k++) {
    if (bench_gpu_flush(r) != 0) { free(us); return -1; }
    int64_t t0 = bench_now_ns();
    tally_status st = call_once(r, g);
    int64_t t1 = bench_now_ns();
    if (st != TALLY_OK) { free(us); cli_lib_error(r->ctx, st); return -1; }
    if (k >= 0) us[k] = (double)(t1 - t0) * 1e-3;
  }
  qsort(us, (size_t)runs, sizeof *us, cmp_double);
  double m = runs % 2 ? us[runs / 2] : 0.5 * (us[runs / 2 - 1] + us[runs / 2]);
  free(us);
  return m;
}

#define MAX_MODE_VARIANTS 8

/* The variants --variants asks of a scan or histogram bench: "ladder" or "all", every rung
 * and then best; else the names as given (the library refuses a bad one, by name). *buf
 * holds the names (free it). Returns how many, or -1 after an error line. */
static int mode_variants(const char *list, int hist, const char **names, char **buf) {
  static const char *const scan_all[] = {"hillis_steele", "blelloch", "four_kernel", "best"};
  static const char *const hist_all[] = {"hist_simple", "best"};
  *buf = NULL;
  if (!strcmp(list, "ladder") || !strcmp(list, "all")) {
    int k = hist ? 2 : 4;
    for (int i = 0; i < k; i++) names[i] = hist ? hist_all[i] : scan_all[i];
    return k;
  }
  if (!(*buf = strdup(list))) return cli_error("out of memory"), -1;
  int k = 0;
  for (char *save = NULL, *t = strtok_r(*buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
    if (k == MAX_MODE_VARIANTS) return cli_error("--variants: at most %d names", MAX_MODE_VARIANTS), -1;
    names[k++] = t;
  }
  if (!k) return cli_error("--variants: empty list"), -1;
  return k;
}

static void row(const bench_run *r, tally_op op, tally_dtype dt, const char *variant, int64_t n,
                tally_accuracy acc, double us, double bytes, const cub_point *copy,
                const cub_point *cub, const char *cub_why) {
  char ns[32];
  bench_format_n(ns, sizeof ns, n);
  double gbps = bytes / us * 1e-3;
  double cgbps = copy->call_us > 0 ? bytes / copy->call_us * 1e-3 : -1;
  double xcub = cub->call_us > 0 ? cub->call_us / us : -1; /* > 1: tally is faster */
  if (r->o->json) {
    printf("{\"kind\":\"scan\"");
    bench_json_str("backend", r->info.backend);
    bench_json_str("device", r->info.device);
    bench_json_str("date", r->date);
    bench_json_str("op", tally_op_name(op));
    bench_json_str("dtype", tally_dtype_name(dt));
    bench_json_str("variant", variant);
    printf(",\"n\":%" PRId64, n);
    bench_json_str("accuracy", bench_acc_name(acc));
    bench_json_num("median_us", us, 0);
    bench_json_num("bytes", bytes, 0);
    bench_json_num("gbps", gbps, 0);
    bench_json_num("copy_gbps", cgbps, cgbps < 0);
    bench_json_num("ratio_copy", gbps / cgbps, cgbps < 0);
    bench_json_num("cub_us", cub->call_us, cub->call_us < 0);
    bench_json_num("speedup_cub", xcub, xcub < 0);
    if (xcub < 0) bench_json_str("cub_note", cub_why);
    if (r->o->order) {
      bench_json_str("order", r->o->order == 1 ? "ascending" : "descending");
      if (xcub > 0) bench_json_str("cub_input", "random"); /* the peer draws its own */
    }
    puts("}");
  } else {
    char c1[32] = "-", c2[32] = "-", c3[32] = "-", c4[32] = "-";
    if (cgbps > 0) snprintf(c1, sizeof c1, "%.1f", cgbps), snprintf(c2, sizeof c2, "%.3f", gbps / cgbps);
    if (xcub > 0) snprintf(c3, sizeof c3, "%.1f", cub->call_us), snprintf(c4, sizeof c4, "%.3f", xcub);
    printf("%-6s %-4s %-13s %10s %-8s %11.1f %9.1f %10s %9s %11s %9s\n", tally_dtype_name(dt),
           tally_op_name(op), variant, ns, bench_acc_name(acc), us, gbps, c1, c2, c3, c4);
  }
  fflush(stdout);
}

void bench_scan_gpu_header(const bench_run *r, int hist) {
  if (r->o->json) return;
  if (hist) {
    printf("# tally bench --hist: device %s (%s), %s; device arrays, L2 flushed before each "
           "call, medians; GB/s: bytes read; x_cub: CUB's HistogramEven time / tally's (CUB %s)\n",
           r->info.backend, r->info.device, r->date, r->cub.present ? r->cub.version : "absent");
    printf("%-6s %-11s %6s %10s %-8s %11s %9s %11s %9s\n", "dtype", "variant", "bins", "n", "data",
           "median_us", "GB/s", "cub_us", "x_cub");
    return;
  }
  printf("# tally bench --scan: device %s (%s), %s; device arrays, L2 flushed before each call, "
         "medians; copy: a device-to-device copy of the same bytes; x_cub: CUB's time / "
         "tally's (CUB %s)%s%s\n", r->info.backend, r->info.device, r->date,
         r->cub.present ? r->cub.version : "absent",
         !r->o->order ? "" : r->o->order == 1 ? "; ascending input" : "; descending input",
         r->o->order && !r->o->no_peers && r->cub.present ? " (CUB's: random)" : "");
  printf("%-6s %-4s %-13s %10s %-8s %11s %9s %10s %9s %11s %9s\n", "dtype", "op", "variant", "n",
         "accuracy", "median_us", "GB/s", "copy_GB/s", "ratio", "cub_us", "x_cub");
}

int bench_scan_gpu_dtype(const bench_run *r, tally_op op, tally_dtype dt) {
  const bench_opts *o = r->o;
  tally_dtype rt;
  if (tally_result_dtype(op, dt, &rt) != TALLY_OK) return 0;
  int runs = o->timing.repeat ? o->timing.repeat : DEFAULT_RUNS, ns = o->nsizes;
  const int w = op == TALLY_AFFINE ? 2 : 1; /* inputs and results an element */
  size_t es = tally_dtype_size(dt), rs = tally_dtype_size(rt);
  const char *vnames[MAX_MODE_VARIANTS];
  char *vbuf;
  int nv = mode_variants(o->variants, 0, vnames, &vbuf);
  if (nv < 0) { free(vbuf); return -1; }
  cub_point *copy = calloc((size_t)ns, sizeof *copy), *cub = calloc((size_t)ns, sizeof *cub);
  int64_t *half = malloc((size_t)ns * sizeof *half);
  if (!copy || !cub || !half) {
    free(copy), free(cub), free(half), free(vbuf);
    return cli_error("out of memory"), -1;
  }
  for (int i = 0; i < ns; i++) {
    copy[i].call_us = cub[i].call_us = -1;
    half[i] = o->sizes[i] * w * (int64_t)(es + rs) / 2; /* a copy of this reads and writes a scan's bytes */
  }
  char why[256] = "", cwhy[256] = "";
  /* the peer scans every op of every dtype but bool (AFFINE: maps zipped from the a's and
   * b's by a transform iterator, composed in order) */
  int ok_cub = dt != TALLY_BOOL;
  if (!o->no_peers) {
    cub_peer_run(&r->cub, CUB_COPY, TALLY_SUM, TALLY_U8, half, ns, runs, o->seed, r->flush_bytes,
                 r->peer_device, copy, cwhy, sizeof cwhy);
    if (ok_cub)
      cub_peer_run(&r->cub, CUB_SCAN, op, dt, o->sizes, ns, runs, o->seed, r->flush_bytes,
                   r->peer_device, cub, why, sizeof why);
    else
      snprintf(why, sizeof why, "the CUB peer does not scan bool");
  } else {
    snprintf(why, sizeof why, "--no-peers");
  }
  if (!r->cub.present) snprintf(why, sizeof why, "%s", r->cub.why);
  int rc = 0;
  for (int i = 0; i < ns && rc == 0; i++) {
    int64_t n = o->sizes[i];
    void *dx = NULL, *dx2 = NULL, *dy = NULL, *host = NULL;
    tally_status st = tally_mem_alloc(r->ctx, (size_t)n * es, &dx);
    if (!st && w == 2) st = tally_mem_alloc(r->ctx, (size_t)n * es, &dx2);
    if (!st) st = tally_mem_alloc(r->ctx, (size_t)n * w * rs, &dy);
    if (!st) {
      host = bench_alloc((size_t)n * es);
      if (!host) st = TALLY_ENOMEM;
    }
    for (int k = 0; k < w && !st; k++) { /* the a's, then (AFFINE) the b's: stream k */
      if (o->order) bench_fill_ramp(host, dt, n, o->order == 2);
      else bench_fill(host, dt, n, o->seed, (uint64_t)k);
      st = tally_mem_copy(r->ctx, k ? dx2 : dx, TALLY_MEM_DEVICE, host, TALLY_MEM_HOST, (size_t)n * es);
    }
    bench_free(host);
    if (st) {
      cli_lib_error(r->ctx, st);
      rc = -1;
    } else {
      gpu_call g;
      memset(&g, 0, sizeof g);
      g.in = tally_array_1d(dx, dt, n);
      g.in2 = tally_array_1d(dx2, dt, n);
      g.out = tally_array_1d(dy, rt, n * w);
      g.in.mem = g.in2.mem = g.out.mem = TALLY_MEM_DEVICE;
      g.op = op;
      for (int v = 0; v < nv && rc == 0; v++)
        for (int a = 0; a < 2 && rc == 0; a++) {
          if (!(o->accuracies & (a ? BENCH_ACC_FAST : BENCH_ACC_DEFAULT))) continue;
          tally_scan_options_init(&g.so);
          g.so.accuracy = a ? TALLY_ACCURACY_FAST : TALLY_ACCURACY_DEFAULT;
          g.so.nan = o->nan;
          g.so.variant = vnames[v];
          double us = time_calls(r, &g, runs);
          if (us < 0) rc = -1;
          else row(r, op, dt, vnames[v], n, g.so.accuracy, us, (double)n * w * (double)(es + rs), &copy[i],
                   &cub[i], why);
        }
    }
    tally_mem_free(r->ctx, dx);
    tally_mem_free(r->ctx, dx2);
    tally_mem_free(r->ctx, dy);
  }
  free(copy), free(cub), free(half), free(vbuf);
  return rc;
}

int bench_hist_gpu_dtype(const bench_run *r, tally_dtype dt) {
  const bench_opts *o = r->o;
  int runs = o->timing.repeat ? o->timing.repeat : DEFAULT_RUNS, ns = o->nsizes;
  size_t es = tally_dtype_size(dt);
  const char *vnames[MAX_MODE_VARIANTS];
  char *vbuf;
  int nv = mode_variants(o->variants, 1, vnames, &vbuf);
  if (nv < 0) { free(vbuf); return -1; }
  cub_point *cub[2] = {calloc((size_t)ns, sizeof(cub_point)), calloc((size_t)ns, sizeof(cub_point))};
  if (!cub[0] || !cub[1]) { free(cub[0]), free(cub[1]), free(vbuf); return cli_error("out of memory"), -1; }
  char why[256] = "";
  for (int i = 0; i < ns; i++) cub[0][i].call_us = cub[1][i].call_us = -1;
  if (o->no_peers) snprintf(why, sizeof why, "--no-peers");
  else if (!r->cub.present) snprintf(why, sizeof why, "%s", r->cub.why);
  else if (o->bins != 256 || (dt != TALLY_F32 && dt != TALLY_U8))
    snprintf(why, sizeof why, "the CUB peer counts 256 bins of f32 or u8 only");
  else
    for (int k = 0; k < 2; k++)
      cub_peer_run(&r->cub, k ? CUB_HIST_SKEW : CUB_HIST, TALLY_SUM, dt, o->sizes, ns, runs, o->seed,
                   r->flush_bytes, r->peer_device, cub[k], why, sizeof why);
  int rc = 0;
  for (int i = 0; i < ns && rc == 0; i++) {
    int64_t n = o->sizes[i];
    void *dx = NULL, *dc = NULL, *host = NULL;
    tally_status st = tally_mem_alloc(r->ctx, (size_t)n * es, &dx);
    if (!st) st = tally_mem_alloc(r->ctx, (size_t)o->bins * 8, &dc);
    if (!st && !(host = bench_alloc((size_t)n * es))) st = TALLY_ENOMEM;
    const int kinds = o->hist_edges ? 3 : 2;
    for (int k = 0; k < kinds && !st && rc == 0; k++) {
      double lo, hi;
      bench_hist_data(host, dt, n, k, o->bins, o->seed, &lo, &hi);
      st = tally_mem_copy(r->ctx, dx, TALLY_MEM_DEVICE, host, TALLY_MEM_HOST, (size_t)n * es);
      if (st) break;
      for (int v = 0; v < nv && rc == 0; v++) {
        gpu_call g;
        memset(&g, 0, sizeof g);
        g.hist = 1;
        g.in = tally_array_1d(dx, dt, n);
        g.out = tally_array_1d(dc, TALLY_U64, o->bins);
        g.in.mem = g.out.mem = TALLY_MEM_DEVICE;
        tally_hist_spec_init(&g.hs);
        g.hs.nbins = o->bins;
        g.hs.lo = lo;
        g.hs.hi = hi;
        g.hs.variant = vnames[v];
        double us = time_calls(r, &g, runs);
        if (us < 0) { rc = -1; break; }
        const cub_point *c = k < 2 ? &cub[k][i] : NULL; /* CUB has no edges run */
        double bytes = (double)n * (double)es, gbps = bytes / us * 1e-3;
        double x = c && c->call_us > 0 ? c->call_us / us : -1;
        const char *data = k == BENCH_HIST_EDGES ? "edges" : k == BENCH_HIST_SKEWED ? "skewed" : "uniform";
        char ns_s[32], c1[32] = "-", c2[32] = "-";
        bench_format_n(ns_s, sizeof ns_s, n);
        if (x > 0) snprintf(c1, sizeof c1, "%.1f", c->call_us), snprintf(c2, sizeof c2, "%.3f", x);
        if (o->json) {
          printf("{\"kind\":\"hist\"");
          bench_json_str("backend", r->info.backend);
          bench_json_str("device", r->info.device);
          bench_json_str("date", r->date);
          bench_json_str("dtype", tally_dtype_name(dt));
          bench_json_str("variant", vnames[v]);
          printf(",\"n\":%" PRId64 ",\"bins\":%" PRId64 ",\"data\":\"%s\"", n, o->bins, data);
          bench_json_num("median_us", us, 0);
          bench_json_num("gbps", gbps, 0);
          bench_json_num("cub_us", c ? c->call_us : -1, x < 0);
          bench_json_num("speedup_cub", x, x < 0);
          if (x < 0) bench_json_str("cub_note", c ? why : "CUB's peer has no run on the edges");
          puts("}");
        } else {
          printf("%-6s %-11s %6" PRId64 " %10s %-8s %11.1f %9.1f %11s %9s\n", tally_dtype_name(dt),
                 vnames[v], o->bins, ns_s, data, us, gbps, c1, c2);
        }
        fflush(stdout);
      }
    }
    if (st) { cli_lib_error(r->ctx, st); rc = -1; }
    bench_free(host);
    tally_mem_free(r->ctx, dx);
    tally_mem_free(r->ctx, dc);
  }
  free(cub[0]);
  free(cub[1]);
  free(vbuf);
  return rc;
}

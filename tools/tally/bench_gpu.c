/* `tally bench` on GPU devices (bench/README.md, "GPUs"). The input is in device memory
 * (tally_mem_alloc, tally_mem_copy), or with --host in host memory; a run is one
 * tally_reduce() call timed by the host clock until it returns with the result on the
 * host, after an L2 flush; the median over the runs is reported. The CUB peer and the
 * probe (bench/peers/cub_peer.cu) are timed the same way in their own process, once per
 * (op, dtype) with every size, before tally's turns (while this process holds no input). */
#include "bench_run.h"
#include "bench_util.h"
#include "cli.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define GPU_DEFAULT_RUNS 50
#define GPU_WARMUP_CALLS 2
#define GPU_ROW_CAP_NS 5e9 /* a row stops after 5 s of samples (and at least 3 of them) */
#define GPU_FLUSH_NO_L2 ((int64_t)256 << 20) /* where the device reports no L2 size */

static int runs_wanted(const bench_opts *o) {
  return o->timing.repeat ? o->timing.repeat : GPU_DEFAULT_RUNS;
}

static int two_inputs(tally_op op) { return op == TALLY_DOT || op == TALLY_AFFINE; }

/* The CUDA device number of the device string ("cuda:1" -> 1); 0 otherwise. */
static int cuda_index(const char *device) {
  if (!device) device = getenv("TALLY_DEVICE");
  if (!device || strncmp(device, "cuda:", 5) != 0) return 0;
  return atoi(device + 5);
}

int bench_gpu_init(bench_run *r) {
  const bench_opts *o = r->o;
  r->peer_device = cuda_index(o->device);
  cub_peer_find(&r->cub);
  cub_peer_check(&r->cub, r->peer_device, r->info.device);
  r->flush_bytes = o->flush_bytes >= 0    ? o->flush_bytes
                   : r->info.l2_bytes > 0 ? 4 * r->info.l2_bytes
                                          : GPU_FLUSH_NO_L2;
  r->flush_bytes &= ~(int64_t)15; /* whole f32 elements, 16-byte aligned */
  if (r->flush_bytes == 0) return 0;
  size_t bytes = (size_t)r->flush_bytes;
  tally_status st = tally_mem_alloc(r->ctx, bytes, &r->flush_a);
  if (st == TALLY_OK) st = tally_mem_alloc(r->ctx, bytes, &r->flush_b);
  if (st != TALLY_OK) return cli_lib_error(r->ctx, st), -1;
  /* The buffer read by the flush holds the bench's f32 data: no NaN, nothing unset. */
  void *host = bench_alloc(bytes);
  if (!host) return cli_error("out of memory: %zu bytes for the L2 flush", bytes), -1;
  bench_fill(host, TALLY_F32, (int64_t)(bytes / 4), 7, 0);
  st = tally_mem_copy(r->ctx, r->flush_a, TALLY_MEM_DEVICE, host, TALLY_MEM_HOST, bytes);
  bench_free(host);
  if (st != TALLY_OK) return cli_lib_error(r->ctx, st), -1;
  return 0;
}

void bench_gpu_free(bench_run *r) {
  tally_mem_free(r->ctx, r->flush_a);
  tally_mem_free(r->ctx, r->flush_b);
  r->flush_a = r->flush_b = NULL;
}

/* Evict the input from the L2 and leave no dirty line in it: write one buffer (a
 * device-to-device copy), then read the other (a SUM over it). 0, or -1 (error line). */
int bench_gpu_flush(const bench_run *r) {
  if (!r->flush_a) return 0;
  size_t bytes = (size_t)r->flush_bytes;
  tally_status st =
      tally_mem_copy(r->ctx, r->flush_b, TALLY_MEM_DEVICE, r->flush_a, TALLY_MEM_DEVICE, bytes);
  if (st == TALLY_OK) {
    float sink;
    tally_array in = tally_array_1d(r->flush_a, TALLY_F32, (int64_t)(bytes / 4));
    in.mem = TALLY_MEM_DEVICE;
    tally_array out = tally_array_1d(&sink, TALLY_F32, 1);
    st = tally_reduce(r->ctx, TALLY_SUM, &in, NULL, &out, NULL);
  }
  if (st != TALLY_OK) {
    const char *msg = tally_errmsg(r->ctx);
    cli_error("the L2 flush failed: %s [%s]", *msg ? msg : tally_status_str(st),
              tally_status_name(st));
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------------ one point */

typedef struct {
  tally_array in, in2, out;
  tally_options opt;
  uint64_t result[2];
  double *ns; /* samples */
  int runs;
  double total_ns;
} gpu_job;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void stats_of(gpu_job *j, bench_stats *s) {
  qsort(j->ns, (size_t)j->runs, sizeof *j->ns, cmp_double);
  int m = j->runs / 2;
  double med = j->runs % 2 ? j->ns[m] : 0.5 * (j->ns[m - 1] + j->ns[m]);
  s->median_us = med * 1e-3;
  s->min_us = j->ns[0] * 1e-3;
  s->runs = j->runs;
  s->batch = 1;
}

static tally_status call(const bench_run *r, const bench_point *p, gpu_job *j) {
  return tally_reduce(r->ctx, p->op, &j->in, two_inputs(p->op) ? &j->in2 : NULL, &j->out, &j->opt);
}

/* The peer's printed result as a result of dtype rt, against the reference. */
static double peer_error(const bench_point *p) {
  uint64_t buf[2] = {0, 0};
  const char *t = p->peer_result;
  if (p->op == TALLY_ARGMIN || p->op == TALLY_ARGMAX) {
    int64_t i = p->peer_index;
    memcpy(buf, &i, sizeof i);
  } else if (p->rt == TALLY_F32) {
    float v = strtof(t, NULL);
    memcpy(buf, &v, sizeof v);
  } else if (p->rt == TALLY_F64) {
    double v = strtod(t, NULL);
    memcpy(buf, &v, sizeof v);
  } else if (p->rt == TALLY_I64) {
    int64_t v = strtoll(t, NULL, 10);
    memcpy(buf, &v, sizeof v);
  } else if (p->rt == TALLY_I32) {
    int32_t v = (int32_t)strtol(t, NULL, 10);
    memcpy(buf, &v, sizeof v);
  } else {
    return NAN;
  }
  return bench_ref_error(&p->ref, p->rt, buf);
}

typedef struct {
  void *x, *y;   /* host data (pinned: from tally_mem_alloc_host, with --host-pinned) */
  int pinned;
  void *dx, *dy; /* device copies (NULL with --host) */
  gpu_job jobs[BENCH_MAX_ROWS];
} gpu_point;

static void point_free(const bench_run *r, gpu_point *s) {
  for (int k = 0; k < BENCH_MAX_ROWS; k++) free(s->jobs[k].ns);
  tally_mem_free(r->ctx, s->dx);
  tally_mem_free(r->ctx, s->dy);
  if (s->pinned) {
    tally_mem_free_host(r->ctx, s->x);
    tally_mem_free_host(r->ctx, s->y);
  } else {
    bench_free(s->x);
    bench_free(s->y);
  }
  free(s);
}

/* Data, reference, and the device copies. 0, or -1 (error line). */
static int prepare(const bench_run *r, bench_point *p, gpu_point *s) {
  size_t bytes = (size_t)p->n * tally_dtype_size(p->dt);
  int two = two_inputs(p->op);
  if (r->o->host == 2) { /* pinned host memory: the DMA reads it where it is */
    s->pinned = 1;
    tally_status st = tally_mem_alloc_host(r->ctx, bytes, &s->x);
    if (st == TALLY_OK && two) st = tally_mem_alloc_host(r->ctx, bytes, &s->y);
    if (st != TALLY_OK) return cli_lib_error(r->ctx, st), -1;
  } else {
    s->x = bench_alloc(bytes);
    s->y = two ? bench_alloc(bytes) : NULL;
  }
  if (!s->x || (two && !s->y)) {
    cli_error("out of memory: %" PRId64 " elements of %s", p->n, tally_dtype_name(p->dt));
    return -1;
  }
  bench_fill(s->x, p->dt, p->n, r->o->seed, 0);
  if (two) bench_fill(s->y, p->dt, p->n, r->o->seed, 1);
  p->bytes = (double)bytes * (two ? 2 : 1);
  p->have_ref = bench_ref_compute(p->op, p->dt, s->x, s->y, p->n, &p->ref) == 0;
  p->peer_err = NAN;
  if (p->peer && p->have_ref && p->peer_result[0]) p->peer_err = peer_error(p);
  if (r->o->host) return 0;
  tally_status st = tally_mem_alloc(r->ctx, bytes, &s->dx);
  if (st == TALLY_OK)
    st = tally_mem_copy(r->ctx, s->dx, TALLY_MEM_DEVICE, s->x, TALLY_MEM_HOST, bytes);
  if (st == TALLY_OK && two) st = tally_mem_alloc(r->ctx, bytes, &s->dy);
  if (st == TALLY_OK && two)
    st = tally_mem_copy(r->ctx, s->dy, TALLY_MEM_DEVICE, s->y, TALLY_MEM_HOST, bytes);
  if (st != TALLY_OK) return cli_lib_error(r->ctx, st), -1;
  return 0;
}

/* The rows (variant x accuracy) that do the op, each warmed up. 0, or -1 (error line). */
static int add_rows(const bench_run *r, bench_point *p, gpu_point *s) {
  int runs = runs_wanted(r->o);
  for (int v = 0; v < r->nvariants; v++) {
    for (int a = 0; a < 2; a++) {
      if (!(r->o->accuracies & (a ? BENCH_ACC_FAST : BENCH_ACC_DEFAULT))) continue;
      int k = p->nrows;
      bench_row *w = &p->rows[k];
      gpu_job *j = &s->jobs[k];
      memset(w, 0, sizeof *w);
      w->variant = r->variants[v];
      w->acc = a ? TALLY_ACCURACY_FAST : TALLY_ACCURACY_DEFAULT;
      w->reduce_us = NAN;
      w->err = NAN;
      j->in = tally_array_1d(s->dx ? s->dx : s->x, p->dt, p->n);
      j->in2 = tally_array_1d(s->dx ? s->dy : s->y, p->dt, p->n);
      j->in.mem = j->in2.mem = s->dx ? TALLY_MEM_DEVICE : TALLY_MEM_HOST;
      j->out = tally_array_1d(j->result, p->rt, tally_result_width(p->op));
      tally_options_init(&j->opt);
      j->opt.accuracy = w->acc;
      j->opt.nan = r->o->nan;
      j->opt.variant = w->variant;
      /* Warm-up: the first call compiles and caches the kernels. */
      for (int c = 0; c < GPU_WARMUP_CALLS; c++) {
        tally_status st = call(r, p, j);
        if (st == TALLY_EUNSUPPORTED && c == 0) goto next; /* e.g. naive MIN: no row */
        if (st != TALLY_OK) return cli_lib_error(r->ctx, st), -1;
      }
      j->ns = malloc((size_t)runs * sizeof *j->ns);
      if (!j->ns) return cli_error("out of memory"), -1;
      p->nrows++;
    next:;
    }
  }
  return 0;
}

/* The runs, in rounds: each round, every row takes its share of the runs in turn. */
static int sample(const bench_run *r, bench_point *p, gpu_point *s) {
  int runs = runs_wanted(r->o), rounds = r->o->timing.rounds > 0 ? r->o->timing.rounds : 1;
  if (rounds > runs) rounds = runs;
  for (int k = 0; k < rounds; k++) {
    int share = (int)((int64_t)runs * (k + 1) / rounds - (int64_t)runs * k / rounds);
    for (int i = 0; i < p->nrows; i++) {
      gpu_job *j = &s->jobs[i];
      for (int c = 0; c < share; c++) {
        if (!r->o->timing.repeat && j->runs >= 3 && j->total_ns > GPU_ROW_CAP_NS) break;
        if (bench_gpu_flush(r) != 0) return -1;
        int64_t t0 = bench_now_ns();
        tally_status st = call(r, p, j);
        double ns = (double)(bench_now_ns() - t0);
        if (st != TALLY_OK) return cli_lib_error(r->ctx, st), -1;
        j->ns[j->runs++] = ns;
        j->total_ns += ns;
      }
    }
  }
  return 0;
}

static int measure_point(const bench_run *r, bench_point *p) {
  gpu_point *s = calloc(1, sizeof *s);
  if (!s) return cli_error("out of memory"), -1;
  int rc = prepare(r, p, s);
  if (rc == 0) rc = add_rows(r, p, s);
  if (rc == 0) rc = sample(r, p, s);
  for (int k = 0; rc == 0 && k < p->nrows; k++) {
    bench_row *w = &p->rows[k];
    stats_of(&s->jobs[k], &w->plan);
    if (p->have_ref) w->err = bench_ref_error(&p->ref, p->rt, s->jobs[k].result);
  }
  point_free(r, s);
  return rc;
}

/* ------------------------------------------------------------------ the peer's runs */

typedef struct {
  cub_point *probe, *cub;
  char probe_why[256], cub_why[256];
  int probe_rc, cub_rc; /* cub_peer_run's; 1: not run */
} peer_runs;

static void run_peers(const bench_run *r, tally_op op, tally_dtype dt, peer_runs *pr) {
  const bench_opts *o = r->o;
  int k = two_inputs(op) ? 2 : 1, reps = runs_wanted(o);
  int64_t *bytes = malloc((size_t)o->nsizes * sizeof *bytes);
  pr->probe_rc = pr->cub_rc = 1;
  if (!bytes) return;
  for (int i = 0; i < o->nsizes; i++) bytes[i] = o->sizes[i] * (int64_t)tally_dtype_size(dt) * k;
  const char *what = o->host ? "h2d copy" : "probe";
  pr->probe_rc =
      cub_peer_run(&r->cub, o->host ? CUB_H2D : CUB_PROBE, op, dt, bytes, o->nsizes, reps, o->seed,
                   r->flush_bytes, r->peer_device, pr->probe, pr->probe_why, sizeof pr->probe_why);
  if (pr->probe_rc != 0 && r->cub.present)
    cli_error("note: the CUB peer's %s failed on %s %s: %s; reported absent", what,
              tally_op_name(op), tally_dtype_name(dt), pr->probe_why);
  free(bytes);
  if (o->no_peers) {
    snprintf(pr->cub_why, sizeof pr->cub_why, "--no-peers");
  } else if (o->host) {
    snprintf(pr->cub_why, sizeof pr->cub_why,
             "host input: no CUB peer; the probe is the pinned host-to-device copy");
  } else if (!cub_peer_supported(op, dt)) {
    snprintf(pr->cub_why, sizeof pr->cub_why, "CUB has no direct equivalent of %s on %s",
             tally_op_name(op), tally_dtype_name(dt));
  } else {
    pr->cub_rc =
        cub_peer_run(&r->cub, CUB_REDUCE, op, dt, o->sizes, o->nsizes, reps, o->seed,
                     r->flush_bytes, r->peer_device, pr->cub, pr->cub_why, sizeof pr->cub_why);
    if (pr->cub_rc != 0 && r->cub.present)
      cli_error("note: the CUB peer failed on %s %s: %s; reported absent", tally_op_name(op),
                tally_dtype_name(dt), pr->cub_why);
  }
}

/* --local-sizes: keep the fastest work-group size of each row. */
static void note_sweep(const bench_run *r, const bench_point *p) {
  bench_sweep *sw = r->sweep;
  for (int k = 0; k < p->nrows; k++) {
    const bench_row *w = &p->rows[k];
    bench_sweep_entry *e = NULL;
    for (int i = 0; i < sw->n && !e; i++)
      if (sw->e[i].op == p->op && sw->e[i].dt == p->dt && sw->e[i].n == p->n &&
          strcmp(sw->e[i].variant, w->variant) == 0 && sw->e[i].acc == w->acc)
        e = &sw->e[i];
    if (!e) {
      if (sw->n == BENCH_SWEEP_MAX) return;
      e = &sw->e[sw->n++];
      *e = (bench_sweep_entry){p->op, p->dt, p->n, w->variant, w->acc, 0, INFINITY, p->bytes};
    }
    if (w->plan.median_us < e->median_us) {
      e->median_us = w->plan.median_us;
      e->local = r->local;
    }
  }
}

int bench_gpu_measure_op_dtype(const bench_run *r, tally_op op, tally_dtype dt, tally_dtype rt) {
  const bench_opts *o = r->o;
  peer_runs pr;
  memset(&pr, 0, sizeof pr);
  pr.probe = calloc((size_t)o->nsizes, sizeof *pr.probe);
  pr.cub = calloc((size_t)o->nsizes, sizeof *pr.cub);
  bench_point *p = malloc(sizeof *p);
  int rc = 0, rows = 0;
  if (!pr.probe || !pr.cub || !p) {
    cli_error("out of memory");
    rc = -1;
  } else {
    for (int i = 0; i < o->nsizes; i++) pr.probe[i].call_us = pr.cub[i].call_us = -1;
    run_peers(r, op, dt, &pr);
  }
  for (int i = 0; i < o->nsizes && rc == 0; i++) {
    memset(p, 0, sizeof *p);
    p->op = op;
    p->dt = dt;
    p->rt = rt;
    p->n = o->sizes[i];
    p->others_busy = -1;
    p->numpy_us = p->omp_us = -1;
    p->probe_us = pr.probe[i].call_us;
    p->probe_kernel_us = pr.probe[i].kernel_us;
    p->probe_note = p->probe_us < 0 ? pr.probe_why : NULL;
    p->peer_us = p->peer_kernel_us = -1;
    p->peer_index = -1;
    if (pr.cub[i].call_us >= 0) {
      p->peer = "cub";
      p->peer_us = pr.cub[i].call_us;
      p->peer_kernel_us = pr.cub[i].kernel_us;
      snprintf(p->peer_result, sizeof p->peer_result, "%s", pr.cub[i].result);
      p->peer_index = pr.cub[i].index;
    } else {
      p->peer_note = pr.cub_why[0] ? pr.cub_why : "the CUB peer gave no figure for this size";
    }
    rc = measure_point(r, p);
    if (rc == 0) {
      bench_report_point(r, p);
      rows += p->nrows;
      if (r->sweep) note_sweep(r, p);
    }
  }
  if (rc == 0 && rows == 0)
    cli_error("note: %s on %s: none of the variants asked for does it", tally_op_name(op),
              tally_dtype_name(dt));
  free(pr.probe);
  free(pr.cub);
  free(p);
  return rc;
}

/* Measuring one point (op, dtype, n) of `tally bench`: the data, the reference, and the
 * contenders (the probe on one and on all threads, the OpenMP peer, and each variant ×
 * accuracy of tally through a plan, plus tally_reduce() for small inputs) taking turns
 * in rounds (bench_timer.h), each after bench_settle() so that no one's idle threads
 * spin during another's turn. numpy was timed before, in its own process. */
#include "bench_run.h"
#include "bench_util.h"
#include "cli.h"
#include "omp_peer.h"
#include "probe.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Inputs of at most this many bytes also time tally_reduce() (the one-shot call) beside
 * the plan: there the per-call overhead shows; above, it is lost in the noise. */
#define REDUCE_TIMING_MAX_BYTES (4u << 20)
/* probe ×2, OpenMP, and a plan and a tally_reduce per row */
#define MAX_CONTENDERS (3 + 2 * BENCH_MAX_ROWS)

typedef struct {
  const void *x, *y;
  size_t bytes;
  int parallel;
  volatile uint64_t sink; /* keeps the probe's result, so its loads cannot be dropped */
} probe_job;

static int run_probe(void *arg) {
  probe_job *j = arg;
  j->sink ^= probe_read(j->x, j->y, j->bytes, j->parallel);
  return 0;
}

typedef struct {
  tally_op op;
  tally_dtype dt;
  const void *x, *y;
  int64_t n;
  uint64_t out[2];
} omp_job;

static int run_omp(void *arg) {
  omp_job *j = arg;
  return omp_peer_run(j->op, j->dt, j->x, j->y, j->n, j->out) != 0;
}

typedef struct {
  tally_context *ctx;
  tally_plan *plan; /* NULL: this job times tally_reduce() */
  tally_op op;
  tally_array in, in2, out;
  int has2;
  tally_options opt;
  tally_status st;
  uint64_t result[2];
} tally_job;

static int run_tally(void *arg) {
  tally_job *j = arg;
  const tally_array *in2 = j->has2 ? &j->in2 : NULL;
  j->st = j->plan ? tally_plan_run(j->plan, &j->in, in2, &j->out)
                  : tally_reduce(j->ctx, j->op, &j->in, in2, &j->out, &j->opt);
  return j->st != TALLY_OK;
}

/* Everything a point's measurement holds, freed by point_free(). */
typedef struct {
  void *x, *y;
  probe_job probe1, probe_all;
  omp_job omp;
  tally_job plan[BENCH_MAX_ROWS], reduce[BENCH_MAX_ROWS];
  bench_series se[MAX_CONTENDERS];
  tally_job *job_of[MAX_CONTENDERS]; /* the tally job of a contender, for its error */
  int ncont;
  int i_probe1, i_probe_all, i_omp, i_plan[BENCH_MAX_ROWS], i_reduce[BENCH_MAX_ROWS];
} point_state;

static int add(point_state *s, bench_call fn, void *arg, tally_job *job) {
  int i = s->ncont++;
  bench_series_init(&s->se[i], fn, arg);
  s->job_of[i] = job;
  return i;
}

static void point_free(point_state *s) {
  for (int i = 0; i < s->ncont; i++) bench_series_free(&s->se[i]);
  for (int i = 0; i < BENCH_MAX_ROWS; i++) tally_plan_destroy(s->plan[i].plan);
  bench_free(s->x);
  bench_free(s->y);
  free(s);
}

static int two_inputs(tally_op op) { return op == TALLY_DOT || op == TALLY_AFFINE; }

/* The rows' plans: one per variant × accuracy that does the op. 0, or -1 (error line). */
static int add_rows(const bench_run *r, bench_point *p, point_state *s) {
  for (int v = 0; v < r->nvariants; v++) {
    for (int a = 0; a < 2; a++) {
      if (!(r->o->accuracies & (a ? BENCH_ACC_FAST : BENCH_ACC_DEFAULT))) continue;
      int k = p->nrows;
      bench_row *w = &p->rows[k];
      tally_job *j = &s->plan[k];
      memset(w, 0, sizeof *w);
      w->variant = r->variants[v];
      w->acc = a ? TALLY_ACCURACY_FAST : TALLY_ACCURACY_DEFAULT;
      w->reduce_us = NAN;
      w->err = NAN;
      j->ctx = r->ctx;
      j->op = p->op;
      j->in = tally_array_1d(s->x, p->dt, p->n);
      j->has2 = s->y != NULL;
      if (s->y) j->in2 = tally_array_1d(s->y, p->dt, p->n);
      j->out = tally_array_1d(j->result, p->rt, tally_result_width(p->op));
      tally_options_init(&j->opt);
      j->opt.accuracy = w->acc;
      j->opt.nan = r->o->nan;
      j->opt.variant = w->variant;
      tally_status st = tally_plan_create(r->ctx, p->op, &j->in, s->y ? &j->in2 : NULL, &j->out,
                                          &j->opt, &j->plan);
      if (st == TALLY_EUNSUPPORTED) continue; /* e.g. naive MIN: no row */
      if (st != TALLY_OK) return cli_lib_error(r->ctx, st), -1;
      p->nrows++;
      s->i_plan[k] = add(s, run_tally, j, j);
      s->i_reduce[k] = -1;
      if (p->bytes <= REDUCE_TIMING_MAX_BYTES) {
        tally_job *jr = &s->reduce[k];
        *jr = *j;
        jr->plan = NULL;
        jr->out = tally_array_1d(jr->result, p->rt, tally_result_width(p->op));
        s->i_reduce[k] = add(s, run_tally, jr, jr);
      }
    }
  }
  return 0;
}

static double median_of(const point_state *s, int i) {
  bench_stats st;
  bench_series_stats(&s->se[i], &st);
  return st.median_us;
}

int bench_measure_point(const bench_run *r, bench_point *p) {
  const bench_opts *o = r->o;
  size_t bytes = (size_t)p->n * tally_dtype_size(p->dt);
  point_state *s = calloc(1, sizeof *s);
  if (!s) return cli_error("out of memory"), -1;
  s->x = bench_alloc(bytes);
  s->y = two_inputs(p->op) ? bench_alloc(bytes) : NULL;
  if (!s->x || (two_inputs(p->op) && !s->y)) {
    cli_error("out of memory: %" PRId64 " elements of %s", p->n, tally_dtype_name(p->dt));
    point_free(s);
    return -1;
  }
  bench_fill(s->x, p->dt, p->n, o->seed, 0);
  if (s->y) bench_fill(s->y, p->dt, p->n, o->seed, 1);
  p->bytes = (double)bytes * (s->y ? 2 : 1);
  p->have_ref = bench_ref_compute(p->op, p->dt, s->x, s->y, p->n, &p->ref) == 0;

  /* The contenders, in the order they take their turns. */
  s->probe1 = (probe_job){s->x, s->y, bytes, 0, 0};
  s->i_probe1 = add(s, run_probe, &s->probe1, NULL);
  s->i_probe_all = -1;
  if (probe_threads() > 1) {
    s->probe_all = (probe_job){s->x, s->y, bytes, 1, 0};
    s->i_probe_all = add(s, run_probe, &s->probe_all, NULL);
  }
  s->i_omp = -1;
  if (!o->no_peers && omp_peer_supported(p->op, p->dt)) {
    s->omp = (omp_job){p->op, p->dt, s->x, s->y, p->n, {0, 0}};
    s->i_omp = add(s, run_omp, &s->omp, NULL);
  }
  if (add_rows(r, p, s) != 0) {
    point_free(s);
    return -1;
  }

  int rounds = o->timing.rounds > 0 ? o->timing.rounds : 1;
  bench_cpu_mark m0, m1;
  bench_cpu_mark_now(&m0);
  for (int k = 0; k < rounds; k++) {
    for (int i = 0; i < s->ncont; i++) {
      bench_settle();
      int rc = bench_series_round(&s->se[i], &o->timing, k);
      if (rc == 0) continue;
      tally_job *j = s->job_of[i];
      if (j && j->st != TALLY_OK) cli_lib_error(r->ctx, j->st);
      else if (rc == -1) cli_error("out of memory");
      else cli_error("the OpenMP peer failed");
      point_free(s);
      return -1;
    }
  }

  bench_cpu_mark_now(&m1);
  p->others_busy = bench_others_busy(&m0, &m1);
  p->probe_us = median_of(s, s->i_probe1);
  p->probe_nthreads = 1;
  if (s->i_probe_all >= 0 && median_of(s, s->i_probe_all) < p->probe_us) {
    p->probe_us = median_of(s, s->i_probe_all);
    p->probe_nthreads = probe_threads();
  }
  p->omp_us = -1;
  p->omp_err = NAN;
  if (s->i_omp >= 0) {
    p->omp_us = median_of(s, s->i_omp);
    if (p->have_ref) p->omp_err = bench_ref_error(&p->ref, p->rt, s->omp.out);
  }
  p->peer = NULL;
  p->peer_us = -1;
  if (p->numpy_us > 0) { p->peer = "numpy"; p->peer_us = p->numpy_us; }
  if (p->omp_us > 0 && (!p->peer || p->omp_us < p->peer_us)) { p->peer = "openmp"; p->peer_us = p->omp_us; }

  for (int k = 0; k < p->nrows; k++) {
    bench_row *w = &p->rows[k];
    bench_series_stats(&s->se[s->i_plan[k]], &w->plan);
    if (s->i_reduce[k] >= 0) w->reduce_us = median_of(s, s->i_reduce[k]);
    /* The plan's last result, and tally_reduce()'s where it ran: the worse counts. */
    if (p->have_ref) {
      w->err = bench_ref_error(&p->ref, p->rt, s->plan[k].result);
      if (s->i_reduce[k] >= 0) {
        double e = bench_ref_error(&p->ref, p->rt, s->reduce[k].result);
        if (e > w->err || isnan(e)) w->err = e;
      }
    }
  }
  point_free(s);
  return 0;
}

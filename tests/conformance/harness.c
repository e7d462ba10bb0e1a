/* Runs one case: draw the data, lay it out, poison the output, call the library, and
 * check the status, every result value and the guard elements around the output. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "elem.h"
#include "tc.h"

#define GUARD 8           /* poisoned elements before and after the output */
#define MAX_REPORTED 40   /* failures printed in full, outside cases */
#define MAX_PER_PAIR 3    /* failures printed in full per (op, dtype) */

int tc_op_defined(tally_op op, tally_dtype dt) {
  int ok;
  tt_result_dtype(op, dt, &ok);
  return ok;
}

/* GPU ladder variants that compute less than every op (docs/LADDER.md says why): the
 * ones that reorder operands take no non-commutative op, the atomic ones only sums the
 * hardware adds atomically. */
static const char *const commutative_only[] = {"simple_1", "simple_2", "tiled_3", "tiled_4",
                                               "cascade", "single_block", "two_launch",
                                               "last_block", "warp_volatile"};
static const char *const atomic_sums[] = {"atomic", "block_atomic", "reduce_add_4",
                                          "reduce_add_seq"};

static int named(const char *name, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(name, list[i]) == 0) return 1;
  return 0;
}

int tc_variant_supports(const tc_run *R, tally_op op, tally_dtype dt) {
  if (R->variant == TC_OTHER && R->variant_name) {
    if (named(R->variant_name, commutative_only, sizeof commutative_only / sizeof *commutative_only))
      return op != TALLY_AFFINE;
    if (named(R->variant_name, atomic_sums, sizeof atomic_sums / sizeof *atomic_sums))
      return op == TALLY_SUM && dt != TALLY_F64;
    return 1;
  }
  if (R->variant != TC_NAIVE) return 1;
  if (dt == TALLY_BOOL) return 0;
  switch (op) {
  case TALLY_SUM: case TALLY_PROD: case TALLY_SUMSQ: case TALLY_DOT: case TALLY_MEAN:
  case TALLY_VAR: case TALLY_STD: case TALLY_NORM2: return 1;
  default: return 0;
  }
}

static void vfail(tc_run *R, int print, const char *fmt, va_list ap) {
  R->failures++;
  if (!print) return;
  printf("FAIL seed=%" PRIu64 " ", R->seed);
  vprintf(fmt, ap);
  printf("\n");
  fflush(stdout);
}

void tc_fail(tc_run *R, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(R, ++R->other_failures <= MAX_REPORTED, fmt, ap);
  va_end(ap);
}

/* A failure of a case of op on dt: the first few of each pair are printed in full. */
static void fail_op(tc_run *R, tally_op op, tally_dtype dt, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(R, ++R->fail_by[op][dt] <= MAX_PER_PAIR, fmt, ap);
  va_end(ap);
}

static int listed(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *t = list; *t;) {
    size_t len = strcspn(t, ",");
    if (len == n && strncmp(t, name, n) == 0) return 1;
    t += len + (t[len] == ',');
  }
  return 0;
}

int tc_wanted(const tc_run *R, tally_op op, tally_dtype dt) {
  return (!R->only_ops || listed(R->only_ops, tally_op_name(op))) &&
         (!R->only_dtypes || listed(R->only_dtypes, tally_dtype_name(dt)));
}

int tc_begin(tc_run *R, uint64_t *stream) {
  uint64_t id = (uint64_t)R->next_case++;
  if (R->only_case >= 0 && (int64_t)id != R->only_case) return 0;
  /* A sample of the suite (the GPU ladder rungs on slow devices): the offset comes from
   * the seed, so that runs with other seeds cover other cases. */
  if (R->only_case < 0 && R->sample > 1 && (id + R->seed) % (uint64_t)R->sample != 0) return 0;
  R->cases++;
  *stream = id;
  if (R->trace) { /* TALLY_TEST_TRACE=1: a case that never ends is the last one begun */
    printf("begin case=%" PRIu64 "\n", id);
    fflush(stdout);
  }
  return 1;
}

static const char *acc_name(tally_accuracy a) { return a == TALLY_ACCURACY_FAST ? "fast" : "default"; }
static const char *nan_name(tally_nan n) { return n == TALLY_NAN_IGNORE ? "ignore" : "propagate"; }

static void describe_case(const tc_case *c, uint64_t id, char *buf, size_t len) {
  snprintf(buf, len,
           "case=%" PRIu64 " op=%s dtype=%s shape=%" PRId64 "x%" PRId64 " layout=%s axis=%d "
           "dist=%s param=%" PRId64 " accuracy=%s nan=%s ddof=%d call=%s nseg=%d",
           id, tally_op_name(c->op), tally_dtype_name(c->dt), c->rows, c->cols,
           tc_layout_name(c->layout), c->axis, tt_dist_name(c->dist), c->param,
           acc_name(c->acc), nan_name(c->nan), c->ddof,
           c->call == TC_CALL_SEGMENTS ? "segments" : c->call == TC_CALL_PLAN ? "plan" : "reduce",
           c->nseg);
}

/* Draw the case's input (and second input) in logical row-major order. */
static void draw_inputs(tt_rng *rng, const tc_case *c, int64_t n, void *x, void *y) {
  tally_dtype dt = c->dt;
  int fl = tt_is_float(dt);
  tt_genopt g = {c->param, (fl && c->op == TALLY_PROD) ? TT_NEAR_ONE : TT_NORMAL};
  if (c->op == TALLY_AFFINE) {
    tt_genopt plain = {0, TT_NORMAL};
    if (fl && c->dist == TT_NAN && (tt_rng_next(rng) & 1)) {
      tt_genopt gn = {c->param, TT_NEAR_ONE};
      tt_generate(rng, TT_NAN, dt, x, n, &gn); /* the NaN among the a's */
      tt_generate(rng, TT_NORMAL, dt, y, n, &plain);
      return;
    }
    int near = fl || (tt_rng_next(rng) & 1);
    tt_generate(rng, near ? TT_NEAR_ONE : c->dist, dt, x, n, &plain);
    tt_generate(rng, c->dist, dt, y, n, &g);
    return;
  }
  if (c->op == TALLY_DOT && c->dist == TT_ILLCOND) {
    if (tt_rng_next(rng) & 1) tt_generate_dot_illcond(rng, dt, x, y, n);
    else tt_generate_dot_illcond(rng, dt, y, x, n);
    return;
  }
  tt_generate(rng, c->dist, dt, x, n, &g);
  if (c->op == TALLY_DOT) {
    /* The partner holds no specials; sometimes the specials go to in2 instead. */
    int special = c->dist == TT_NAN || c->dist == TT_INF;
    tt_generate(rng, special ? TT_NORMAL : c->dist, dt, y, n, &g);
    if (tt_rng_next(rng) & 1) {
      size_t bytes = (size_t)n * tt_size(dt);
      void *t = malloc(bytes ? bytes : 1);
      memcpy(t, x, bytes);
      memcpy(x, y, bytes);
      memcpy(y, t, bytes);
      free(t);
    }
  }
}

/* Random segment offsets over n elements; empty segments only where the op allows. */
static void draw_offsets(tt_rng *rng, const tc_case *c, int64_t n, int64_t *off) {
  int nonempty = c->op == TALLY_MIN || c->op == TALLY_MAX || c->op == TALLY_MINMAX ||
                 c->op == TALLY_ARGMIN || c->op == TALLY_ARGMAX || c->op == TALLY_MEAN ||
                 c->op == TALLY_VAR || c->op == TALLY_STD;
  int k = c->nseg;
  if (nonempty) {
    /* k + 1 distinct points of [0, n] (Floyd's sampling; the caller keeps k <= n). */
    int m = 0;
    for (int64_t j = n + 1 - (k + 1); j <= n; j++) {
      int64_t t = (int64_t)tt_rng_below(rng, (uint64_t)j + 1);
      for (int i = 0; i < m; i++)
        if (off[i] == t) { t = j; break; }
      off[m++] = t;
    }
  } else {
    for (int i = 0; i <= k; i++) off[i] = (int64_t)tt_rng_below(rng, (uint64_t)n + 1);
  }
  for (int i = 1; i <= k; i++) /* insertion sort: few segments */
    for (int j = i; j > 0 && off[j] < off[j - 1]; j--) {
      int64_t t = off[j]; off[j] = off[j - 1]; off[j - 1] = t;
    }
  if (!nonempty && k >= 2) off[1] = off[0]; /* always an empty segment */
}

static int all_bytes(const void *p, size_t len, unsigned char b) {
  const unsigned char *q = p;
  for (size_t i = 0; i < len; i++)
    if (q[i] != b) return 0;
  return 1;
}

void tc_inst_init(tc_run *R, const tc_case *c, uint64_t id, tc_inst *I) {
  memset(I, 0, sizeof *I);
  I->c = c;
  I->id = id;
  describe_case(c, id, I->desc, sizeof I->desc);
  tt_rng_stream(&I->rng, R->seed, id);
  int ok;
  I->rd = tt_result_dtype(c->op, c->dt, &ok);
  I->W = tt_width(c->op);
  I->has2 = c->op == TALLY_DOT || c->op == TALLY_AFFINE;
  I->twod = c->layout >= TC_2D;
  I->seg = c->call == TC_CALL_SEGMENTS;
  I->n = c->rows * c->cols;
  I->es = (int64_t)tt_size(c->dt);
  I->rs = (int64_t)tt_size(I->rd);

  I->x = tc_alloc((size_t)(I->n * I->es));
  I->y = I->has2 ? tc_alloc((size_t)(I->n * I->es)) : NULL;
  draw_inputs(&I->rng, c, I->n, I->x, I->y);
  tc_place(c->layout, c->dt, I->x, c->rows, c->cols, (int)tt_rng_below(&I->rng, 4), &I->px);
  I->in = I->px.arr;
  if (I->has2) {
    tc_place(c->layout2, c->dt, I->y, c->rows, c->cols, (int)tt_rng_below(&I->rng, 4), &I->py);
    I->in2 = I->py.arr;
  }
  I->nsl = I->seg ? c->nseg : tc_nslices(c->rows, c->cols, c->axis, I->twod);
  if (I->seg) {
    I->offsets = malloc(sizeof(int64_t) * (size_t)(c->nseg + 1));
    draw_offsets(&I->rng, c, I->n, I->offsets);
  }
  I->nout = I->nsl * I->W;
  I->obuf = tc_alloc((size_t)((I->nout + 2 * GUARD) * I->rs));
  I->o = I->obuf + GUARD * I->rs;
  if (c->out2d) I->out = tally_array_2d(I->o, I->rd, I->nsl, I->W);
  else I->out = tally_array_1d(I->o, I->rd, I->nout);
  tally_options_init(&I->opt);
  I->opt.host_input = R->host_input;
  I->opt.accuracy = c->acc;
  I->opt.nan = c->nan;
  I->opt.ddof = c->ddof;
  I->opt.axis = I->twod ? c->axis : -1;
  I->opt.variant = R->variant_name;
  tc_inst_poison(I, 0xa5);
}

void tc_inst_poison(tc_inst *I, unsigned char b) {
  memset(I->obuf, b, (size_t)((I->nout + 2 * GUARD) * I->rs));
}

void tc_inst_free(tc_inst *I) {
  tc_unplace(&I->px);
  if (I->has2) tc_unplace(&I->py);
  free(I->offsets);
  free(I->obuf);
  free(I->x);
  free(I->y);
  memset(I, 0, sizeof *I);
}

int tc_inst_verify(tc_run *R, tc_inst *I, tally_status st, tc_again_fn again, void *arg,
                   char *why, size_t len) {
  const tc_case *c = I->c;
  int failed = 0;
  why[0] = '\0';
  tally_status want = TALLY_OK;
  int64_t bad_slice = -1;
  if (!tc_variant_supports(R, c->op, c->dt)) {
    want = TALLY_EUNSUPPORTED;
  } else {
    int64_t maxlen = I->seg ? I->n : tc_slice_len(c->rows, c->cols, c->axis, I->twod);
    int64_t es = I->es;
    void *xs = tc_alloc((size_t)(maxlen * es)), *ys = I->has2 ? tc_alloc((size_t)(maxlen * es)) : NULL;
    tt_spec spec = {c->op, c->dt, c->acc, c->nan, c->ddof, R->variant == TC_SEQUENTIAL};
    tt_expect e;
    for (int64_t k = 0; k < I->nsl && !failed; k++) {
      int64_t len_k = I->seg ? I->offsets[k + 1] - I->offsets[k] : maxlen;
      for (int64_t j = 0; j < len_k; j++) {
        int64_t li = I->seg ? I->offsets[k] + j
                            : tc_slice_index(c->rows, c->cols, c->axis, I->twod, k, j);
        memcpy((char *)xs + j * es, (char *)I->x + li * es, (size_t)es);
        if (I->has2) memcpy((char *)ys + j * es, (char *)I->y + li * es, (size_t)es);
      }
      if (R->variant == TC_NAIVE) tc_naive_expect(&spec, xs, ys, len_k, &e);
      else tt_reference(&spec, xs, ys, len_k, &e);
      if (e.status != TALLY_OK) {
        if (want == TALLY_OK) { want = e.status; bad_slice = k; }
        continue;
      }
      if (st != TALLY_OK) continue;
      for (int w = 0; w < I->W; w++) {
        double ratio;
        int pass = tt_check(&e, w, I->o, k * I->W + w, &ratio, why, len);
        int ai = c->acc == TALLY_ACCURACY_FAST;
        if (ratio > R->worst[c->op][c->dt][ai]) R->worst[c->op][c->dt][ai] = ratio;
        if (!pass) {
          failed = 1;
          char more[80];
          snprintf(more, sizeof more, " (slice %" PRId64 " of %" PRId64 ")", k, I->nsl);
          strncat(why, more, len - strlen(why) - 1);
          break;
        }
      }
    }
    free(xs);
    free(ys);
  }
  /* An unsupported op on an empty input may fail either way: SEMANTICS.md does not say
   * which check comes first. */
  if (want == TALLY_EUNSUPPORTED && st == TALLY_EEMPTY &&
      tc_slice_len(c->rows, c->cols, c->axis, I->twod) == 0)
    want = TALLY_EEMPTY;
  if (!failed && st != want) {
    failed = 1;
    snprintf(why, len, "status %s, expected %s%s%s", tally_status_name(st),
             tally_status_name(want), st ? ": " : "", st ? tally_errmsg(R->ctx) : "");
    if (bad_slice >= 0) {
      char more[64];
      snprintf(more, sizeof more, " (slice %" PRId64 ")", bad_slice);
      strncat(why, more, len - strlen(why) - 1);
    }
  }
  if (!failed && st == TALLY_OK) {
    int64_t rs = I->rs, nout = I->nout;
    if (!all_bytes(I->obuf, (size_t)(GUARD * rs), 0xa5) ||
        !all_bytes(I->o + nout * rs, (size_t)(GUARD * rs), 0xa5)) {
      failed = 1;
      snprintf(why, len, "wrote outside the output's %" PRId64 " values", nout);
    }
    /* Values still holding the poison: run again with another poison to tell. */
    unsigned char *was = calloc((size_t)nout + 1, 1);
    int poisoned = 0;
    for (int64_t v = 0; v < nout; v++)
      poisoned |= was[v] = (unsigned char)all_bytes(I->o + v * rs, (size_t)rs, 0xa5);
    if (!failed && poisoned) {
      memset(I->o, 0x5a, (size_t)(nout * rs));
      again(R, I, arg);
      for (int64_t v = 0; v < nout && !failed; v++)
        if (was[v] && all_bytes(I->o + v * rs, (size_t)rs, 0x5a)) {
          failed = 1;
          snprintf(why, len, "result value %" PRId64 " was never written", v);
        }
    }
    free(was);
  }
  return !failed;
}

static tally_status do_call(tc_run *R, tc_inst *I, void *arg) {
  (void)arg;
  const tc_case *c = I->c;
  if (c->call == TC_CALL_SEGMENTS)
    return tally_reduce_segments(R->ctx, c->op, &I->in, I->has2 ? &I->in2 : NULL, I->offsets,
                                 c->nseg, &I->out, &I->opt);
  return tally_reduce(R->ctx, c->op, &I->in, I->has2 ? &I->in2 : NULL, &I->out, &I->opt);
}

tally_status tc_inst_reduce(tc_run *R, tc_inst *I) { return do_call(R, I, NULL); }

/* A GPU ladder variant (--variant, R->max_slices) reduces slice after slice, a few launches each: cases of
 * thousands of short slices (axis reductions of 70001 x 2, many segments) would take
 * minutes each and test nothing the shorter ones do not, so they are left out, and
 * counted. */
int tc_run_case(tc_run *R, const tc_case *c) {
  uint64_t id;
  int64_t slices = c->nseg > 0 ? c->nseg : tc_nslices(c->rows, c->cols, c->axis, c->layout >= TC_2D);
  if (!tc_wanted(R, c->op, c->dt)) return 1; /* --ops / --dtypes: not counted */
  if (R->max_slices > 0 && slices > R->max_slices) {
    R->skipped++;
    return 1;
  }
  if (!tc_begin(R, &id)) return 1;
  tc_inst I;
  tc_case cc = *c;
  cc.out2d = id & 1;
  /* The second input sometimes gets another layout of the same shape. */
  tt_rng pick;
  tt_rng_stream(&pick, R->seed, ~id);
  cc.layout2 = c->layout;
  if (tt_rng_below(&pick, 3) == 0)
    cc.layout2 = c->layout >= TC_2D ? (tc_layout)(TC_2D + tt_rng_below(&pick, 3))
                                    : (tc_layout)tt_rng_below(&pick, 3);
  tc_inst_init(R, &cc, id, &I);
  struct timespec t0, t1;
  if (R->trace) timespec_get(&t0, TIME_UTC);
  tally_status st = do_call(R, &I, NULL);
  char why[512];
  int ok = tc_inst_verify(R, &I, st, do_call, NULL, why, sizeof why);
  if (!ok) fail_op(R, c->op, c->dt, "%s: %s", I.desc, why);
  if (R->trace) { /* TALLY_TEST_TRACE=1: every case and its time (finding slow cases) */
    timespec_get(&t1, TIME_UTC);
    printf("trace %.3f s %s\n", (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec), I.desc);
    fflush(stdout);
  }
  tc_inst_free(&I);
  return ok;
}

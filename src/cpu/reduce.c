/* The CPU driver for the best variant: cut slices into fixed chunks, reduce the chunks on
 * the thread pool, merge chunk parts in index order, and write each slice's result.
 *
 * The chunking never depends on the thread count, and chunk parts are merged in index
 * order on one thread, so results are the same for any number of threads. */
#include "cpu.h"
#include "kern_load.h"

#include <float.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct {
  const tally__problem *p;
  const tally__cpu_ctx *c;
  tally__kernel kern;
  tally__family fam;
  tally__kparams kp;
  int64_t esz;
} plan_t;

static void plan_init(plan_t *pl, const tally__cpu_ctx *c, const tally__problem *p) {
  pl->p = p;
  pl->c = c;
  pl->fam = tally__family_of(p->op, p->dtype);
  pl->kern = c->kernels[pl->fam][p->dtype];
  pl->esz = (int64_t)tally_dtype_size(p->dtype);
  bool is_int = tally__dtype_kind(p->dtype) != TALLY__KIND_FLOAT;
  pl->kp.fast = p->opt.accuracy == TALLY_ACCURACY_FAST;
  pl->kp.ignore_nan = p->opt.nan == TALLY_NAN_IGNORE;
  pl->kp.square = p->op == TALLY_SUMSQ || p->op == TALLY_NORM2;
  /* MEAN of integers sums exactly in 128 bits; NORM2 of integers squares in f64. */
  pl->kp.exact = is_int && (p->op == TALLY_MEAN || p->op == TALLY_NORM2);
  pl->kp.scale = 1.0;
  pl->kp.shift = 0.0;
}

/* ------------------------------------------------------------ walking a slice */

typedef struct {
  const char *x, *y; /* logical element 0 of the slice */
  int64_t n;         /* elements */
} slice_t;

static slice_t slice_at(const plan_t *pl, const char *in, const char *in2, int64_t k) {
  const tally__problem *p = pl->p;
  slice_t s;
  int64_t start0, start1;
  if (p->offsets) {
    start0 = p->offsets[k] * p->cstride[0];
    start1 = p->offsets[k] * p->cstride[1];
    s.n = p->offsets[k + 1] - p->offsets[k];
  } else {
    start0 = k * p->slice_stride[0];
    start1 = k * p->slice_stride[1];
    s.n = p->n;
  }
  s.x = in + start0 * pl->esz;
  s.y = in2 ? in2 + start1 * pl->esz : NULL;
  return s;
}

/* Reduce logical elements [lo, hi) of a slice into *acc: one kernel call for a strided
 * run, one per row piece for a 2-D walk (axis -1 over a non-contiguous 2-D input). */
static void reduce_range(const plan_t *pl, const tally__kparams *kp, const slice_t *s,
                         int64_t lo, int64_t hi, tally__part *acc) {
  const tally__problem *p = pl->p;
  const int64_t e = pl->esz;
  if (p->rows <= 1) {
    pl->kern(acc, s->x + lo * p->cstride[0] * e, s->y ? s->y + lo * p->cstride[1] * e : NULL,
             p->cstride[0], p->cstride[1], hi - lo, lo, kp);
    return;
  }
  for (int64_t cur = lo; cur < hi;) {
    int64_t r = cur / p->cols, c = cur % p->cols;
    int64_t len = p->cols - c < hi - cur ? p->cols - c : hi - cur;
    pl->kern(acc, s->x + (r * p->rstride[0] + c * p->cstride[0]) * e,
             s->y ? s->y + (r * p->rstride[1] + c * p->cstride[1]) * e : NULL, p->cstride[0],
             p->cstride[1], len, cur, kp);
    cur += len;
  }
}

/* The kernel parameters of one slice: VAR works relative to the slice's first element
 * (0 if that is not finite), the same for every chunk of the slice. */
static tally__kparams slice_kparams(const plan_t *pl, const slice_t *s) {
  tally__kparams kp = pl->kp;
  if (pl->fam == TALLY__FAM_VAR && s->n > 0) {
    double k0 = rd_d(pl->p->dtype, s->x, 0);
    kp.shift = isfinite(k0) ? k0 : 0.0;
  }
  return kp;
}

static int64_t nchunks(int64_t n) {
  int64_t c = tally__chunk_len(n);
  return (n + c - 1) / c;
}

/* One chunk's part, from the identity: the same whichever thread computes it. */
static void chunk_part(const plan_t *pl, const tally__kparams *kp, const slice_t *s, int64_t c,
                       tally__part *part) {
  tally__part_init(part, pl->fam, 0);
  int64_t len = tally__chunk_len(s->n);
  int64_t lo = c * len, hi = lo + len < s->n ? lo + len : s->n;
  reduce_range(pl, kp, s, lo, hi, part);
}

static void reduce_slice_serial(const plan_t *pl, const tally__kparams *kp, const slice_t *s,
                                tally__part *acc) {
  tally__part_init(acc, pl->fam, 0);
  for (int64_t c = 0, nc = nchunks(s->n); c < nc; c++) {
    tally__part part;
    chunk_part(pl, kp, s, c, &part);
    tally__part_merge(acc, &part, pl->fam);
  }
}

/* ------------------------------------------------------------ NORM2 of f64 */

static double pair_value(const tally__part *a) { return tally__pair_value(a); }

/* NORM2 of f64: if the plain sum of squares overflowed or fell where squares lose bits
 * to underflow, redo it with the input scaled by a power of two (exact) so the largest
 * magnitude is near 1. Serial: it is rare. */
static double norm2_f64(const plan_t *pl, const slice_t *s, double ss) {
  if (!tally__norm2_needs_rescue(ss)) return sqrt(ss);
  if (ss == 0.0 && s->n == 0) return 0.0;
  plan_t mm = *pl;
  mm.fam = TALLY__FAM_MINMAX;
  mm.kern = pl->c->kernels[TALLY__FAM_MINMAX][TALLY_F64];
  tally__part keys;
  reduce_slice_serial(&mm, &pl->kp, s, &keys);
  double answer;
  int e;
  if (!tally__norm2_scale(&keys, pl->kp.ignore_nan, &answer, &e)) return answer;
  tally__kparams kp = pl->kp;
  kp.scale = ldexp(1.0, -e);
  tally__part acc;
  reduce_slice_serial(pl, &kp, s, &acc);
  return tally__norm2_unscale(pair_value(&acc), e);
}

/* Write slice k's result through the shared rules (core/finalize.c). */
typedef struct { const plan_t *pl; const slice_t *s; } norm2_env;
static double norm2_cb(void *env, double ss) {
  norm2_env *e = env;
  return norm2_f64(e->pl, e->s, ss);
}
static tally_status finalize(tally_context *ctx, const plan_t *pl, const slice_t *s,
                             const tally__part *a, void *out, int64_t at, int64_t s1, int64_t k) {
  norm2_env env = {pl, s};
  return tally__finalize(ctx, pl->p, k, s->n, a, out, at, s1, norm2_cb, &env);
}

/* ------------------------------------------------------------ parallel jobs */

/* A task is a run of consecutive chunks: one long stream per thread keeps the hardware
 * prefetchers locked on (interleaving single chunks between threads cost a fifth of the
 * memory bandwidth on a 2-core Zen 5). */
typedef struct {
  const plan_t *pl;
  slice_t s;
  tally__part *parts;
  int64_t nchunks, ntasks;
  tally__kparams kp;
} chunk_job;

static void chunk_task(void *arg, int64_t t) {
  chunk_job *j = arg;
  int64_t lo = t * j->nchunks / j->ntasks, hi = (t + 1) * j->nchunks / j->ntasks;
  for (int64_t c = lo; c < hi; c++) chunk_part(j->pl, &j->kp, &j->s, c, &j->parts[c]);
}

#define WAKE_BYTES ((int64_t)4 << 20)

#ifndef TALLY_TASKS_PER_THREAD
#define TALLY_TASKS_PER_THREAD 2
#endif

typedef struct {
  tally_context *ctx;
  const plan_t *pl;
  const char *in, *in2;
  void *out;
  int64_t s0, s1;
  _Atomic int64_t first_bad; /* lowest failing slice, INT64_MAX if none */
} slice_job;

static void slice_task(void *arg, int64_t k) {
  slice_job *j = arg;
  slice_t s = slice_at(j->pl, j->in, j->in2, k);
  tally__part acc;
  tally__kparams kp = slice_kparams(j->pl, &s);
  reduce_slice_serial(j->pl, &kp, &s, &acc);
  /* Only the lowest failing slice's message is kept: check it again serially below. */
  if (finalize(NULL, j->pl, &s, &acc, j->out, k * j->s0, j->s1, k) != TALLY_OK) {
    int64_t cur = atomic_load(&j->first_bad);
    while (k < cur && !atomic_compare_exchange_weak(&j->first_bad, &cur, k)) {}
  }
}

typedef struct {
  const tally_options *opt;
  int64_t base, total, per_task, limit;
} progress_t;

static void progress_cb(void *arg, int64_t done) {
  progress_t *pr = arg;
  int64_t d = done * pr->per_task;
  if (d > pr->limit) d = pr->limit;
  pr->opt->progress(pr->base + d, pr->total, pr->opt->progress_user);
}

static int64_t max_slice_len(const tally__problem *p) {
  if (!p->offsets) return p->n;
  int64_t m = 0;
  for (int64_t k = 0; k < p->nslices; k++)
    if (p->offsets[k + 1] - p->offsets[k] > m) m = p->offsets[k + 1] - p->offsets[k];
  return m;
}

static int64_t total_elems(const tally__problem *p) {
  return p->offsets ? p->offsets[p->nslices] - p->offsets[0] : p->nslices * p->n;
}

size_t tally__cpu_workspace_size(const tally_context *ctx, const tally__problem *p) {
  (void)ctx;
  int64_t nc = nchunks(max_slice_len(p));
  return nc > 1 ? (size_t)nc * sizeof(tally__part) : 0;
}

static tally_status scratch(tally__cpu_ctx *c, size_t bytes, void **ws) {
  if (c->scratch_bytes < bytes) {
    void *m = realloc(c->scratch, bytes);
    if (!m)
      return tally__fail(&c->base, TALLY_ENOMEM, "scratch: out of memory allocating %zu bytes", bytes);
    c->scratch = m;
    c->scratch_bytes = bytes;
  }
  *ws = c->scratch;
  return TALLY_OK;
}

/* ------------------------------------------------------------ a run's part */

#define HOST_RUN_ALONE_BYTES ((int64_t)512 * 1024)

/* The run as a slice of its own, through the same chunk jobs as tally__cpu_reduce: with
 * base 0 the part is the one the cpu device computes for the whole input. ARG* indices
 * come out relative to the run and are moved to the input's. */
tally_status tally__cpu_reduce_run(tally_context *ctx, const tally__problem *p, const void *in,
                                   const void *in2, int64_t base, int64_t len, double shift,
                                   tally__part *acc) {
  tally__cpu_ctx *c = (tally__cpu_ctx *)ctx;
  plan_t pl;
  plan_init(&pl, c, p);
  const char *x = in, *y = in2;
  slice_t s = {x + base * pl.esz, y ? y + base * pl.esz : NULL, len};
  tally__kparams kp = pl.kp;
  kp.shift = shift;
  int64_t nc = nchunks(len), ntasks = (int64_t)c->threads * TALLY_TASKS_PER_THREAD;
  void *ws = NULL;
  tally_status st = scratch(c, (size_t)(nc ? nc : 1) * sizeof(tally__part), &ws);
  if (st) return st;
  chunk_job j = {&pl, s, ws, nc, ntasks < nc ? ntasks : nc, kp};
  /* A GPU context's host inputs come here. Under 512 KiB they run alone (or under
   * parallel_bytes, where that is more): through the pool, awake or not, 128 and 256 KiB
   * took 19-25 µs on an H100's Xeon host (16 threads; run 43, the pool woken after each
   * call), alone 7-15 µs (run 42; `$TALLY_HOST_CPU=:parallel_bytes=N`). From 512 KiB the
   * pool is as fast or faster (512 KiB of u8 SUM 23-24 µs against 28-34 alone; of f32 VAR
   * 26 against 39-51; 1 MiB of f32 VAR 38 against 89). The same chunks either way, so the
   * same bits. */
  const int64_t bytes = len * pl.esz;
  if (j.ntasks > 1 && (bytes < c->parallel_bytes || bytes < HOST_RUN_ALONE_BYTES)) j.ntasks = 1;
  if (j.ntasks > 1) tally__pool_run(c->pool, j.ntasks, chunk_task, &j, NULL, NULL);
  else if (nc) chunk_task(&j, 0);
  tally__part_init(acc, pl.fam, 0);
  for (int64_t k = 0; k < nc; k++) tally__part_merge(acc, &j.parts[k], pl.fam);
  if ((pl.fam == TALLY__FAM_ARGMIN || pl.fam == TALLY__FAM_ARGMAX) && acc->idx >= 0) acc->idx += base;
  return TALLY_OK;
}

double tally__cpu_norm2_f64(tally_context *ctx, const tally__problem *p, const void *in, int64_t len,
                            double ss) {
  plan_t pl;
  plan_init(&pl, (tally__cpu_ctx *)ctx, p);
  slice_t s = {in, NULL, len};
  return norm2_f64(&pl, &s, ss);
}

/* ------------------------------------------------------------ which kernels are fast */

/* On every ISA: sums, dot products and extremes of 4- and 8-byte elements (NaNs not
 * ignored). Beyond those, per ISA, what was measured fast (docs/PERFORMANCE.md, "Which
 * pageable inputs the host reduces", 2026-11-26, and runs 34-35 and 40-41 of that day):
 *   AVX-512 (an H200's and an H100's hosts, Xeon, 16 threads, 2^26 elements): every op
 *     and dtype, reduced faster on the host than the GPU's stream of the same pageable
 *     input (40-46 GB/s, the host's copy into pinned buffers being its bound). Last to
 *     join: VAR of bool and 8/16-bit integers and PROD and DOT of 8/16-bit integers once
 *     they took the exact AVX2 kernels (TALLY_AVX2_EXACT: 88-189 GB/s, from 7-25; run 27);
 *     AFFINE once a chunk's maps were composed in pieces (89-145 GB/s, from 3-6; run 35:
 *     1.9-2.9 x the pinned copy, streamed 0.75-0.83; by 2026-11-29 the u8, i8 and f16
 *     kernels had fallen to 5-10 GB/s, found and fixed in run 210: see below); SUM of f16/bf16/f32 with NaNs
 *     ignored (76-100 GB/s, 1.37-1.81 x; streamed 0.77-0.81; run 35, where run 29's 35
 *     GB/s for f32 did not repeat).
 *   AVX2 (runs 40-41, 2026-11-26: an H100's Xeon host with TALLY_CPU_ISA=avx2, 16
 *     threads, 2^26 elements, pageable; no host of AVX2 alone with a GPU was to hand):
 *     every op and dtype reduced on the host at 1.04-5.3 x the pinned copy, NaNs
 *     propagated or ignored, against 0.67-0.96 streamed, but VAR of f16 (0.66 and 0.81 on
 *     the host, 0.79 and 0.72 streamed: under 0.9 either way) and AFFINE of 8/16-bit
 *     integers and f16 (0.41-0.82 on the host, 0.77-0.80 streamed; AFFINE of 4/8-byte
 *     types 1.87-2.12, bf16 1.05); AFFINE joined the row in run 216 (below). Before that
 *     the row came from a 2-core AMD EPYC without a GPU (kernels reading at 0.7 x its
 *     read probe): a subset of this one. */
bool tally__cpu_reads_at_memory_speed(const tally_context *ctx, tally__family fam, tally_dtype dt,
                                      bool ignore_nan) {
  const tally__cpu_ctx *c = (const tally__cpu_ctx *)ctx;
  /* AFFINE (runs 210-211, 2026-11-30, the H200's Xeon host, 2^26, pageable, x the pinned
   * copy), which supersedes the AFFINE notes above: on the host u8 0.85-1.05, i16
   * 0.96-1.06, u16 1.18-1.35, bf16 0.80-0.97 (streamed 0.77-0.79), but i8 0.68 and f16
   * 0.35 (kernels composing at 39 and 19 GB/s on 16 threads), which streamed faster
   * (0.74-0.78) until run 216 (kernels.c: affh_rows, aff_blocks): on the host i8 1.01,
   * u8 1.08, i16 1.36, u16 1.38, f16 0.97 (1.27 in run 217, in 512-bit lanes), bf16 0.99
   * (1.25); with the AVX2 kernels 1.04, 1.06, 1.20, 1.10, 0.96, 0.99; streamed i8 0.76,
   * f16 0.73.
   * (AFFINE of bool is refused before it gets here.) */
  switch (c->isa) { /* AVX-512, AVX2: NaNs propagated and ignored measured alike */
  case TALLY__ISA_AVX512:
    return true;
  case TALLY__ISA_AVX2:
    return fam != TALLY__FAM_VAR || dt != TALLY_F16;
  default: { /* no vector kernels measured: sums, dot products and extremes of 4- and 8-byte
                elements, which read at memory speed from a few threads even in scalar code;
                not floats with NaNs ignored */
    const size_t es = tally_dtype_size(dt);
    const bool extremes = fam == TALLY__FAM_MINMAX || fam == TALLY__FAM_ARGMIN || fam == TALLY__FAM_ARGMAX;
    const bool is_float = dt == TALLY_F16 || dt == TALLY_BF16 || dt == TALLY_F32 || dt == TALLY_F64;
    return (fam == TALLY__FAM_SUM || fam == TALLY__FAM_DOT || extremes) && (es == 4 || es == 8) &&
           !(ignore_nan && is_float);
  }
  }
}

tally_status tally__cpu_reduce(tally_context *ctx, const tally__problem *p, const void *in,
                               const void *in2, void *out, int64_t s0, int64_t s1, void *ws) {
  tally__cpu_ctx *c = (tally__cpu_ctx *)ctx;
  plan_t pl;
  plan_init(&pl, c, p);
  const char *x = in, *y = in2;
  int64_t total = total_elems(p);
  bool parallel = c->threads > 1 && total * pl.esz >= c->parallel_bytes;
  int64_t maxlen = max_slice_len(p);
  bool by_slice = p->nslices > 1 &&
                  (p->nslices >= 4 * (int64_t)c->threads || maxlen < 4 * TALLY__CHUNK);
  progress_t pr = {&p->opt, 0, total, TALLY__CHUNK, 0};
  /* Waking sleeping workers takes tens of microseconds: a job this small runs alone
   * (the chunking, and so the result, is the same), and the workers are woken to be
   * ready for the next call. */
  if (parallel && total * pl.esz < WAKE_BYTES && !tally__pool_awake(c->pool)) {
    tally__pool_wake(c->pool);
    parallel = false;
  }

  if (parallel && by_slice) {
    slice_job j = {ctx, &pl, x, y, out, s0, s1, INT64_MAX};
    pr.per_task = maxlen;
    pr.limit = total;
    tally__pool_run(c->pool, p->nslices, slice_task, &j,
                    p->opt.progress ? progress_cb : NULL, &pr);
    int64_t bad = atomic_load(&j.first_bad);
    if (bad == INT64_MAX) return TALLY_OK;
    slice_t s = slice_at(&pl, x, y, bad);
    tally__part acc;
    tally__kparams kp = slice_kparams(&pl, &s);
    reduce_slice_serial(&pl, &kp, &s, &acc);
    return finalize(ctx, &pl, &s, &acc, out, bad * s0, s1, bad); /* sets the message */
  }

  for (int64_t k = 0; k < p->nslices; k++) {
    slice_t s = slice_at(&pl, x, y, k);
    tally__part acc;
    tally__kparams kp = slice_kparams(&pl, &s);
    int64_t nc = nchunks(s.n);
    if (parallel && nc > 1) {
      tally_status st;
      if (!ws && (st = scratch(c, (size_t)nc * sizeof(tally__part), &ws))) return st;
      int64_t ntasks = (int64_t)c->threads * TALLY_TASKS_PER_THREAD;
      chunk_job j = {&pl, s, ws, nc, ntasks < nc ? ntasks : nc, kp};
      pr.limit = s.n;
      pr.per_task = (s.n + j.ntasks - 1) / j.ntasks;
      tally__pool_run(c->pool, j.ntasks, chunk_task, &j, p->opt.progress ? progress_cb : NULL, &pr);
      tally__part_init(&acc, pl.fam, 0);
      for (int64_t t = 0; t < nc; t++) tally__part_merge(&acc, &j.parts[t], pl.fam);
    } else {
      reduce_slice_serial(&pl, &kp, &s, &acc);
    }
    tally_status st = finalize(ctx, &pl, &s, &acc, out, k * s0, s1, k);
    if (st) return st;
    pr.base += s.n;
    if (p->opt.progress) p->opt.progress(pr.base, total, p->opt.progress_user);
  }
  return TALLY_OK;
}

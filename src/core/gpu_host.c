/* Host-side work shared by the GPU backends (CUDA, OpenCL): the kernels' -D definitions,
 * the spans of inputs and outputs, the NORM2-f64 rescue, and the CPU context that runs
 * user reductions on the host's threads. */
#include "gpu_host.h"

#include "finalize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tally__gpu_defs_key(const tally__problem *p, tally__family fam, int contig, int block,
                         tally__gpu_key *k) {
  bool is_int = tally__dtype_kind(p->dtype) != TALLY__KIND_FLOAT;
  const int v[TALLY__GPU_KEY_N] = {
      (int)p->dtype, (int)fam, p->opt.nan == TALLY_NAN_IGNORE && !is_int,
      /* Flags that change nothing are 0, so that no kernel is compiled twice: FAST
       * matters only for f64 sums and dots (narrower floats are summed in f64 either
       * way), EXACT only for integer sums and dots, SQUARE only for dots. */
      p->opt.accuracy == TALLY_ACCURACY_FAST && p->dtype == TALLY_F64 &&
          (fam == TALLY__FAM_SUM || fam == TALLY__FAM_DOT),
      is_int && (p->op == TALLY_MEAN || p->op == TALLY_NORM2) &&
          (fam == TALLY__FAM_SUM || fam == TALLY__FAM_DOT),
      (p->op == TALLY_SUMSQ || p->op == TALLY_NORM2) && fam == TALLY__FAM_DOT,
      tally__op_binary(p->op), contig, !p->offsets && p->rows > 1, fam == TALLY__FAM_AFFINE, block};
  memcpy(k->v, v, sizeof v);
}

void tally__gpu_defs(const tally__problem *p, tally__family fam, int contig, int block, char *defs,
                     size_t len) {
  tally__gpu_key k;
  tally__gpu_defs_key(p, fam, contig, block, &k);
  snprintf(defs, len,
           "-DDT=%d -DFAM=%d -DIGN=%d -DFAST=%d -DEXACT=%d -DSQUARE=%d -DHAS_Y=%d -DCONTIG=%d "
           "-DTWO_D=%d -DORDERED=%d -DBLOCK=%d",
           k.v[0], k.v[1], k.v[2], k.v[3], k.v[4], k.v[5], k.v[6], k.v[7], k.v[8], k.v[9], k.v[10]);
}

void tally__input_span(const tally__problem *p, int which, int64_t *lo, int64_t *hi) {
  int64_t a = 0, b = 0;
#define ADD(count, stride)                                        \
  do {                                                            \
    int64_t e_ = ((count) > 0 ? (count) - 1 : 0) * (stride);      \
    if (e_ < 0) a += e_; else b += e_;                            \
  } while (0)
  if (p->offsets) {
    int64_t o0 = p->offsets[0], o1 = p->offsets[p->nslices];
    int64_t e0 = o0 * p->cstride[which], e1 = (o1 > o0 ? o1 - 1 : o0) * p->cstride[which];
    a = e0 < e1 ? e0 : e1;
    b = e0 < e1 ? e1 : e0;
  } else {
    ADD(p->nslices, p->slice_stride[which]);
    ADD(p->rows, p->rstride[which]);
    ADD(p->cols, p->cstride[which]);
  }
#undef ADD
  *lo = a;
  *hi = b;
}

void tally__out_span(const tally__problem *p, int64_t s0, int64_t s1, int64_t *lo, int64_t *hi) {
  int64_t a = (p->nslices - 1) * s0, b = (p->width - 1) * s1;
  *lo = (a < 0 ? a : 0) + (b < 0 ? b : 0);
  *hi = (a > 0 ? a : 0) + (b > 0 ? b : 0);
}

double tally__gpu_norm2_rescue(void *env, double ss) {
  tally__gpu_norm2_env *e = env;
  const tally__problem *p = e->p;
  int64_t k = e->k;
  tally_status *st = &e->st;
  if (!tally__norm2_needs_rescue(ss)) return sqrt(ss);
  int64_t len = p->offsets ? p->offsets[k + 1] - p->offsets[k] : p->n;
  if (ss == 0.0 && len == 0) return 0.0;
  tally__gpu_part g;
  tally__part part;
  if ((*st = e->launch(e->job, TALLY__FAM_MINMAX, k, 1.0, &g))) return NAN;
  tally__gpu_part_to_part(&g, &part);
  double answer;
  int ex;
  if (!tally__norm2_scale(&part, p->opt.nan == TALLY_NAN_IGNORE, &answer, &ex)) return answer;
  if ((*st = e->launch(e->job, TALLY__FAM_DOT, k, ldexp(1.0, -ex), &g))) return NAN;
  tally__gpu_part_to_part(&g, &part);
  return tally__norm2_unscale(tally__pair_value(&part), ex);
}

tally_status tally__gpu_finalize_slices(tally_context *ctx, const tally__problem *p, int64_t k0,
                                        int64_t k1, const tally__part *parts, void *out, int64_t s0,
                                        int64_t s1, tally__gpu_launch_fn launch, void *job) {
  tally_status s = TALLY_OK;
  for (int64_t k = k0; k < k1 && !s; k++) {
    int64_t len = p->offsets ? p->offsets[k + 1] - p->offsets[k] : p->n;
    tally__gpu_norm2_env env = {p, k, launch, job, TALLY_OK};
    s = tally__finalize(ctx, p, k, len, &parts[k - k0], out, k * s0, s1, tally__gpu_norm2_rescue,
                        &env);
    if (!s && env.st) s = env.st;
  }
  if (p->opt.progress) p->opt.progress(k1, p->nslices, p->opt.progress_user);
  return s;
}

tally_status tally__host_cpu(tally_context *owner, tally_context **slot, tally_context **cpu) {
  if (!*slot) {
    /* $TALLY_HOST_CPU: the host backend's arguments as after "cpu" in a device string
     * (":parallel_bytes=N,threads=N"), for measuring; by default the host's defaults. */
    const char *args = getenv("TALLY_HOST_CPU");
    tally_status s = tally__cpu_backend.open(args ? args : "", slot);
    if (s) return tally__fail(owner, s, "host threads for the %s backend: %s", owner->backend->name,
                              tally_errmsg(NULL));
  }
  *cpu = *slot;
  return TALLY_OK;
}

tally_status tally__host_reduce_user(tally_context *owner, tally_context **slot,
                                     const tally_user_op *uop, const void *data, int64_t n,
                                     int64_t stride, void *out) {
  tally_context *cpu = NULL;
  tally_status s = tally__host_cpu(owner, slot, &cpu);
  if (s) return s;
  s = tally__cpu_backend.reduce_user(cpu, uop, data, n, stride, out);
  if (s) tally__fail(owner, s, "%s", cpu->errmsg);
  return s;
}

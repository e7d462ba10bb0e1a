/* Bad arguments: each call must return its status and a message naming the argument
 * (e.g. "in->data", "opt->axis", "in2->shape"), and must never crash. */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "rng.h"
#include "tally.h"

static tally_context *ctx;

/* Expect status `want` from a call, with `arg` in the context's message. */
#define EXPECT(call, want, arg)                                                            \
  do {                                                                                     \
    tally_status s_ = (call);                                                              \
    CHECK(s_ == (want), "%s: %s, expected %s (%s)", #call, tally_status_name(s_),          \
          tally_status_name(want), tally_errmsg(ctx));                                     \
    if (s_ != TALLY_OK)                                                                    \
      CHECK(tu_contains(tally_errmsg(ctx), arg), "%s: message does not name '%s': %s", #call, \
            arg, tally_errmsg(ctx));                                                       \
  } while (0)

static tally_options opts(void) {
  tally_options o;
  tally_options_init(&o);
  return o;
}

static void reduce_args(void) {
  _Alignas(64) float x[64] = {0}, y[64] = {0};
  _Alignas(64) double dout[8];
  _Alignas(64) float fout[8];
  tally_array in = tally_array_1d(x, TALLY_F32, 16), in2 = tally_array_1d(y, TALLY_F32, 16);
  tally_array out = tally_array_1d(fout, TALLY_F32, 1);
  tally_options o = opts();

  EXPECT(tally_reduce(ctx, TALLY_SUM, &in, NULL, &out, NULL), TALLY_OK, "");
  /* NULL pointers */
  EXPECT(tally_reduce(NULL, TALLY_SUM, &in, NULL, &out, NULL), TALLY_EINVAL, "");
  CHECK(tu_contains(tally_errmsg(NULL), "ctx"), "NULL ctx message: %s", tally_errmsg(NULL));
  EXPECT(tally_reduce(ctx, TALLY_SUM, NULL, NULL, &out, NULL), TALLY_EINVAL, "in");
  EXPECT(tally_reduce(ctx, TALLY_SUM, &in, NULL, NULL, NULL), TALLY_EINVAL, "out");
  tally_array a = in;
  a.data = NULL;
  EXPECT(tally_reduce(ctx, TALLY_SUM, &a, NULL, &out, NULL), TALLY_EINVAL, "in->data");
  a = out;
  a.data = NULL;
  EXPECT(tally_reduce(ctx, TALLY_SUM, &in, NULL, &a, NULL), TALLY_EINVAL, "out->data");
  /* NULL data is fine when there is nothing to read */
  a = tally_array_1d(NULL, TALLY_F32, 0);
  EXPECT(tally_reduce(ctx, TALLY_SUM, &a, NULL, &out, NULL), TALLY_OK, "");
  /* unknown enums */
  EXPECT(tally_reduce(ctx, (tally_op)99, &in, NULL, &out, NULL), TALLY_EINVAL, "op");
  EXPECT(tally_reduce(ctx, (tally_op)-1, &in, NULL, &out, NULL), TALLY_EINVAL, "op");
  a = in;
  a.dtype = (tally_dtype)77;
  EXPECT(tally_reduce(ctx, TALLY_SUM, &a, NULL, &out, NULL), TALLY_EINVAL, "in->dtype");
  a = in;
  a.ndim = 3;
  EXPECT(tally_reduce(ctx, TALLY_SUM, &a, NULL, &out, NULL), TALLY_EINVAL, "in->ndim");
  a.ndim = 0;
  EXPECT(tally_reduce(ctx, TALLY_SUM, &a, NULL, &out, NULL), TALLY_EINVAL, "in->ndim");
  a = in;
  a.mem = (tally_mem)5;
  EXPECT(tally_reduce(ctx, TALLY_SUM, &a, NULL, &out, NULL), TALLY_EINVAL, "in->mem");
  a.mem = TALLY_MEM_DEVICE; /* on the CPU, device memory is host memory */
  EXPECT(tally_reduce(ctx, TALLY_SUM, &a, NULL, &out, NULL), TALLY_OK, "");
  o = opts();
  o.accuracy = (tally_accuracy)7;
  EXPECT(tally_reduce(ctx, TALLY_SUM, &in, NULL, &out, &o), TALLY_EINVAL, "opt->accuracy");
  o = opts();
  o.nan = (tally_nan)9;
  EXPECT(tally_reduce(ctx, TALLY_SUM, &in, NULL, &out, &o), TALLY_EINVAL, "opt->nan");
  o = opts();
  o.host_input = (tally_host_input)2;
  EXPECT(tally_reduce(ctx, TALLY_SUM, &in, NULL, &out, &o), TALLY_EINVAL, "opt->host_input: unknown value 2");
  o = opts();
  o.host_input = TALLY_HOST_INPUT_DEVICE; /* read by GPU contexts only: fine on the CPU */
  EXPECT(tally_reduce(ctx, TALLY_SUM, &in, NULL, &out, &o), TALLY_OK, "");
  o = opts();
  o.ddof = -1;
  EXPECT(tally_reduce(ctx, TALLY_VAR, &in, NULL, &out, &o), TALLY_EINVAL, "opt->ddof");
  o = opts();
  o.variant = "bogus-variant";
  {
    tally_status s = tally_reduce(ctx, TALLY_SUM, &in, NULL, &out, &o);
    CHECK(s == TALLY_EINVAL || s == TALLY_EUNSUPPORTED, "unknown variant: %s", tally_status_name(s));
    CHECK(tu_contains(tally_errmsg(ctx), "bogus-variant"), "unknown variant message: %s", tally_errmsg(ctx));
  }
  /* op not defined on the dtype */
  tally_array iout = tally_array_1d(fout, TALLY_I64, 1);
  EXPECT(tally_reduce(ctx, TALLY_BITAND, &in, NULL, &out, NULL), TALLY_EUNSUPPORTED, "f32");
  unsigned char b[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  tally_array bin = tally_array_1d(b, TALLY_BOOL, 4), bin2 = tally_array_1d(b + 4, TALLY_BOOL, 4);
  EXPECT(tally_reduce(ctx, TALLY_AFFINE, &bin, &bin2, &iout, NULL), TALLY_EUNSUPPORTED, "bool");
  /* axis */
  tally_array m = tally_array_2d(x, TALLY_F32, 4, 4);
  tally_array mout = tally_array_1d(fout, TALLY_F32, 4);
  o = opts();
  o.axis = 2;
  EXPECT(tally_reduce(ctx, TALLY_SUM, &m, NULL, &mout, &o), TALLY_EINVAL, "opt->axis");
  o.axis = -2;
  EXPECT(tally_reduce(ctx, TALLY_SUM, &m, NULL, &mout, &o), TALLY_EINVAL, "opt->axis");
  o.axis = 1;
  EXPECT(tally_reduce(ctx, TALLY_SUM, &in, NULL, &out, &o), TALLY_EINVAL, "opt->axis");
  /* DOT: second input */
  tally_array in2s = tally_array_1d(y, TALLY_F32, 15);
  EXPECT(tally_reduce(ctx, TALLY_DOT, &in, &in2s, &out, NULL), TALLY_EINVAL, "in2->shape");
  EXPECT(tally_reduce(ctx, TALLY_DOT, &in, NULL, &out, NULL), TALLY_EINVAL, "in2");
  a = in2;
  a.dtype = TALLY_I32;
  EXPECT(tally_reduce(ctx, TALLY_DOT, &in, &a, &out, NULL), TALLY_EINVAL, "in2->dtype");
  a = in2;
  a.data = NULL;
  EXPECT(tally_reduce(ctx, TALLY_DOT, &in, &a, &out, NULL), TALLY_EINVAL, "in2->data");
  tally_array m2 = tally_array_2d(y, TALLY_F32, 4, 4);
  EXPECT(tally_reduce(ctx, TALLY_DOT, &in, &m2, &out, NULL), TALLY_EINVAL, "in2->ndim");
  m2 = tally_array_2d(y, TALLY_F32, 4, 3);
  o = opts();
  o.axis = 1;
  EXPECT(tally_reduce(ctx, TALLY_DOT, &m, &m2, &mout, &o), TALLY_EINVAL, "in2->shape");
  /* in2 given to a unary op */
  EXPECT(tally_reduce(ctx, TALLY_SUM, &in, &in2, &out, NULL), TALLY_EINVAL, "in2");
  EXPECT(tally_reduce(ctx, TALLY_MAX, &in, &in2, &out, NULL), TALLY_EINVAL, "in2");
  /* shapes, strides and their overflow */
  a = in;
  a.shape[0] = -3;
  EXPECT(tally_reduce(ctx, TALLY_SUM, &a, NULL, &out, NULL), TALLY_EINVAL, "in->shape");
  a = tally_array_strided(x, TALLY_F32, (int64_t)1 << 62, 4);
  EXPECT(tally_reduce(ctx, TALLY_SUM, &a, NULL, &out, NULL), TALLY_EINVAL, "in");
  a = tally_array_strided(x, TALLY_F32, 3, INT64_MAX / 2);
  EXPECT(tally_reduce(ctx, TALLY_SUM, &a, NULL, &out, NULL), TALLY_EINVAL, "in");
  a = tally_array_strided(x, TALLY_F32, 3, INT64_MIN / 2);
  EXPECT(tally_reduce(ctx, TALLY_SUM, &a, NULL, &out, NULL), TALLY_EINVAL, "in");
  a = tally_array_2d(x, TALLY_F32, (int64_t)1 << 40, (int64_t)1 << 40);
  EXPECT(tally_reduce(ctx, TALLY_SUM, &a, NULL, &out, NULL), TALLY_EINVAL, "in->shape");
  a = tally_array_1d(x, TALLY_F64, INT64_MAX / 4);
  EXPECT(tally_reduce(ctx, TALLY_SUM, &a, NULL, &out, NULL), TALLY_EINVAL, "in");
  /* output: dtype, size, alignment, overlap */
  tally_array dout1 = tally_array_1d(dout, TALLY_F64, 1);
  EXPECT(tally_reduce(ctx, TALLY_SUM, &in, NULL, &dout1, NULL), TALLY_EINVAL, "out->dtype");
  EXPECT(tally_reduce(ctx, TALLY_ARGMAX, &in, NULL, &out, NULL), TALLY_EINVAL, "out->dtype");
  EXPECT(tally_reduce(ctx, TALLY_MINMAX, &in, NULL, &out, NULL), TALLY_EINVAL, "out->shape");
  a = tally_array_1d(fout, TALLY_F32, 3);
  EXPECT(tally_reduce(ctx, TALLY_SUM, &in, NULL, &a, NULL), TALLY_EINVAL, "out->shape");
  a = tally_array_2d(fout, TALLY_F32, 1, 1);
  EXPECT(tally_reduce(ctx, TALLY_MINMAX, &in, NULL, &a, NULL), TALLY_EINVAL, "out->shape");
  o = opts();
  o.axis = 0;
  a = tally_array_1d(fout, TALLY_F32, 3); /* 4 columns */
  EXPECT(tally_reduce(ctx, TALLY_MAX, &m, NULL, &a, &o), TALLY_EINVAL, "out->shape");
  a = tally_array_1d((char *)fout + 1, TALLY_F32, 1);
  EXPECT(tally_reduce(ctx, TALLY_SUM, &in, NULL, &a, NULL), TALLY_EINVAL, "out->data");
  a = tally_array_1d((char *)x + 2, TALLY_F32, 8);
  EXPECT(tally_reduce(ctx, TALLY_SUM, &a, NULL, &out, NULL), TALLY_EINVAL, "in->data");
  a = tally_array_1d(x + 3, TALLY_F32, 1); /* inside the input */
  EXPECT(tally_reduce(ctx, TALLY_SUM, &in, NULL, &a, NULL), TALLY_EINVAL, "out");
  a = tally_array_1d(x + 15, TALLY_F32, 1); /* the input's last element */
  EXPECT(tally_reduce(ctx, TALLY_SUM, &in, NULL, &a, NULL), TALLY_EINVAL, "out");
  a = tally_array_1d(y + 2, TALLY_F32, 1);
  EXPECT(tally_reduce(ctx, TALLY_DOT, &in, &in2, &a, NULL), TALLY_EINVAL, "in2");
  a = tally_array_strided(x + 30, TALLY_F32, 10, -3); /* reaches back to x[3] */
  tally_array o2 = tally_array_1d(x + 5, TALLY_F32, 1);
  EXPECT(tally_reduce(ctx, TALLY_SUM, &a, NULL, &o2, NULL), TALLY_EINVAL, "out");
  a = tally_array_1d(x + 16, TALLY_F32, 1); /* just past the input: no overlap */
  EXPECT(tally_reduce(ctx, TALLY_SUM, &in, NULL, &a, NULL), TALLY_OK, "");
  /* ddof >= n */
  tally_array one = tally_array_1d(x, TALLY_F32, 1);
  o = opts();
  o.ddof = 1;
  EXPECT(tally_reduce(ctx, TALLY_VAR, &one, NULL, &out, &o), TALLY_EINVAL, "ddof");
}

static void segment_args(void) {
  _Alignas(64) float x[16] = {1, 2, 3, 4, 5, 6, 7, 8};
  _Alignas(64) float out[8];
  tally_array in = tally_array_1d(x, TALLY_F32, 8), o = tally_array_1d(out, TALLY_F32, 3);
  int64_t off[4] = {0, 2, 5, 8};
  EXPECT(tally_reduce_segments(ctx, TALLY_SUM, &in, NULL, off, 3, &o, NULL), TALLY_OK, "");
  EXPECT(tally_reduce_segments(ctx, TALLY_SUM, &in, NULL, NULL, 3, &o, NULL), TALLY_EINVAL, "offsets");
  EXPECT(tally_reduce_segments(ctx, TALLY_SUM, &in, NULL, off, -1, &o, NULL), TALLY_EINVAL, "nsegments");
  int64_t dec[4] = {0, 5, 2, 8};
  EXPECT(tally_reduce_segments(ctx, TALLY_SUM, &in, NULL, dec, 3, &o, NULL), TALLY_EINVAL, "offsets[2]");
  int64_t past[4] = {0, 2, 5, 9};
  EXPECT(tally_reduce_segments(ctx, TALLY_SUM, &in, NULL, past, 3, &o, NULL), TALLY_EINVAL, "offsets[3]");
  int64_t neg[4] = {-1, 2, 5, 8};
  EXPECT(tally_reduce_segments(ctx, TALLY_SUM, &in, NULL, neg, 3, &o, NULL), TALLY_EINVAL, "offsets[0]");
  tally_array small = tally_array_1d(out, TALLY_F32, 2);
  EXPECT(tally_reduce_segments(ctx, TALLY_SUM, &in, NULL, off, 3, &small, NULL), TALLY_EINVAL, "out->shape");
  tally_options opt;
  tally_options_init(&opt);
  opt.axis = 0;
  EXPECT(tally_reduce_segments(ctx, TALLY_SUM, &in, NULL, off, 3, &o, &opt), TALLY_EINVAL, "opt->axis");
  tally_array m = tally_array_2d(x, TALLY_F32, 2, 4);
  EXPECT(tally_reduce_segments(ctx, TALLY_SUM, &m, NULL, off, 1, &o, NULL), TALLY_EINVAL, "in->ndim");
  int64_t empty[4] = {0, 2, 2, 8};
  EXPECT(tally_reduce_segments(ctx, TALLY_MIN, &in, NULL, empty, 3, &o, NULL), TALLY_EEMPTY, "segment 1");
  EXPECT(tally_reduce_segments(ctx, TALLY_SUM, &in, NULL, empty, 3, &o, NULL), TALLY_OK, "");
  CHECK(out[1] == 0.0f, "empty SUM segment gives %g, not 0", out[1]);
  tally_array none = tally_array_1d(out, TALLY_F32, 0);
  EXPECT(tally_reduce_segments(ctx, TALLY_SUM, &in, NULL, NULL, 0, &none, NULL), TALLY_OK, "");
}

static void noop(void *acc, const void *x, void *user) { (void)acc; (void)x; (void)user; }

static void user_args(void) {
  uint64_t data[8] = {0}, out = 0, id = 0;
  tally_user_op u = {8, &id, noop, NULL, 1};
  EXPECT(tally_reduce_user(ctx, &u, data, 8, 0, &out), TALLY_OK, "");
  EXPECT(tally_reduce_user(NULL, &u, data, 8, 0, &out), TALLY_EINVAL, "");
  EXPECT(tally_reduce_user(ctx, NULL, data, 8, 0, &out), TALLY_EINVAL, "uop");
  tally_user_op v = u;
  v.size = 0;
  EXPECT(tally_reduce_user(ctx, &v, data, 8, 0, &out), TALLY_EINVAL, "uop->size");
  v.size = 257;
  EXPECT(tally_reduce_user(ctx, &v, data, 1, 0, &out), TALLY_EINVAL, "uop->size");
  v = u;
  v.identity = NULL;
  EXPECT(tally_reduce_user(ctx, &v, data, 8, 0, &out), TALLY_EINVAL, "uop->identity");
  v = u;
  v.combine = NULL;
  EXPECT(tally_reduce_user(ctx, &v, data, 8, 0, &out), TALLY_EINVAL, "uop->combine");
  EXPECT(tally_reduce_user(ctx, &u, data, -1, 0, &out), TALLY_EINVAL, "n");
  EXPECT(tally_reduce_user(ctx, &u, NULL, 8, 0, &out), TALLY_EINVAL, "data");
  EXPECT(tally_reduce_user(ctx, &u, NULL, 0, 0, &out), TALLY_OK, "");
  EXPECT(tally_reduce_user(ctx, &u, data, 8, 0, NULL), TALLY_EINVAL, "out");
  EXPECT(tally_reduce_user(ctx, &u, data, 8, 0, &data[3]), TALLY_EINVAL, "out");
  EXPECT(tally_reduce_user(ctx, &u, data, INT64_MAX / 2, 3, &out), TALLY_EINVAL, "n");
}

static void plan_args(void) {
  _Alignas(64) float x[32] = {0}, out[4];
  tally_array in = tally_array_1d(x, TALLY_F32, 32), o = tally_array_1d(out, TALLY_F32, 1);
  tally_plan *plan = NULL;
  EXPECT(tally_plan_create(ctx, TALLY_SUM, &in, NULL, &o, NULL, NULL), TALLY_EINVAL, "plan");
  EXPECT(tally_plan_create(NULL, TALLY_SUM, &in, NULL, &o, NULL, &plan), TALLY_EINVAL, "");
  EXPECT(tally_plan_create(ctx, TALLY_BITOR, &in, NULL, &o, NULL, &plan), TALLY_EUNSUPPORTED, "f32");
  CHECK(plan == NULL, "a failed plan_create left a plan");
  tally_array bad = in;
  bad.dtype = (tally_dtype)50;
  EXPECT(tally_plan_create(ctx, TALLY_SUM, &bad, NULL, &o, NULL, &plan), TALLY_EINVAL, "in->dtype");
  EXPECT(tally_plan_create(ctx, TALLY_SUM, &in, NULL, &o, NULL, &plan), TALLY_OK, "");
  size_t bytes = 0;
  EXPECT(tally_plan_workspace_size(plan, &bytes), TALLY_OK, "");
  EXPECT(tally_plan_workspace_size(plan, NULL), TALLY_EINVAL, "bytes");
  CHECK(tally_plan_workspace_size(NULL, &bytes) == TALLY_EINVAL, "workspace_size(NULL)");
  _Alignas(64) static unsigned char ws[1 << 16];
  if (bytes > 0 && bytes < sizeof ws - 64) {
    EXPECT(tally_plan_set_workspace(plan, ws, bytes - 1), TALLY_EINVAL, "bytes");
    EXPECT(tally_plan_set_workspace(plan, ws + 4, bytes), TALLY_EINVAL, "workspace");
  }
  CHECK(tally_plan_set_workspace(NULL, ws, 16) == TALLY_EINVAL, "set_workspace(NULL plan)");
  EXPECT(tally_plan_run(plan, &in, NULL, &o), TALLY_OK, "");
  tally_array a = tally_array_1d(x, TALLY_F32, 31);
  EXPECT(tally_plan_run(plan, &a, NULL, &o), TALLY_EINVAL, "in");
  a = tally_array_1d(x, TALLY_I32, 32);
  EXPECT(tally_plan_run(plan, &a, NULL, &o), TALLY_EINVAL, "in");
  a = tally_array_1d(NULL, TALLY_F32, 32);
  EXPECT(tally_plan_run(plan, &a, NULL, &o), TALLY_EINVAL, "in->data");
  a = tally_array_1d(x + 2, TALLY_F32, 1); /* inside the input */
  EXPECT(tally_plan_run(plan, &in, NULL, &a), TALLY_EINVAL, "out");
  EXPECT(tally_plan_run(plan, &in, &in, &o), TALLY_EINVAL, "in2");
  EXPECT(tally_plan_run(plan, NULL, NULL, &o), TALLY_EINVAL, "in");
  EXPECT(tally_plan_run(plan, &in, NULL, NULL), TALLY_EINVAL, "out");
  CHECK(tally_plan_run(NULL, &in, NULL, &o) == TALLY_EINVAL, "plan_run(NULL)");
  tally_plan_destroy(plan);
  tally_plan_destroy(NULL);
}

/* Random descriptors that validation must refuse: never a crash. */
static void fuzz(uint64_t seed) {
  tt_rng r;
  tt_rng_seed(&r, seed);
  _Alignas(64) double out[4];
  int refused = 0, total = 20000;
  for (int i = 0; i < total; i++) {
    tally_array a;
    memset(&a, 0, sizeof a);
    a.data = NULL; /* nothing may be read */
    a.dtype = (tally_dtype)(int)(tt_rng_below(&r, 16) - 1);
    a.ndim = (int)tt_rng_below(&r, 4);
    for (int d = 0; d < 2; d++) {
      a.shape[d] = (int64_t)tt_rng_next(&r) >> tt_rng_below(&r, 64);
      if (a.shape[d] == 0) a.shape[d] = 1;
      a.strides[d] = (int64_t)tt_rng_next(&r) >> tt_rng_below(&r, 64);
    }
    a.mem = (tally_mem)(int)tt_rng_below(&r, 3);
    tally_array o = tally_array_1d(out, TALLY_F64, 1);
    tally_options opt;
    tally_options_init(&opt);
    opt.axis = (int)tt_rng_below(&r, 5) - 2;
    tally_op op = (tally_op)(int)(tt_rng_below(&r, 24) - 2);
    tally_status s = tally_reduce(ctx, op, &a, NULL, &o, &opt);
    refused += s != TALLY_OK;
  }
  CHECK(refused == total, "%d of %d random NULL-data descriptors were accepted", total - refused, total);
}

int main(void) {
  uint64_t seed = tt_test_seed("test_badargs");
  if (tally_open("cpu", &ctx) != TALLY_OK) {
    printf("FAIL: cannot open cpu: %s\n", tally_errmsg(NULL));
    return 1;
  }
  reduce_args();
  segment_args();
  user_args();
  plan_args();
  fuzz(seed);
  tally_close(ctx);
  return tu_done("badargs");
}

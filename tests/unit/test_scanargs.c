/* Bad arguments of tally_scan, tally_scan_user and tally_histogram: each call must return
 * its status and a message naming the argument (and its value), and must never crash. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "rng.h"
#include "tally.h"

static tally_context *ctx;


static void scan_args(void) {
  _Alignas(64) float x[64], y[64], o[128];
  _Alignas(64) int64_t io[64];
  _Alignas(64) int32_t xi[64];
  for (int i = 0; i < 64; i++) x[i] = (float)i + 0.5f, y[i] = 1.0f, xi[i] = i - 7;
  tally_array in = tally_array_1d(x, TALLY_F32, 16), in2 = tally_array_1d(y, TALLY_F32, 16);
  tally_array out = tally_array_1d(o, TALLY_F32, 16);
  tally_scan_options so;
  tally_scan_options_init(&so);

  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &out, NULL), TALLY_OK, "");
  TU_EXPECT(tally_scan(NULL, TALLY_SUM, &in, NULL, &out, NULL), TALLY_EINVAL, "");
  CHECK(tu_contains(tally_errmsg(NULL), "ctx"), "NULL ctx: %s", tally_errmsg(NULL));
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, NULL, NULL, &out, NULL), TALLY_EINVAL, "in");
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, NULL, NULL), TALLY_EINVAL, "out");
  TU_EXPECT(tally_scan(ctx, (tally_op)77, &in, NULL, &out, NULL), TALLY_EINVAL, "op", "77");
  TU_EXPECT(tally_scan(ctx, TALLY_ARGMAX, &in, NULL, &out, NULL), TALLY_EUNSUPPORTED, "op", "argmax");
  TU_EXPECT(tally_scan(ctx, TALLY_MEAN, &in, NULL, &out, NULL), TALLY_EUNSUPPORTED, "op", "mean");
  /* wrong dtype, output too small or too large */
  tally_array a = tally_array_1d(io, TALLY_I64, 16);
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &a, NULL), TALLY_EINVAL, "out->dtype", "i64", "f32");
  a = tally_array_1d(o, TALLY_F32, 15);
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &a, NULL), TALLY_EINVAL, "out->shape", "15", "16");
  tally_array ii = tally_array_1d(xi, TALLY_I32, 16);
  a = tally_array_1d(xi + 32, TALLY_I32, 16);
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &ii, NULL, &a, NULL), TALLY_EINVAL, "out->dtype", "i32", "i64");
  a = tally_array_1d(io, TALLY_I64, 16);
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &ii, NULL, &a, NULL), TALLY_OK, "");
  a = tally_array_1d(xi + 32, TALLY_I32, 16); /* MIN keeps the input dtype */
  TU_EXPECT(tally_scan(ctx, TALLY_MIN, &ii, NULL, &a, NULL), TALLY_OK, "");
  /* NULL data */
  a = in;
  a.data = NULL;
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &a, NULL, &out, NULL), TALLY_EINVAL, "in->data", "NULL");
  a = out;
  a.data = NULL;
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &a, NULL), TALLY_EINVAL, "out->data");
  /* 2-D input */
  a = tally_array_2d(x, TALLY_F32, 4, 4);
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &a, NULL, &out, NULL), TALLY_EINVAL, "in->ndim", "2");
  /* overlap: exact in place is allowed; shifted by one element, or another stride, is not */
  a = tally_array_1d(x, TALLY_F32, 16);
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &a, NULL), TALLY_OK, "");
  a = tally_array_1d(x + 1, TALLY_F32, 16);
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &a, NULL), TALLY_EINVAL, "out", "overlaps in");
  a = tally_array_strided(x, TALLY_F32, 16, 2);
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &a, NULL), TALLY_EINVAL, "out", "overlaps in");
  /* AFFINE: in2 required, same length and dtype; out 2n or n x 2 */
  a = tally_array_1d(o, TALLY_F32, 32);
  TU_EXPECT(tally_scan(ctx, TALLY_AFFINE, &in, NULL, &a, NULL), TALLY_EINVAL, "in2", "NULL");
  TU_EXPECT(tally_scan(ctx, TALLY_AFFINE, &in, &in2, &a, NULL), TALLY_OK, "");
  tally_array b = tally_array_1d(y, TALLY_F32, 15);
  TU_EXPECT(tally_scan(ctx, TALLY_AFFINE, &in, &b, &a, NULL), TALLY_EINVAL, "in2->shape[0]", "15");
  b = tally_array_1d(y, TALLY_I32, 16);
  TU_EXPECT(tally_scan(ctx, TALLY_AFFINE, &in, &b, &a, NULL), TALLY_EINVAL, "in2->dtype", "i32");
  a = tally_array_1d(o, TALLY_F32, 16);
  TU_EXPECT(tally_scan(ctx, TALLY_AFFINE, &in, &in2, &a, NULL), TALLY_EINVAL, "out->shape", "32");
  a = tally_array_2d(o, TALLY_F32, 16, 2);
  TU_EXPECT(tally_scan(ctx, TALLY_AFFINE, &in, &in2, &a, NULL), TALLY_OK, "");
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, &in2, &out, NULL), TALLY_EINVAL, "in2", "must be NULL");
  tally_array bb = tally_array_1d(xi, TALLY_BOOL, 16);
  a = tally_array_1d(io, TALLY_I64, 32);
  TU_EXPECT(tally_scan(ctx, TALLY_AFFINE, &bb, &bb, &a, NULL), TALLY_EUNSUPPORTED, "affine", "bool");
  /* in place AFFINE: (A, B) over (a, b) interleaved */
  float ab[32];
  for (int i = 0; i < 32; i++) ab[i] = 1.0f;
  tally_array pa = tally_array_strided(ab, TALLY_F32, 16, 2), pb = tally_array_strided(ab + 1, TALLY_F32, 16, 2);
  a = tally_array_2d(ab, TALLY_F32, 16, 2);
  TU_EXPECT(tally_scan(ctx, TALLY_AFFINE, &pa, &pb, &a, NULL), TALLY_OK, "");
  TU_EXPECT(tally_scan(ctx, TALLY_AFFINE, &pb, &pa, &a, NULL), TALLY_EINVAL, "overlaps");
  /* options */
  so.exclusive = 2;
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &out, &so), TALLY_EINVAL, "opt->exclusive", "2");
  tally_scan_options_init(&so);
  so.accuracy = (tally_accuracy)9;
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &out, &so), TALLY_EINVAL, "opt->accuracy", "9");
  tally_scan_options_init(&so);
  so.nan = (tally_nan)5;
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &out, &so), TALLY_EINVAL, "opt->nan", "5");
  so.nan = TALLY_NAN_IGNORE;
  a = tally_array_1d(o, TALLY_F32, 32);
  TU_EXPECT(tally_scan(ctx, TALLY_AFFINE, &in, &in2, &a, &so), TALLY_EUNSUPPORTED, "opt->nan", "affine");
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &out, &so), TALLY_OK, "");
  /* segments */
  tally_scan_options_init(&so);
  uint8_t flags[16] = {0};
  int64_t off[4] = {0, 5, 9, 16};
  so.flags = flags;
  so.offsets = off;
  so.nsegments = 3;
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &out, &so), TALLY_EINVAL, "opt->flags", "opt->offsets");
  so.flags = NULL;
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &out, &so), TALLY_OK, "");
  off[3] = 15;
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &out, &so), TALLY_EINVAL, "opt->offsets[3]", "15", "16");
  off[3] = 17;
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &out, &so), TALLY_EINVAL, "opt->offsets[3]", "17", "past the end");
  off[3] = 16;
  off[2] = 4;
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &out, &so), TALLY_EINVAL, "opt->offsets[2]", "4", "below");
  off[2] = 9;
  off[0] = 1;
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &out, &so), TALLY_EINVAL, "opt->offsets[0]", "1");
  so.offsets = NULL;
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &out, &so), TALLY_EINVAL, "opt->nsegments", "3");
  so.nsegments = -1;
  so.offsets = off;
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &out, &so), TALLY_EINVAL, "opt->nsegments", "-1");
  /* empty input: nothing to do, out may be NULL */
  a = tally_array_1d(NULL, TALLY_F32, 0);
  tally_array e = tally_array_1d(NULL, TALLY_F32, 0);
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &a, NULL, &e, NULL), TALLY_OK, "");
}

/* Overlaps that must be refused: out over itself (its values would share memory), and
 * the segment options inside out (overwritten while they are read). */
static void scan_overlaps(void) {
  _Alignas(64) float x[16], y[16], o[128];
  _Alignas(64) int64_t io[64];
  for (int i = 0; i < 16; i++) x[i] = (float)i + 0.25f, y[i] = 2.0f;
  tally_array in = tally_array_1d(x, TALLY_F32, 16), in2 = tally_array_1d(y, TALLY_F32, 16);
  tally_array a = tally_array_2d(o, TALLY_F32, 16, 1);
  a.strides[0] = 0, a.strides[1] = 1; /* every row at o[0] */
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &a, NULL), TALLY_EINVAL, "out", "overlap one another");
  a = tally_array_2d(o, TALLY_F32, 16, 2);
  a.strides[0] = 1, a.strides[1] = 1; /* (i, 1) is (i + 1, 0) */
  TU_EXPECT(tally_scan(ctx, TALLY_AFFINE, &in, &in2, &a, NULL), TALLY_EINVAL, "out", "overlap one another");
  a.strides[0] = 0, a.strides[1] = 1;
  TU_EXPECT(tally_scan(ctx, TALLY_AFFINE, &in, &in2, &a, NULL), TALLY_EINVAL, "out", "strides 0");
  a.strides[0] = 2, a.strides[1] = 0;
  TU_EXPECT(tally_scan(ctx, TALLY_AFFINE, &in, &in2, &a, NULL), TALLY_EINVAL, "out", "overlap one another");
  a.strides[0] = -3, a.strides[1] = 45; /* (15, 1) is (0, 0) */
  a.data = o + 64;
  TU_EXPECT(tally_scan(ctx, TALLY_AFFINE, &in, &in2, &a, NULL), TALLY_EINVAL, "out", "overlap one another");
  a.strides[0] = 1, a.strides[1] = 16; /* A's then B's: no overlap */
  a.data = o;
  TU_EXPECT(tally_scan(ctx, TALLY_AFFINE, &in, &in2, &a, NULL), TALLY_OK, "");
  a.strides[0] = -3, a.strides[1] = 48;
  a.data = o + 48;
  TU_EXPECT(tally_scan(ctx, TALLY_AFFINE, &in, &in2, &a, NULL), TALLY_OK, "");
  /* flags and offsets inside out, in place or not */
  tally_scan_options so;
  tally_scan_options_init(&so);
  tally_array li = tally_array_1d(io, TALLY_I64, 16), lo = tally_array_1d(io + 16, TALLY_I64, 16);
  for (int i = 0; i < 64; i++) io[i] = 0;
  so.flags = (const uint8_t *)(io + 20);
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &li, NULL, &lo, &so), TALLY_EINVAL, "opt->flags");
  so.flags = (const uint8_t *)(io + 2);
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &li, NULL, &li, &so), TALLY_EINVAL, "opt->flags");
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &li, NULL, &lo, &so), TALLY_OK, ""); /* in in: read only */
  so.flags = (const uint8_t *)(io + 32);
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &li, NULL, &lo, &so), TALLY_OK, "");
  tally_scan_options_init(&so);
  int64_t *off = io + 28; /* {0, 16}: offsets[1] is out's last value */
  off[0] = 0, off[1] = 16;
  so.offsets = off;
  so.nsegments = 1;
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &li, NULL, &lo, &so), TALLY_EINVAL, "opt->offsets");
  off = io + 40;
  off[0] = 0, off[1] = 16;
  so.offsets = off;
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &li, NULL, &lo, &so), TALLY_OK, "");
}

/* init may lie in out: it is read before anything is written. Random values (the run's
 * seed), segments, against a serial scan here. */
typedef struct { uint64_t a, b; } aff64;
static void aff_combine(void *acc, const void *x, void *user) {
  (void)user;
  aff64 *p = acc;
  const aff64 *q = x;
  aff64 r = {q->a * p->a, q->a * p->b + q->b};
  *p = r;
}

static void init_in_out(tt_rng *rng) {
  enum { N = 3000 };
  static aff64 d[N], want[N];
  static uint8_t flags[N];
  static int64_t xi[N], oi[N], wi[N];
  aff64 ident = {1, 0};
  tally_user_op u = {sizeof(aff64), &ident, aff_combine, NULL, 0};
  for (int inplace = 0; inplace < 2; inplace++) {
    static aff64 out[N];
    for (int i = 0; i < N; i++) {
      d[i].a = tt_rng_next(rng) | 1, d[i].b = tt_rng_next(rng);
      flags[i] = tt_rng_below(rng, 100) == 0;
      out[i].a = out[i].b = 0xa5a5a5a5a5a5a5a5u;
    }
    aff64 *o = inplace ? d : out;
    aff64 init = {tt_rng_next(rng) | 1, tt_rng_next(rng)}, acc = init;
    for (int i = 0; i < N; i++) {
      if (i > 0 && flags[i]) acc = init;
      aff_combine(&acc, &d[i], NULL);
      want[i] = acc;
    }
    o[7] = init; /* in place: element 7 becomes init (the reference saw the old one) */
    if (inplace) {
      acc = init;
      for (int i = 0; i < N; i++) {
        if (i > 0 && flags[i]) acc = init;
        aff_combine(&acc, &d[i], NULL);
        want[i] = acc;
      }
    }
    tally_scan_options so;
    tally_scan_options_init(&so);
    so.init = &o[7];
    so.flags = flags;
    TU_EXPECT(tally_scan_user(ctx, &u, d, N, 1, o, 1, &so), TALLY_OK, "");
    int bad = -1;
    for (int i = 0; i < N && bad < 0; i++)
      if (o[i].a != want[i].a || o[i].b != want[i].b) bad = i;
    CHECK(bad < 0, "user scan with init in out (inplace=%d): element %d differs from the serial scan",
          inplace, bad);
  }
  /* the same with a built-in SUM of i64, init at out[0] */
  uint64_t acc = 0;
  int64_t init = (int64_t)tt_rng_next(rng);
  for (int i = 0; i < N; i++) {
    xi[i] = (int64_t)tt_rng_next(rng);
    flags[i] = tt_rng_below(rng, 50) == 0;
    oi[i] = (int64_t)0xa5a5a5a5a5a5a5a5u;
  }
  for (int i = 0; i < N; i++) {
    if (i == 0 || flags[i]) acc = (uint64_t)init;
    acc += (uint64_t)xi[i];
    wi[i] = (int64_t)acc;
  }
  oi[0] = init;
  tally_scan_options so;
  tally_scan_options_init(&so);
  so.init = &oi[0];
  so.flags = flags;
  tally_array xa = tally_array_1d(xi, TALLY_I64, N), oa = tally_array_1d(oi, TALLY_I64, N);
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &xa, NULL, &oa, &so), TALLY_OK, "");
  CHECK(memcmp(oi, wi, sizeof oi) == 0, "SUM i64 with init at out[0]: differs from the serial scan");
}

typedef struct { uint32_t v; } u32s;
static void add64_user(void *acc, const void *x, void *user) {
  (void)user;
  *(int64_t *)acc += *(const int64_t *)x;
}

static void add32(void *acc, const void *x, void *user) {
  (void)user;
  ((u32s *)acc)->v += ((const u32s *)x)->v;
}

static void user_args(void) {
  _Alignas(16) u32s d[16], o[16];
  u32s id = {0};
  memset(d, 1, sizeof d);
  tally_user_op u = {sizeof(u32s), &id, add32, NULL, 1};
  TU_EXPECT(tally_scan_user(ctx, &u, d, 16, 0, o, 0, NULL), TALLY_OK, "");
  TU_EXPECT(tally_scan_user(ctx, &u, d, 16, 1, d, 1, NULL), TALLY_OK, ""); /* in place */
  TU_EXPECT(tally_scan_user(NULL, &u, d, 16, 0, o, 0, NULL), TALLY_EINVAL, "");
  TU_EXPECT(tally_scan_user(ctx, NULL, d, 16, 0, o, 0, NULL), TALLY_EINVAL, "uop");
  tally_user_op b = u;
  b.size = 0;
  TU_EXPECT(tally_scan_user(ctx, &b, d, 16, 0, o, 0, NULL), TALLY_EINVAL, "uop->size", "0");
  b = u;
  b.identity = NULL;
  TU_EXPECT(tally_scan_user(ctx, &b, d, 16, 0, o, 0, NULL), TALLY_EINVAL, "uop->identity");
  b = u;
  b.combine = NULL;
  TU_EXPECT(tally_scan_user(ctx, &b, d, 16, 0, o, 0, NULL), TALLY_EINVAL, "uop->combine");
  TU_EXPECT(tally_scan_user(ctx, &u, d, -1, 0, o, 0, NULL), TALLY_EINVAL, "n", "-1");
  TU_EXPECT(tally_scan_user(ctx, &u, NULL, 16, 0, o, 0, NULL), TALLY_EINVAL, "data", "NULL");
  TU_EXPECT(tally_scan_user(ctx, &u, d, 16, 0, NULL, 0, NULL), TALLY_EINVAL, "out", "NULL");
  TU_EXPECT(tally_scan_user(ctx, &u, d, 8, 1, d + 1, 1, NULL), TALLY_EINVAL, "out", "overlaps data");
  TU_EXPECT(tally_scan_user(ctx, &u, d, 8, 2, d, 1, NULL), TALLY_EINVAL, "out", "overlaps data");
  TU_EXPECT(tally_scan_user(ctx, &u, d, INT64_MAX / 2, 4, o, 0, NULL), TALLY_EINVAL, "stride", "overflows");
  /* flags inside out (data read only: fine) */
  tally_scan_options so;
  tally_scan_options_init(&so);
  so.flags = (const uint8_t *)(o + 12);
  TU_EXPECT(tally_scan_user(ctx, &u, d, 16, 0, o, 0, &so), TALLY_EINVAL, "opt->flags");
  TU_EXPECT(tally_scan_user(ctx, &u, o, 16, 0, o, 0, &so), TALLY_EINVAL, "opt->flags");
  so.flags = (const uint8_t *)d;
  TU_EXPECT(tally_scan_user(ctx, &u, d, 16, 0, o, 0, &so), TALLY_OK, "");
  tally_scan_options_init(&so);
  int64_t off[2] = {0, 16};
  so.offsets = off;
  so.nsegments = 1;
  TU_EXPECT(tally_scan_user(ctx, &u, d, 16, 0, o, 0, &so), TALLY_OK, "");
  memcpy(o + 12, off, sizeof off);
  so.offsets = (const int64_t *)(o + 12);
  TU_EXPECT(tally_scan_user(ctx, &u, d, 16, 0, o, 0, &so), TALLY_EINVAL, "opt->offsets");
}

static void hist_args(void) {
  _Alignas(64) float x[32];
  _Alignas(64) uint64_t c[8];
  _Alignas(64) double w[32], s[8], edges[9];
  for (int i = 0; i < 32; i++) x[i] = (float)i / 4, w[i] = 1;
  for (int i = 0; i <= 8; i++) edges[i] = i;
  tally_array in = tally_array_1d(x, TALLY_F32, 32), wa = tally_array_1d(w, TALLY_F64, 32);
  tally_array co = tally_array_1d(c, TALLY_U64, 8), sa = tally_array_1d(s, TALLY_F64, 8);
  tally_hist_spec sp;
  tally_hist_spec_init(&sp);
  sp.nbins = 8;
  sp.lo = 0;
  sp.hi = 8;
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &sp, &co, NULL, NULL), TALLY_OK, "");
  TU_EXPECT(tally_histogram(ctx, &in, &wa, &sp, &co, &sa, NULL), TALLY_OK, "");
  TU_EXPECT(tally_histogram(NULL, &in, NULL, &sp, &co, NULL, NULL), TALLY_EINVAL, "");
  TU_EXPECT(tally_histogram(ctx, NULL, NULL, &sp, &co, NULL, NULL), TALLY_EINVAL, "in");
  TU_EXPECT(tally_histogram(ctx, &in, NULL, NULL, &co, NULL, NULL), TALLY_EINVAL, "spec");
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &sp, NULL, NULL, NULL), TALLY_EINVAL, "counts");
  tally_hist_spec b = sp;
  b.nbins = 0;
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &b, &co, NULL, NULL), TALLY_EINVAL, "spec->nbins", "0");
  b.nbins = -3;
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &b, &co, NULL, NULL), TALLY_EINVAL, "spec->nbins", "-3");
  b = sp;
  b.lo = 8;
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &b, &co, NULL, NULL), TALLY_EINVAL, "spec->lo", "8", "spec->hi");
  b.lo = 9;
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &b, &co, NULL, NULL), TALLY_EINVAL, "spec->lo", "9");
  b = sp;
  b.lo = NAN;
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &b, &co, NULL, NULL), TALLY_EINVAL, "spec->lo", "nan");
  b = sp;
  b.hi = INFINITY;
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &b, &co, NULL, NULL), TALLY_EINVAL, "spec->hi", "inf");
  b = sp;
  b.lo = -1e308;
  b.hi = 1e308;
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &b, &co, NULL, NULL), TALLY_EINVAL, "spec->hi - spec->lo");
  b = sp;
  b.edges = edges;
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &b, &co, NULL, NULL), TALLY_OK, "");
  edges[4] = 2.5;
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &b, &co, NULL, NULL), TALLY_EINVAL, "spec->edges[4]", "2.5",
         "spec->edges[3]");
  edges[4] = 3;
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &b, &co, NULL, NULL), TALLY_EINVAL, "spec->edges[4]", "increase");
  edges[4] = NAN;
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &b, &co, NULL, NULL), TALLY_EINVAL, "spec->edges[4]", "nan");
  edges[4] = 4;
  b.auto_range = 1;
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &b, &co, NULL, NULL), TALLY_EINVAL, "spec->auto_range", "edges");
  b = sp;
  b.outside = (tally_hist_outside)3;
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &b, &co, NULL, NULL), TALLY_EINVAL, "spec->outside", "3");
  b = sp;
  b.accuracy = (tally_accuracy)4;
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &b, &co, NULL, NULL), TALLY_EINVAL, "spec->accuracy", "4");
  b = sp;
  b.auto_range = 2;
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &b, &co, NULL, NULL), TALLY_EINVAL, "spec->auto_range", "2");
  /* outputs */
  tally_array a = tally_array_1d(c, TALLY_U64, 7);
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &sp, &a, NULL, NULL), TALLY_EINVAL, "counts->shape[0]", "7", "8");
  a = tally_array_1d(s, TALLY_F64, 8);
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &sp, &a, NULL, NULL), TALLY_EINVAL, "counts->dtype", "f64", "u64");
  a = tally_array_1d(NULL, TALLY_U64, 8);
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &sp, &a, NULL, NULL), TALLY_EINVAL, "counts->data");
  a = tally_array_1d(x, TALLY_U64, 8);
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &sp, &a, NULL, NULL), TALLY_EINVAL, "counts", "overlaps in");
  TU_EXPECT(tally_histogram(ctx, &in, &wa, &sp, &co, NULL, NULL), TALLY_EINVAL, "weight_sums", "NULL");
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &sp, &co, &sa, NULL), TALLY_EINVAL, "weight_sums", "weights");
  a = tally_array_1d(w, TALLY_F64, 8);
  TU_EXPECT(tally_histogram(ctx, &in, &wa, &sp, &co, &a, NULL), TALLY_EINVAL, "weight_sums", "overlaps weights");
  a = tally_array_1d(c, TALLY_F64, 8);
  TU_EXPECT(tally_histogram(ctx, &in, &wa, &sp, &co, &a, NULL), TALLY_EINVAL, "weight_sums", "overlaps counts");
  tally_array ws = tally_array_1d(w, TALLY_F64, 31);
  TU_EXPECT(tally_histogram(ctx, &in, &ws, &sp, &co, &sa, NULL), TALLY_EINVAL, "weights->shape[0]", "31", "32");
  a = tally_array_2d(x, TALLY_F32, 4, 8);
  TU_EXPECT(tally_histogram(ctx, &a, NULL, &sp, &co, NULL, NULL), TALLY_EINVAL, "in->ndim", "2");
  a = in;
  a.data = NULL;
  TU_EXPECT(tally_histogram(ctx, &a, NULL, &sp, &co, NULL, NULL), TALLY_EINVAL, "in->data");
  /* the automatic range of data holding Inf is refused, naming it */
  x[3] = INFINITY;
  b = sp;
  b.auto_range = 1;
  TU_EXPECT(tally_histogram(ctx, &in, NULL, &b, &co, NULL, NULL), TALLY_EINVAL, "spec->auto_range", "inf");
}

/* opt->variant: unknown names, GPU rungs on the CPU, rungs with segments; user scans
 * ignore it. */
static void scan_variants(void) {
  _Alignas(64) float x[16], o[16];
  for (int i = 0; i < 16; i++) x[i] = (float)i - 3.25f;
  tally_array in = tally_array_1d(x, TALLY_F32, 16), out = tally_array_1d(o, TALLY_F32, 16);
  tally_scan_options so;
  tally_scan_options_init(&so);
  so.variant = "best";
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &out, &so), TALLY_OK, "");
  CHECK(o[15] == 68.0f, "variant best: last value %g, want 68", (double)o[15]);
  so.variant = "kogge_stone";
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &out, &so), TALLY_EINVAL, "opt->variant",
         "kogge_stone", "blelloch");
  so.variant = "blelloch";
  TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &out, &so), TALLY_EUNSUPPORTED, "opt->variant",
         "blelloch", "cpu");
  uint8_t flags[16] = {0};
  flags[5] = 1;
  tally_context *ocl;
#ifdef TALLY_TEST_SANITIZED
  const int try_opencl = 0; /* the device compiler is not ours to sanitize */
#else
  const int try_opencl = 1;
#endif
  /* a GPU backend, where one is here (PoCL in CI) */
  if (try_opencl && tally_open("opencl", &ocl) == TALLY_OK) {
    tally_context *keep = ctx;
    ctx = ocl;
    so.flags = flags;
    TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &out, &so), TALLY_EUNSUPPORTED, "opt->variant",
           "segments");
    so.flags = NULL;
    memset(o, 0, sizeof o);
    TU_EXPECT(tally_scan(ctx, TALLY_SUM, &in, NULL, &out, &so), TALLY_OK, "");
    CHECK(o[15] == 68.0f && o[0] == -3.25f, "opencl blelloch: got %g .. %g, want -3.25 .. 68",
          (double)o[0], (double)o[15]);
    tally_close(ocl);
    ctx = keep;
  }
  int64_t d[8] = {1, 2, 3, 4, 5, 6, 7, 8}, r[8];
  tally_user_op u = {sizeof(int64_t), &(int64_t){0}, add64_user, NULL, 1};
  so.variant = "four_kernel";
  TU_EXPECT(tally_scan_user(ctx, &u, d, 8, 1, r, 1, &so), TALLY_OK, "");
  CHECK(r[7] == 36, "user scan with a variant: last %lld, want 36", (long long)r[7]);
}

int main(void) {
  if (tally_open("cpu", &ctx) != TALLY_OK) {
    printf("FAIL: tally_open(cpu): %s\n", tally_errmsg(NULL));
    return 1;
  }
  tt_rng rng;
  tt_rng_seed(&rng, tt_test_seed("test_scanargs"));
  scan_args();
  scan_overlaps();
  init_in_out(&rng);
  user_args();
  hist_args();
  scan_variants();
  tally_close(ctx);
  return tu_done("scanargs");
}

/* tally_determinism: DEFAULT-accuracy results must be bitwise identical for every thread
 * count and every CPU ISA (SEMANTICS.md, "Determinism"; NaN payloads excepted, being
 * unspecified); FAST results must repeat run to run. CPU only: devices the CPU lacks (TALLY_EUNSUPPORTED) are skipped. Inputs span
 * several 2^16-element chunks and exceed the single-thread threshold. Exit 0 / 1 / 77. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "elem.h"
#include "tc.h"

static const char *const devices[] = {"cpu:threads=1", "cpu:threads=2", "cpu:threads=3",
                                      "cpu:threads=7", "cpu:isa=scalar", "cpu:isa=avx2",
                                      "cpu:isa=avx512", "cpu"};
#define NDEV (int)(sizeof devices / sizeof devices[0])

typedef struct {
  tc_layout l;
  int64_t rows, cols;
  int axis;
  int nseg;
} shape;

/* The first result value that differs from base, or -1. Two NaNs count as equal: the
 * payload of a NaN result is unspecified (SEMANTICS.md, "NaN"). */
static int64_t differs(const tc_inst *I, const unsigned char *base) {
  for (int64_t v = 0; v < I->nout; v++) {
    uint64_t a = tt_load_bits(I->rd, base, v), b = tt_load_bits(I->rd, I->o, v);
    if (a != b && !(tt_bits_isnan(I->rd, a) && tt_bits_isnan(I->rd, b))) return v;
  }
  return -1;
}

static int compare(tc_run *R, tally_context *const *ctx, const tc_case *c) {
  uint64_t id;
  if (!tc_begin(R, &id)) return 1;
  tc_case cc = *c;
  cc.layout2 = c->layout;
  tc_inst I;
  tc_inst_init(R, &cc, id, &I);
  size_t ob = (size_t)(I.nout * I.rs);
  unsigned char *base = malloc(ob + 1);
  int ok = 1;
  for (int d = 0; d < NDEV && ok; d++) {
    if (!ctx[d]) continue;
    R->ctx = ctx[d];
    int runs = c->acc == TALLY_ACCURACY_FAST ? 2 : 1;
    for (int r = 0; r < runs && ok; r++) {
      tc_inst_poison(&I, (unsigned char)(0xa5 + r));
      tally_status st = tc_inst_reduce(R, &I);
      if (st != TALLY_OK) {
        tc_fail(R, "%s on %s: %s: %s", I.desc, devices[d], tally_status_name(st), tally_errmsg(ctx[d]));
        ok = 0;
      } else if (d == 0 && r == 0) {
        memcpy(base, I.o, ob);
      } else if (differs(&I, base) >= 0 && (c->acc == TALLY_ACCURACY_DEFAULT || (r == 1))) {
        int64_t v = differs(&I, base);
        tc_fail(R, "%s: %s differs from %s%s: value %" PRId64 " is 0x%016" PRIx64
                " there, 0x%016" PRIx64 " here", I.desc, devices[d], devices[0],
                r ? " (FAST, second run)" : "", v, tt_load_bits(I.rd, base, v),
                tt_load_bits(I.rd, I.o, v));
        ok = 0;
      }
      if (c->acc == TALLY_ACCURACY_FAST && r == 0) memcpy(base, I.o, ob); /* run to run */
    }
  }
  free(base);
  tc_inst_free(&I);
  return ok;
}

int main(int argc, char **argv) {
  tc_run R;
  memset(&R, 0, sizeof R);
  R.only_case = argc > 2 && strcmp(argv[1], "--case") == 0 ? strtoll(argv[2], NULL, 10) : -1;
  R.seed = tt_test_seed("tally_determinism");
  tally_context *ctx[NDEV];
  int usable = 0;
  for (int d = 0; d < NDEV; d++) {
    tally_status s = tally_open(devices[d], &ctx[d]);
    if (s == TALLY_OK) {
      usable++;
    } else {
      ctx[d] = NULL;
      printf("%s: skipped (%s: %s)\n", devices[d], tally_status_name(s), tally_errmsg(NULL));
      if (d == 0) {
        printf("SKIP: the baseline device cannot be opened\n");
        return 77;
      }
    }
  }
  const int64_t C = 65536;
  const shape shapes[] = {
      {TC_CONTIG, 1, 4 * C + 123, -1, 0},  {TC_STRIDE3, 1, 3 * C + 7, -1, 0},
      {TC_REVERSE, 1, 3 * C + 5, -1, 0},   {TC_2D, 4, C + 100, 1, 0},
      {TC_2D_PAD, 3, C + 300, -1, 0},      {TC_2D_T, C + 50, 3, 0, 0},
      {TC_CONTIG, 1, 5 * C + 1, -1, 6}};
  const int nshapes = (int)(sizeof shapes / sizeof shapes[0]);
  int combo = 0;
  for (int op = 0; op < TALLY_OP_COUNT_; op++)
    for (int dt = 0; dt < TALLY_DTYPE_COUNT_; dt++) {
      if (!tc_op_defined((tally_op)op, (tally_dtype)dt)) continue;
      combo++;
      int fl = tt_is_float((tally_dtype)dt);
      for (int k = 0; k < 7; k++) {
        /* Three large inputs (threads and ISAs), three small ones (ISAs: lanes and tails),
         * and a large one of values over a wide range of exponents (k = 6), where the
         * grouping of additions is most likely to show in the bits. (Not always enough:
         * f32 sums in f64 lanes rounded once to f32 hide most lane permutations, as a
         * deliberately permuted AVX2 f32 kernel showed.) */
        shape small = {TC_CONTIG, 1, 33 + (int64_t)((combo * 97 + k * 31) % 3000), -1, 0};
        const shape *sh = k < 3 ? &shapes[(combo + 2 * k) % nshapes] : k == 6 ? &shapes[0] : &small;
        tc_case c = {0};
        c.op = (tally_op)op;
        c.dt = (tally_dtype)dt;
        c.dist = (k % 3) == 1 && fl ? TT_NAN : (op == TALLY_PROD || op == TALLY_AFFINE) ? TT_NEAR_ONE
                 : (k % 3) == 2 ? TT_CANCEL : k == 3 ? TT_UNIFORM : TT_NORMAL;
        if (!fl && c.dist == TT_NEAR_ONE && op != TALLY_PROD) c.dist = TT_UNIFORM;
        if (k == 6 && op != TALLY_PROD && op != TALLY_AFFINE) c.dist = TT_HUGE;
        c.param = -1;
        c.acc = k == 2 ? TALLY_ACCURACY_FAST : TALLY_ACCURACY_DEFAULT;
        c.nan = (k % 3) == 1 && (combo & 1) ? TALLY_NAN_IGNORE : TALLY_NAN_PROPAGATE;
        c.layout = sh->l;
        c.rows = sh->rows;
        c.cols = sh->cols;
        c.axis = sh->axis;
        c.call = sh->nseg ? TC_CALL_SEGMENTS : TC_CALL_REDUCE;
        c.nseg = sh->nseg;
        compare(&R, ctx, &c);
      }
    }
  for (int d = 0; d < NDEV; d++) tally_close(ctx[d]);
  printf("%s: %" PRId64 " cases on %d devices, %" PRId64 " failures (seed %" PRIu64 ")\n",
         R.failures ? "FAILED" : "PASSED", R.cases, usable, R.failures, R.seed);
  return R.failures ? 1 : 0;
}

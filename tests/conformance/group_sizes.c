/* Every op on every dtype over the size list: 0, 1, 2, 3, each power of two ± 1 up to
 * 2^20, tile sizes ± 1, primes. Small sizes get every applicable distribution, accuracy
 * and NaN mode at one size and a rotation at the others; larger sizes a rotation. */
#include <stdlib.h>

#include "elem.h"
#include "tc.h"

const int64_t tc_sizes[] = {
    0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129,
    255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097,
    7919, 8191, 8192, 8193, 16383, 16384, 16385, 32767, 32768, 32769, 65535, 65536, 65537,
    104729, 131071, 131072, 131073, 262143, 262144, 262145, 524287, 524288, 524289,
    1048575, 1048576, 1048577};
const int tc_nsizes = (int)(sizeof tc_sizes / sizeof tc_sizes[0]);

/* Whether accuracy and NaN modes change anything for op on dt. */
static int float_arith(tally_op op, tally_dtype dt) {
  if (!tt_is_float(dt)) return 0;
  switch (op) {
  case TALLY_SUM: case TALLY_PROD: case TALLY_MEAN: case TALLY_VAR: case TALLY_STD:
  case TALLY_SUMSQ: case TALLY_NORM2: case TALLY_DOT: case TALLY_AFFINE: return 1;
  default: return 0;
  }
}

static int dists_for(tally_op op, tally_dtype dt, tt_dist *out) {
  int k = 0;
  for (int d = 0; d < TT_DIST_COUNT; d++)
    if (tt_dist_applies((tt_dist)d, op, dt)) out[k++] = (tt_dist)d;
  return k;
}

static void one(tc_run *R, tally_op op, tally_dtype dt, tt_dist d, int64_t n, int mode) {
  tc_case c = {0};
  c.op = op;
  c.dt = dt;
  c.dist = d;
  c.param = -1;
  c.acc = (mode & 1) && float_arith(op, dt) ? TALLY_ACCURACY_FAST : TALLY_ACCURACY_DEFAULT;
  c.nan = (mode & 2) && tt_is_float(dt) ? TALLY_NAN_IGNORE : TALLY_NAN_PROPAGATE;
  c.ddof = (op == TALLY_VAR || op == TALLY_STD) && (mode & 4) && n >= 2 && d != TT_NAN;
  c.layout = TC_CONTIG;
  c.rows = 1;
  c.cols = n;
  c.axis = -1;
  c.call = TC_CALL_REDUCE;
  tc_run_case(R, &c);
}

/* SUM of i mod k against its closed form: a check of the reference as much as of the
 * library. */
static void modk_closed_form(tc_run *R) {
  static const int64_t ns[] = {0, 1, 99, 100, 101, 65537, 1048577};
  for (int dt = TALLY_I8; dt <= TALLY_U64; dt++)
    for (int i = 0; i < 7; i++) {
      uint64_t id;
      if (!tc_wanted(R, TALLY_SUM, (tally_dtype)dt) || !tc_begin(R, &id)) continue;
      int64_t n = ns[i], k = tt_size((tally_dtype)dt) == 1 ? 100 : 1000;
      tt_rng rng;
      tt_rng_stream(&rng, R->seed, id);
      void *x = tc_alloc((size_t)n * tt_size((tally_dtype)dt) + 1);
      tt_genopt g = {k, TT_NORMAL};
      tt_generate(&rng, TT_MODK, (tally_dtype)dt, x, n, &g);
      uint64_t got = 0xa5a5a5a5a5a5a5a5u, want = (uint64_t)(unsigned __int128)tt_modk_sum(n, k);
      tally_array in = tally_array_1d(x, (tally_dtype)dt, n);
      tally_array out = tally_array_1d(&got, tt_is_unsigned((tally_dtype)dt) ? TALLY_U64 : TALLY_I64, 1);
      tally_options opt;
      tally_options_init(&opt);
      opt.host_input = R->host_input;
      tally_status st = tally_reduce(R->ctx, TALLY_SUM, &in, NULL, &out, &opt);
      if (st != TALLY_OK || got != want)
        tc_fail(R, "case=%llu sum of i mod %lld, %s n=%lld: %s, got %llu, closed form %llu",
                (unsigned long long)id, (long long)k, tally_dtype_name((tally_dtype)dt),
                (long long)n, tally_status_name(st), (unsigned long long)got,
                (unsigned long long)want);
      free(x);
    }
}

/* Ill-conditioned f64 sums and dot products (TT_ILLCOND) at DEFAULT accuracy, contiguous
 * and strided, at sizes from one pair to past the CPU's single-thread threshold: only a
 * correctly compensated sum (TwoSum, and TwoProduct for DOT) meets the bound, on every
 * path (vector halves, tails, thread merges, GPU blocks). */
static void illcond_cases(tc_run *R) {
  static const int64_t ns[] = {2, 33, 100, 1000, 4097, 65537, 131073};
  static const tally_op ops[] = {TALLY_SUM, TALLY_DOT, TALLY_MEAN};
  for (int o = 0; o < 3; o++)
    for (int i = 0; i < 7; i++)
      for (int l = 0; l < 2; l++) {
        tc_case c = {0};
        c.op = ops[o];
        c.dt = TALLY_F64;
        c.dist = TT_ILLCOND;
        c.param = -1;
        c.acc = TALLY_ACCURACY_DEFAULT;
        c.nan = TALLY_NAN_PROPAGATE;
        c.layout = l ? TC_STRIDE3 : TC_CONTIG;
        c.layout2 = c.layout;
        c.rows = 1;
        c.cols = ns[i];
        c.axis = -1;
        c.call = TC_CALL_REDUCE;
        tc_run_case(R, &c);
      }
}

void tc_group_sizes(tc_run *R) {
  modk_closed_form(R);
  illcond_cases(R);
  int64_t full_at = 100;                      /* the size with every combination */
  int64_t big_limit = R->quick ? 140000 : INT64_MAX;
  int big_every = R->quick ? 6 : 3;           /* larger sizes: one in this many per combo */
  int combo = 0;
  for (int op = 0; op < TALLY_OP_COUNT_; op++)
    for (int dt = 0; dt < TALLY_DTYPE_COUNT_; dt++) {
      if (!tc_op_defined((tally_op)op, (tally_dtype)dt)) continue;
      tt_dist ds[TT_DIST_COUNT];
      int nd = dists_for((tally_op)op, (tally_dtype)dt, ds);
      int modes = float_arith((tally_op)op, (tally_dtype)dt) ? 4 : tt_is_float((tally_dtype)dt) ? 3 : 1;
      if (op == TALLY_VAR || op == TALLY_STD) modes = tt_is_float((tally_dtype)dt) ? 8 : 5;
      combo++;
      if (!R->quick || combo % 4 != 0)
        for (int d = 0; d < nd; d++)
          for (int m = 0; m < modes; m++) one(R, (tally_op)op, (tally_dtype)dt, ds[d], full_at, m);
      for (int si = 0; si < tc_nsizes; si++) {
        int64_t n = tc_sizes[si];
        if (n > big_limit) break;
        int rot = si + combo;
        if (n > 1025 && rot % big_every != 0) continue;
        one(R, (tally_op)op, (tally_dtype)dt, ds[rot % nd], n, rot / nd);
      }
    }
}

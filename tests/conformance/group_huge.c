/* 2^24 ± 1 elements for a few combinations (the rest of the suite stops at 2^20 + 1):
 * float sums in both accuracies, an integer sum, a dot product, a maximum and an argmin. */
#include "tc.h"

void tc_group_huge(tc_run *R) {
  if (R->quick) return;
  static const struct {
    tally_op op;
    tally_dtype dt;
    tt_dist dist;
    tally_accuracy acc;
    int64_t n;
  } cases[] = {
      {TALLY_SUM, TALLY_F32, TT_LOGNORMAL, TALLY_ACCURACY_DEFAULT, (1 << 24) + 1},
      {TALLY_SUM, TALLY_F32, TT_UNIFORM, TALLY_ACCURACY_FAST, (1 << 24) - 1},
      {TALLY_SUM, TALLY_F64, TT_CANCEL, TALLY_ACCURACY_DEFAULT, (1 << 24) - 1},
      {TALLY_SUM, TALLY_I32, TT_HUGE, TALLY_ACCURACY_DEFAULT, (1 << 24) + 1},
      {TALLY_DOT, TALLY_BF16, TT_NORMAL, TALLY_ACCURACY_DEFAULT, (1 << 24) + 1},
      {TALLY_MAX, TALLY_F16, TT_NORMAL, TALLY_ACCURACY_DEFAULT, (1 << 24) - 1},
      {TALLY_ARGMIN, TALLY_I8, TT_UNIFORM, TALLY_ACCURACY_DEFAULT, (1 << 24) + 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    tc_case c = {0};
    c.op = cases[i].op;
    c.dt = cases[i].dt;
    c.dist = cases[i].dist;
    c.param = -1;
    c.acc = cases[i].acc;
    c.nan = TALLY_NAN_PROPAGATE;
    c.layout = TC_CONTIG;
    c.rows = 1;
    c.cols = cases[i].n;
    c.axis = -1;
    c.call = TC_CALL_REDUCE;
    tc_run_case(R, &c);
  }
}

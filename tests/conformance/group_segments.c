/* Segmented reductions: random offsets (empty segments where the op has an identity, a
 * first offset above 0, a last one below n), contiguous, strided and reversed input. */
#include "elem.h"
#include "tc.h"

static int needs_nonempty(tally_op op) {
  return op == TALLY_MIN || op == TALLY_MAX || op == TALLY_MINMAX || op == TALLY_ARGMIN ||
         op == TALLY_ARGMAX || op == TALLY_MEAN || op == TALLY_VAR || op == TALLY_STD;
}

void tc_group_segments(tc_run *R) {
  static const struct { int64_t n; int nseg; } plan[] = {
      {0, 0}, {0, 3}, {1, 1}, {10, 4}, {1000, 37}, {70000, 5}, {200000, 2}};
  int combo = 0;
  for (int op = 0; op < TALLY_OP_COUNT_; op++)
    for (int dt = 0; dt < TALLY_DTYPE_COUNT_; dt++) {
      if (!tc_op_defined((tally_op)op, (tally_dtype)dt)) continue;
      tt_dist ds[TT_DIST_COUNT];
      int nd = 0;
      for (int d = 0; d < TT_DIST_COUNT; d++)
        if (tt_dist_applies((tt_dist)d, (tally_op)op, (tally_dtype)dt)) ds[nd++] = (tt_dist)d;
      combo++;
      for (int p = 0; p < 7; p++) {
        if (plan[p].nseg > plan[p].n && needs_nonempty((tally_op)op)) continue;
        if (p >= 5 && (combo + p) % (R->quick ? 8 : 3)) continue;
        int rot = combo + p;
        tc_case c = {0};
        c.op = (tally_op)op;
        c.dt = (tally_dtype)dt;
        c.dist = ds[rot % nd];
        c.param = -1;
        c.acc = (rot & 1) ? TALLY_ACCURACY_FAST : TALLY_ACCURACY_DEFAULT;
        c.nan = (rot & 2) && tt_is_float((tally_dtype)dt) ? TALLY_NAN_IGNORE : TALLY_NAN_PROPAGATE;
        c.layout = (tc_layout)(rot % 3); /* contig, stride3, reverse */
        c.rows = 1;
        c.cols = plan[p].n;
        c.axis = -1;
        c.call = TC_CALL_SEGMENTS;
        c.nseg = plan[p].nseg;
        tc_run_case(R, &c);
      }
    }
}

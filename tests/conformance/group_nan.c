/* NaN at every position 0..64 and at the end, for every op on every float dtype, under
 * both NaN modes; then NaN at the chunk-sized boundaries of a larger input. */
#include "elem.h"
#include "tc.h"

static void one(tc_run *R, tally_op op, tally_dtype dt, int64_t n, int64_t pos, tally_nan nm,
                tally_accuracy acc) {
  tc_case c = {0};
  c.op = op;
  c.dt = dt;
  c.dist = TT_NAN;
  c.param = pos;
  c.acc = acc;
  c.nan = nm;
  c.layout = TC_CONTIG;
  c.rows = 1;
  c.cols = n;
  c.axis = -1;
  c.call = TC_CALL_REDUCE;
  tc_run_case(R, &c);
}

void tc_group_nan(tc_run *R) {
  static const tally_dtype fdt[] = {TALLY_F16, TALLY_BF16, TALLY_F32, TALLY_F64};
  int step = R->quick ? 5 : 1;
  for (int op = 0; op < TALLY_OP_COUNT_; op++)
    for (int d = 0; d < 4; d++) {
      tally_dtype dt = fdt[d];
      if (!tc_op_defined((tally_op)op, dt)) continue;
      for (int nm = 0; nm < 2; nm++) {
        for (int64_t pos = 0; pos <= 64; pos += step)
          one(R, (tally_op)op, dt, 100, pos, (tally_nan)nm, (tally_accuracy)((pos / step) & 1));
        one(R, (tally_op)op, dt, 100, 99, (tally_nan)nm, TALLY_ACCURACY_DEFAULT);
        if (R->quick && ((op + d + nm) & 3)) continue;
        static const int64_t big[] = {65535, 65536, 65537, 65536 + 69};
        for (int b = 0; b < 4; b++)
          one(R, (tally_op)op, dt, 65536 + 70, big[b], (tally_nan)nm, (tally_accuracy)(b & 1));
      }
    }
}

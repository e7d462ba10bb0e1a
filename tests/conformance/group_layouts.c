/* Layouts: 1-D with stride 3 and stride -1; 2-D in C order, transposed and with padded
 * rows, reduced along axis -1, 0 and 1; shapes from empty to several chunks. */
#include "elem.h"
#include "tc.h"

typedef struct {
  int64_t rows, cols;
} shape;

static const shape small[] = {{1, 1}, {1, 7}, {7, 1}, {3, 5}, {17, 33}, {64, 64},
                              {255, 3}, {3, 257}, {0, 3}, {3, 0}};
static const shape large[] = {{2, 70001}, {70001, 2}, {300, 301}, {1, 131073}, {131073, 1}};
static const int64_t sizes1d[] = {1, 2, 17, 1000, 65537, 131075};

static int dists_for(tally_op op, tally_dtype dt, tt_dist *out) {
  int k = 0;
  for (int d = 0; d < TT_DIST_COUNT; d++)
    if (tt_dist_applies((tt_dist)d, op, dt)) out[k++] = (tt_dist)d;
  return k;
}

static void one(tc_run *R, tally_op op, tally_dtype dt, tt_dist d, tc_layout l, int64_t rows,
                int64_t cols, int axis, int rot) {
  tc_case c = {0};
  c.op = op;
  c.dt = dt;
  c.dist = d;
  c.param = -1;
  c.acc = (rot & 1) ? TALLY_ACCURACY_FAST : TALLY_ACCURACY_DEFAULT;
  c.nan = (rot & 2) && tt_is_float(dt) ? TALLY_NAN_IGNORE : TALLY_NAN_PROPAGATE;
  c.layout = l;
  c.rows = rows;
  c.cols = cols;
  c.axis = axis;
  c.call = TC_CALL_REDUCE;
  tc_run_case(R, &c);
}

void tc_group_layouts(tc_run *R) {
  int combo = 0;
  int nsmall = (int)(sizeof small / sizeof small[0]);
  for (int op = 0; op < TALLY_OP_COUNT_; op++)
    for (int dt = 0; dt < TALLY_DTYPE_COUNT_; dt++) {
      if (!tc_op_defined((tally_op)op, (tally_dtype)dt)) continue;
      tt_dist ds[TT_DIST_COUNT];
      int nd = dists_for((tally_op)op, (tally_dtype)dt, ds);
      combo++;
      int rot = combo;
      /* 1-D strided and reversed. */
      for (int s = 0; s < 6; s++) {
        if (s >= 4 && (combo + s) % (R->quick ? 6 : 2)) continue;
        for (int l = TC_STRIDE3; l <= TC_REVERSE; l++, rot++)
          one(R, (tally_op)op, (tally_dtype)dt, ds[rot % nd], (tc_layout)l, 1, sizes1d[s], -1, rot);
      }
      /* 2-D: every layout and axis on small shapes, one large shape in rotation. */
      for (int l = TC_2D; l <= TC_2D_PAD; l++)
        for (int axis = -1; axis <= 1; axis++) {
          for (int s = 0; s < nsmall; s++, rot++) {
            if (R->quick && (s + l + axis + combo) % 3) continue;
            one(R, (tally_op)op, (tally_dtype)dt, ds[rot % nd], (tc_layout)l, small[s].rows,
                small[s].cols, axis, rot);
          }
          int pick = combo + 3 * l + axis;
          if (pick % (R->quick ? 12 : 3) == 0) {
            const shape *sh = &large[(pick / 3) % 5];
            one(R, (tally_op)op, (tally_dtype)dt, ds[rot % nd], (tc_layout)l, sh->rows,
                sh->cols, axis, rot);
            rot++;
          }
        }
    }
}

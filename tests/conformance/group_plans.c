/* The plan API: create once from descriptors without data, then run on several inputs
 * (new buffers each time) with a caller-owned workspace and with the plan's own; each run
 * is checked against the reference and, in DEFAULT accuracy, bit for bit against
 * tally_reduce. Also: a workspace too small or misaligned is refused, and a run with
 * another shape is refused. */
#include <stdlib.h>
#include <string.h>

#include "elem.h"
#include "tc.h"

static tally_status run_plan(tc_run *R, tc_inst *I, void *plan) {
  (void)R;
  return tally_plan_run((tally_plan *)plan, &I->in, I->has2 ? &I->in2 : NULL, &I->out);
}

static void one(tc_run *R, const tc_case *c0) {
  uint64_t id;
  if (!tc_begin(R, &id)) return;
  tc_case c = *c0;
  c.out2d = id & 1;
  c.layout2 = c.layout == TC_CONTIG ? TC_REVERSE : c.layout == TC_2D ? TC_2D_T : c.layout;
  /* The plan is made from an instance's descriptors with the data pointers cleared. */
  tc_inst I;
  tc_inst_init(R, &c, id * 16, &I);
  tally_array in = I.in, in2 = I.in2, out = I.out;
  in.data = in2.data = out.data = NULL;
  tally_plan *plan = NULL;
  tally_status st = tally_plan_create(R->ctx, c.op, &in, I.has2 ? &in2 : NULL, &out, &I.opt, &plan);
  tally_status want = tc_variant_supports(R, c.op, c.dt) ? TALLY_OK : TALLY_EUNSUPPORTED;
  if (st != want) {
    tc_fail(R, "%s: plan_create: %s (%s), expected %s", I.desc, tally_status_name(st),
            tally_errmsg(R->ctx), tally_status_name(want));
    tc_inst_free(&I);
    tally_plan_destroy(plan);
    return;
  }
  tc_inst_free(&I);
  if (st != TALLY_OK) return;

  size_t bytes = 0;
  if (tally_plan_workspace_size(plan, &bytes) != TALLY_OK)
    tc_fail(R, "case=%llu: plan_workspace_size failed: %s", (unsigned long long)id, tally_errmsg(R->ctx));
  void *ws = tc_alloc(bytes + 64);
  if (bytes > 0) {
    if (tally_plan_set_workspace(plan, ws, bytes - 1) != TALLY_EINVAL)
      tc_fail(R, "case=%llu: a workspace of %zu bytes (one too few) was accepted",
              (unsigned long long)id, bytes - 1);
    if (tally_plan_set_workspace(plan, (char *)ws + 8, bytes) != TALLY_EINVAL)
      tc_fail(R, "case=%llu: a workspace 8 bytes off 16-byte alignment was accepted",
              (unsigned long long)id);
  }
  st = tally_plan_set_workspace(plan, ws, bytes);
  if (st != TALLY_OK)
    tc_fail(R, "case=%llu: plan_set_workspace(%zu bytes): %s", (unsigned long long)id, bytes,
            tally_errmsg(R->ctx));
  /* Three runs with the caller's workspace, one with the plan's own again. */
  for (int run = 0; run < 4; run++) {
    if (run == 3 && tally_plan_set_workspace(plan, NULL, 0) != TALLY_OK)
      tc_fail(R, "case=%llu: plan_set_workspace(NULL) failed", (unsigned long long)id);
    tc_inst J;
    tc_inst_init(R, &c, id * 16 + 1 + (uint64_t)run, &J);
    st = tally_plan_run(plan, &J.in, J.has2 ? &J.in2 : NULL, &J.out);
    char why[512];
    if (!tc_inst_verify(R, &J, st, run_plan, plan, why, sizeof why)) {
      tc_fail(R, "%s: plan run %d: %s", J.desc, run, why);
    } else if (st == TALLY_OK && c.acc == TALLY_ACCURACY_DEFAULT) {
      size_t ob = (size_t)(J.nout * J.rs);
      unsigned char *first = malloc(ob ? ob : 1);
      memcpy(first, J.o, ob);
      tc_inst_poison(&J, 0xa5);
      tally_status s2 = tc_inst_reduce(R, &J);
      if (s2 != TALLY_OK || memcmp(first, J.o, ob) != 0)
        tc_fail(R, "%s: plan run %d differs from tally_reduce (status %s)", J.desc, run,
                tally_status_name(s2));
      free(first);
    }
    tc_inst_free(&J);
  }
  /* Arrays of another shape are refused. */
  if (c.cols > 1) {
    tc_case d = c;
    d.cols = c.cols - 1;
    tc_inst K;
    tc_inst_init(R, &d, id * 16 + 9, &K);
    st = tally_plan_run(plan, &K.in, K.has2 ? &K.in2 : NULL, &K.out);
    if (st != TALLY_EINVAL)
      tc_fail(R, "case=%llu: plan_run on a %lldx%lld input (plan: %lldx%lld): %s, expected TALLY_EINVAL",
              (unsigned long long)id, (long long)d.rows, (long long)d.cols, (long long)c.rows,
              (long long)c.cols, tally_status_name(st));
    tc_inst_free(&K);
  }
  tally_plan_destroy(plan);
  free(ws);
}

void tc_group_plans(tc_run *R) {
  static const struct {
    tally_op op;
    tally_dtype dt;
    tc_layout l;
    int64_t rows, cols;
    int axis;
    tally_accuracy acc;
    tt_dist dist;
  } cases[] = {
      {TALLY_SUM, TALLY_F32, TC_CONTIG, 1, 200003, -1, TALLY_ACCURACY_DEFAULT, TT_NORMAL},
      {TALLY_SUM, TALLY_F64, TC_STRIDE3, 1, 70001, -1, TALLY_ACCURACY_FAST, TT_CANCEL},
      {TALLY_SUM, TALLY_I32, TC_REVERSE, 1, 1000, -1, TALLY_ACCURACY_DEFAULT, TT_UNIFORM},
      {TALLY_DOT, TALLY_F32, TC_CONTIG, 1, 131073, -1, TALLY_ACCURACY_DEFAULT, TT_NORMAL},
      {TALLY_DOT, TALLY_BF16, TC_2D, 300, 301, 0, TALLY_ACCURACY_DEFAULT, TT_UNIFORM},
      {TALLY_MINMAX, TALLY_F16, TC_2D_T, 70, 90, 1, TALLY_ACCURACY_DEFAULT, TT_NEGZERO},
      {TALLY_ARGMAX, TALLY_U8, TC_CONTIG, 1, 100000, -1, TALLY_ACCURACY_DEFAULT, TT_UNIFORM},
      {TALLY_VAR, TALLY_F64, TC_2D_PAD, 40, 3000, 1, TALLY_ACCURACY_DEFAULT, TT_NORMAL},
      {TALLY_MEAN, TALLY_I64, TC_CONTIG, 1, 65537, -1, TALLY_ACCURACY_DEFAULT, TT_EXTREMES},
      {TALLY_NORM2, TALLY_F64, TC_CONTIG, 1, 140000, -1, TALLY_ACCURACY_DEFAULT, TT_HUGE},
      {TALLY_AFFINE, TALLY_I64, TC_CONTIG, 1, 200000, -1, TALLY_ACCURACY_DEFAULT, TT_UNIFORM},
      {TALLY_AFFINE, TALLY_F32, TC_2D, 8, 9000, 1, TALLY_ACCURACY_DEFAULT, TT_NORMAL},
      {TALLY_COUNT_NONZERO, TALLY_BOOL, TC_STRIDE3, 1, 99999, -1, TALLY_ACCURACY_DEFAULT, TT_UNIFORM},
      {TALLY_BITXOR, TALLY_U64, TC_2D, 1000, 70, 0, TALLY_ACCURACY_DEFAULT, TT_HUGE},
      {TALLY_PROD, TALLY_F32, TC_CONTIG, 1, 0, -1, TALLY_ACCURACY_DEFAULT, TT_NEAR_ONE},
  };
  int n = (int)(sizeof cases / sizeof cases[0]);
  for (int i = 0; i < n; i++) {
    if (R->quick && (i & 1)) continue;
    tc_case c = {0};
    c.op = cases[i].op;
    c.dt = cases[i].dt;
    c.dist = cases[i].dist;
    c.param = -1;
    c.acc = cases[i].acc;
    c.nan = TALLY_NAN_PROPAGATE;
    c.layout = cases[i].l;
    c.rows = cases[i].rows;
    c.cols = cases[i].cols;
    c.axis = cases[i].axis;
    c.call = TC_CALL_PLAN;
    one(R, &c);
  }
}

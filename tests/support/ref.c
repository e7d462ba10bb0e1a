/* See ref.h: dispatch to the parts of the reference. */
#include <math.h>
#include <string.h>

#include "elem.h"
#include "half.h"
#include "ref_impl.h"

void tt_set_exact(tt_value *v, uint64_t bits) { v->kind = TT_K_EXACT; v->bits = bits; }
void tt_set_nan(tt_value *v) { v->kind = TT_K_NAN; }
void tt_set_near(tt_value *v, long double val, double bound) {
  v->kind = TT_K_NEAR;
  v->val = val;
  v->bound = bound;
}

double tt_unit(tally_dtype rdtype) { return rdtype == TALLY_F64 ? 0x1p-53 : 0x1p-24; }

uint64_t tt_float_bits(tally_dtype t, double v) {
  unsigned char buf[8];
  tt_store_f(t, buf, 0, v);
  return tt_load_bits(t, buf, 0);
}

void tt_reference(const tt_spec *s, const void *x, const void *y, int64_t n, tt_expect *e) {
  memset(e, 0, sizeof *e);
  int ok;
  e->rdtype = tt_result_dtype(s->op, s->dt, &ok);
  e->width = tt_width(s->op);
  e->status = TALLY_OK;
  switch (s->op) {
  case TALLY_MIN: case TALLY_MAX: case TALLY_MINMAX: case TALLY_ARGMIN: case TALLY_ARGMAX:
  case TALLY_ANY: case TALLY_ALL: case TALLY_COUNT_NONZERO:
  case TALLY_BITAND: case TALLY_BITOR: case TALLY_BITXOR:
    tt__ref_order(s, x, n, e);
    break;
  case TALLY_VAR: case TALLY_STD:
    tt__ref_var(s, x, n, e);
    break;
  default:
    if (tt_is_float(s->dt)) tt__ref_float(s, x, y, n, e);
    else tt__ref_int(s, x, y, n, e);
    break;
  }
}

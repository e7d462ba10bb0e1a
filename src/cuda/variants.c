/* The CUDA variants in ladder order — the seeds' algorithms from the slowest idea to the
 * production path, as tally bench --variants ladder prints them — with "best" last. */
#include "variants.h"

#include <stdio.h>
#include <string.h>

static int nladder(void) {
  int n = 0;
  while (tally__ladder[n].name) n++;
  return n;
}

const char *tally__cuda_variant_name(int i) {
  int n = nladder();
  if (i >= 0 && i < n) return tally__ladder[i].name;
  return i == n ? "best" : NULL;
}

tally_status tally__cuda_variant_find(tally_context *ctx, const char *name, tally__cuda_variant *v) {
  if (!name || strcmp(name, "best") == 0) {
    v->name = "best";
    v->ladder = NULL;
    return TALLY_OK;
  }
  for (const tally__ladder_variant *l = tally__ladder; l->name; l++)
    if (strcmp(l->name, name) == 0) {
      v->name = l->name;
      v->ladder = l;
      return TALLY_OK;
    }
  char known[768] = "";
  for (int i = 0; tally__cuda_variant_name(i); i++) {
    if (i) strncat(known, ", ", sizeof known - strlen(known) - 1);
    strncat(known, tally__cuda_variant_name(i), sizeof known - strlen(known) - 1);
  }
  return tally__fail(ctx, TALLY_EINVAL, "opt->variant: '%s' is not a variant of the cuda backend "
                     "(known: %s)", name, known);
}

tally_status tally__cuda_variant_check(tally_context *ctx, const tally__problem *p) {
  tally__cuda_variant v = {NULL, NULL};
  tally_status s = tally__cuda_variant_find(ctx, p->opt.variant, &v);
  if (s) return s;
  if (v.ladder && v.ladder->supports && !v.ladder->supports(p->op, p->dtype))
    return tally__fail(ctx, TALLY_EUNSUPPORTED, "opt->variant: '%s' computes only %s, not %s of %s",
                       v.name, v.ladder->ops_text, tally_op_name(p->op), tally_dtype_name(p->dtype));
  return TALLY_OK;
}

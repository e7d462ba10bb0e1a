/* The table of CUDA variants, in ladder order (tally bench --variants ladder prints them
 * in this order; docs/LADDER.md explains each step). */
#include "variants.h"

#include <stdio.h>
#include <string.h>

static const tally__cuda_variant variants[] = {
    {"best", tally__cuda_run_best, NULL, NULL},
};
#define NVARIANTS (int)(sizeof variants / sizeof variants[0])

const char *tally__cuda_variant_name(int i) {
  return i >= 0 && i < NVARIANTS ? variants[i].name : NULL;
}

tally_status tally__cuda_variant_find(tally_context *ctx, const char *name,
                                      const tally__cuda_variant **v) {
  if (!name) name = "best";
  for (int i = 0; i < NVARIANTS; i++)
    if (strcmp(variants[i].name, name) == 0) {
      *v = &variants[i];
      return TALLY_OK;
    }
  char known[512] = "";
  for (int i = 0; i < NVARIANTS; i++) {
    strncat(known, variants[i].name, sizeof known - strlen(known) - 3);
    if (i + 1 < NVARIANTS) strcat(known, ", ");
  }
  return tally__fail(ctx, TALLY_EINVAL, "opt->variant: '%s' is not a variant of the cuda backend "
                     "(known: %s)", name, known);
}

tally_status tally__cuda_variant_check(tally_context *ctx, const tally__problem *p) {
  const tally__cuda_variant *v;
  tally_status s = tally__cuda_variant_find(ctx, p->opt.variant, &v);
  if (s) return s;
  if (v->supports && !v->supports(p->op, p->dtype))
    return tally__fail(ctx, TALLY_EUNSUPPORTED, "opt->variant: '%s' computes only %s, not %s of %s",
                       v->name, v->ops_text, tally_op_name(p->op), tally_dtype_name(p->dtype));
  return TALLY_OK;
}

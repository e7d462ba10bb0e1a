/* The CUDA variants in ladder order — the seeds' algorithms from the slowest idea to the
 * production path, as tally bench --variants ladder prints them — with "best" last. */
#include "variants.h"

const char *tally__cuda_variant_name(int i) {
  return tally__ladder_variant_name(TALLY__CUDA_LADDER_CAPS, i);
}

tally_status tally__cuda_variant_find(tally_context *ctx, const tally__problem *p,
                                      tally__cuda_variant *v) {
  tally_status s = tally__ladder_find(ctx, "cuda", TALLY__CUDA_LADDER_CAPS, p->opt.variant, p->op,
                                      p->dtype, &v->ladder);
  v->name = v->ladder ? tally__ladder_name(v->ladder) : "best";
  return s;
}

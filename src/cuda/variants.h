/* The CUDA backend's variants: the ladder (core/gpu_ladder.h), then "best". */
#ifndef TALLY_CUDA_VARIANTS_H
#define TALLY_CUDA_VARIANTS_H

#include "core/internal.h"
#include "ladder.h"

/* A variant: NULL ladder means "best". */
typedef struct {
  const char *name;
  const tally__ladder_variant *ladder;
} tally__cuda_variant;

const char *tally__cuda_variant_name(int i);
/* NULL or "best": best; TALLY_EINVAL naming the known variants, TALLY_EUNSUPPORTED for an
 * op the variant does not compute. */
tally_status tally__cuda_variant_find(tally_context *ctx, const tally__problem *p,
                                      tally__cuda_variant *v);

#endif

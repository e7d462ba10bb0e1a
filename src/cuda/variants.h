/* The CUDA backend's variants: the ladder (ladder.h), then "best" (the production path). */
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
/* NULL or "best": best; fails with TALLY_EINVAL naming the known variants. */
tally_status tally__cuda_variant_find(tally_context *ctx, const char *name, tally__cuda_variant *v);
tally_status tally__cuda_variant_check(tally_context *ctx, const tally__problem *p);

#endif

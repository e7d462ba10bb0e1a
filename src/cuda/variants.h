/* The CUDA backend's variants: "best" (the production path) and the ladder. */
#ifndef TALLY_CUDA_VARIANTS_H
#define TALLY_CUDA_VARIANTS_H

#include "core/internal.h"
#include "gpu_part.h"

typedef struct {
  const char *name;
  /* Reduce slices [k0, k1) of the job (reduce.c's job_t) into parts[0 .. k1 - k0). */
  tally_status (*run)(void *job, int64_t k0, int64_t k1, tally__gpu_part *parts);
  /* NULL: every op; else whether the variant computes op on dt. */
  int (*supports)(tally_op op, tally_dtype dt);
  const char *ops_text; /* for the error message when it does not */
} tally__cuda_variant;

const char *tally__cuda_variant_name(int i);
/* NULL or "best": best; fails with TALLY_EINVAL naming the known variants. */
tally_status tally__cuda_variant_find(tally_context *ctx, const char *name,
                                      const tally__cuda_variant **v);
tally_status tally__cuda_variant_check(tally_context *ctx, const tally__problem *p);

tally_status tally__cuda_run_best(void *job, int64_t k0, int64_t k1, tally__gpu_part *parts);

#endif

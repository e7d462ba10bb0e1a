/* The ladder variants of the CUDA backend (ladder.c, kernels in src/gpu/ladder.clh). */
#ifndef TALLY_CUDA_LADDER_H
#define TALLY_CUDA_LADDER_H

#include "cuda_ctx.h"

struct tally__lrun;

typedef struct {
  const char *name;
  tally_status (*run)(struct tally__lrun *r, tally__part *acc); /* one slice */
  int (*supports)(tally_op op, tally_dtype dt); /* NULL: every op */
  const char *ops_text;                          /* what it computes, when not every op */
} tally__ladder_variant;

/* In ladder order (tally bench --variants ladder); ends with a NULL name. */
extern const tally__ladder_variant tally__ladder[];

/* Reduce slices [k0, k1) of p (inputs' element 0 at device addresses x, y) into parts. */
tally_status tally__ladder_run(tally__cuda_ctx *c, const tally__problem *p,
                               const tally__ladder_variant *v, CUdeviceptr x, CUdeviceptr y,
                               int64_t k0, int64_t k1, tally__part *parts);

#endif

/* The ladder variants on the CUDA backend (ladder.c; host logic core/gpu_ladder.c,
 * kernels src/gpu/ladder.clh). */
#ifndef TALLY_CUDA_LADDER_H
#define TALLY_CUDA_LADDER_H

#include "core/gpu_ladder.h"
#include "cuda_ctx.h"

/* CUDA has every capability the ladder asks for. */
#define TALLY__CUDA_LADDER_CAPS                                                 \
  (TALLY__LADDER_NEEDS_WARPS | TALLY__LADDER_NEEDS_GUARD | TALLY__LADDER_NEEDS_ATOMIC64)

/* Reduce slices [k0, k1) of p (inputs' element 0 at device addresses x, y) into parts. */
tally_status tally__cuda_ladder_run(tally__cuda_ctx *c, const tally__problem *p,
                                    const tally__ladder_variant *v, CUdeviceptr x, CUdeviceptr y,
                                    int64_t k0, int64_t k1, tally__part *parts);

#endif

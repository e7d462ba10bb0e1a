/* The host's view of a GPU part: the layout of part_t in src/gpu/reduce_part.clh (nine
 * 64-bit words), and its conversions to and from the CPU's tally__part (finalizing, merging on the host). */
#ifndef TALLY_GPU_PART_H
#define TALLY_GPU_PART_H

#include <stdint.h>
#include <string.h>

#include "core/part.h"

typedef struct {
  double hi, lo;
  int64_t n, idx, k0, k1;
  uint64_t wlo, whi;
  int64_t nan;
} tally__gpu_part;

_Static_assert(sizeof(tally__gpu_part) == 72, "tally__gpu_part must match part_t (9 words)");

static inline void tally__gpu_part_to_part(const tally__gpu_part *g, tally__part *p) {
  memset(p, 0, sizeof *p);
  p->hi = g->hi;
  p->lo = g->lo;
  p->n = g->n;
  p->idx = g->idx;
  p->k0 = g->k0;
  p->k1 = g->k1;
  p->wide = ((unsigned __int128)g->whi << 64) | g->wlo;
  p->nan = (int32_t)(g->nan != 0);
}

static inline void tally__part_to_gpu_part(const tally__part *p, tally__gpu_part *g) {
  g->hi = p->hi;
  g->lo = p->lo;
  g->n = p->n;
  g->idx = p->idx;
  g->k0 = p->k0;
  g->k1 = p->k1;
  g->wlo = (uint64_t)p->wide;
  g->whi = (uint64_t)(p->wide >> 64);
  g->nan = p->nan;
}

#endif

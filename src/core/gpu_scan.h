/* Host-side work shared by the GPU backends' scans (src/gpu/scan.clh; gpu_scan.c). */
#ifndef TALLY_GPU_SCAN_H
#define TALLY_GPU_SCAN_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

/* The runtime `mode` bits of scan_tiles (keep equal to scan.clh's MODE_*). */
#define TALLY__SCAN_EXCL 1
#define TALLY__SCAN_SEG 2
#define TALLY__SCAN_CONTIG 4
/* Bytes of a tile's published total or prefix (scan.clh's CW words). */
#define TALLY__SCAN_CARRY_BYTES 64
/* scan_1pass's epochs (scan.clh EPOCH_MASK + 1, the tag's 10 bits): the slots are cleared
 * every this many launches (epochs 1 .. this, the last one's tag 0, which no launch since
 * the clearing has written). */
#define TALLY__SCAN_EPOCHS 1024u

/* The most tiles a launch whose compensated f64 sum carries its tiles' totals in bins
 * (scan.clh CARRY_BINS): two values a tile, each adding less than 2^26 to a bin's sum,
 * which must stay within 48 signed bits (2^21 x 2^26 = 2^47). */
#define TALLY__SCAN_BIN_MAX_TILES ((int64_t)1 << 20)

/* A launch of scan_tiles, worked out once for a validated problem. */
typedef struct {
  int block, items;      /* the tile: block threads x items elements */
  int minb;              /* blocks resident per SM the registers must allow (CUDA) */
  int64_t ntiles;
  int mode;              /* TALLY__SCAN_EXCL | TALLY__SCAN_SEG (the backend adds CONTIG) */
  int has_init;
  uint64_t i0, i1;       /* the init's bits (result values; MIN, MAX: the input dtype) */
  size_t esize, rsize;   /* bytes of an input element and of a result value */
  char defs[224];        /* -D definitions of the kernel */
} tally__gpu_scan_plan;

/* Whether a GPU backend scans p with its kernels: built-in ops (user scans run on the
 * host's threads). */
int tally__gpu_scan_supported(const tally__scan_problem *p);

/* Whether p scans 4-byte elements into 4-byte results, one input: the tiles whose warp
 * transposition fits in 128 bytes a thread (32 elements). */
int tally__gpu_scan_narrow(const tally__scan_problem *p);

/* Whether p's scan of ntiles tiles carries in bins (scan.clh CARRY_BINS): the compensated
 * f64 sum, up to TALLY__SCAN_BIN_MAX_TILES tiles, unless TALLY_SCAN_CARRIES (binary or
 * radix, for measuring and tests) asks for a tree: on CUDA that tree, on OpenCL its
 * binary tree. */
int tally__gpu_scan_binned(const tally__scan_problem *p, int64_t ntiles);

/* Plan p on tiles of `block` threads x `items` elements, `minb` blocks resident per SM
 * (items, minb 0: the defaults of gpu_scan.c). TALLY_SCAN_TILE=BxIxM in the environment
 * (B threads, I items, M blocks per SM) overrides all three, for measuring other shapes;
 * the launch uses pl->block. */
void tally__gpu_scan_plan_make(const tally__scan_problem *p, int block, int items, int minb,
                               tally__gpu_scan_plan *pl);
/* tally__gpu_scan_plan_make in two steps, for a backend that adjusts the shape between
 * them: the shape (the defaults for items, minb 0, then TALLY_SCAN_TILE), and the plan of
 * exactly that shape, its definitions followed by more_defs (" -DNAME=V ...", or "") and
 * then TALLY_KERNEL_DEFS's. */
void tally__gpu_scan_plan_shape(const tally__scan_problem *p, int *block, int *items, int *minb);
void tally__gpu_scan_plan_build(const tally__scan_problem *p, int block, int items, int minb,
                                const char *more_defs, tally__gpu_scan_plan *pl);

/* The same for the scan ladder's kernels (scan_ladder.clh): SCAN_LADDER=1 leaves the
 * production kernels out of those builds. */
void tally__gpu_scan_ladder_plan_make(const tally__scan_problem *p, int block, tally__gpu_scan_plan *pl);

/* The segment heads as n bytes: opt->flags as given, or (offsets) built into *owned
 * (malloc'd; the caller frees it). NULL with TALLY_OK when there are no segments. */
tally_status tally__gpu_scan_heads(tally_context *ctx, const tally__scan_problem *p,
                                   const uint8_t **heads, uint8_t **owned);

/* The scan ladder (src/gpu/scan_ladder.clh): the launches of p's variant, each a `step` of
 * scan_ladder and its number of work-groups of `block`; returns how many (1 or 4).
 * *nchunks: the chunks of 2·block elements (four_kernel's sums). */
int tally__gpu_scan_ladder_steps(const tally__scan_problem *p, int block, int steps[4],
                                 int64_t groups[4], int64_t *nchunks);
/* The kernel of a step. */
const char *tally__gpu_scan_ladder_entry(int step);

/* Whether the output is n*width contiguous values from element 0 (a device result can be
 * copied straight into it). */
int tally__gpu_scan_out_contiguous(const tally__scan_problem *p);

/* Spread n*width contiguous result values into p's (strided) host output. */
void tally__gpu_scan_scatter(const tally__scan_problem *p, size_t rsize, const void *src, void *out);

/* The byte span [lo, hi) of input (which = 0: in, 1: in2) relative to element 0. */
void tally__gpu_scan_in_span(const tally__scan_problem *p, int which, int64_t *lo, int64_t *hi);

#endif

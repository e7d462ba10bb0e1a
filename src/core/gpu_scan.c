/* See gpu_scan.h. */
#include "gpu_scan.h"
#include "gpu_sources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tally__gpu_scan_supported(const tally__scan_problem *p) { return p->uop == NULL; }

int tally__gpu_scan_narrow(const tally__scan_problem *p) {
  return p->width == 1 && tally_dtype_size(p->dtype) == 4 && tally_dtype_size(p->rdtype) == 4;
}

static int scan_op_code(tally_op op) {
  switch (op) {
  case TALLY_SUM: return 0;
  case TALLY_PROD: return 1;
  case TALLY_MIN: return 2;
  case TALLY_MAX: return 3;
  default: return 4; /* AFFINE */
  }
}

int tally__gpu_scan_binned(const tally__scan_problem *p, int64_t ntiles) {
  if (p->op != TALLY_SUM || p->dtype != TALLY_F64 || p->accuracy == TALLY_ACCURACY_FAST) return 0;
  const char *force = getenv("TALLY_SCAN_CARRIES");
  if (force && (strcmp(force, "binary") == 0 || strcmp(force, "radix") == 0)) return 0;
  return ntiles <= TALLY__SCAN_BIN_MAX_TILES;
}

void tally__gpu_scan_plan_shape(const tally__scan_problem *p, int *block, int *items, int *minb) {
  const size_t esize = tally_dtype_size(p->dtype);
  /* By default per thread 96 bytes of input (8-byte elements: 12, 4-byte: 24, 2-byte:
   * 24, 1-byte: 32, the most a run held before runs of up to 128), 128 for 4-byte
   * elements with 4-byte results (32), loaded 16 bytes at a time, in blocks of `block`, as
   * many resident per SM as make 1152 threads. The CUDA backend picks its own
   * (tally__cuda_scan_plan). */
  if (*items <= 0) *items = esize == 8 ? 12 : esize == 1 || tally__gpu_scan_narrow(p) ? 32 : 24;
  if (*minb <= 0) *minb = 1152 / *block > 0 ? 1152 / *block : 1;
  /* TALLY_SCAN_TILE=BLOCKxITEMSxMINB: another tile shape, for measuring (bench --scan);
   * ITEMS up to 128, a run's segment heads being two 64-bit words at most (scan.clh). */
  const char *tune = getenv("TALLY_SCAN_TILE");
  int tb, ti, tm;
  if (tune && sscanf(tune, "%dx%dx%d", &tb, &ti, &tm) == 3 && tb >= 32 && tb <= 1024 &&
      tb % 32 == 0 && ti >= 1 && ti <= 128 && tm >= 1 && tm <= 32) {
    *block = tb;
    *items = ti;
    *minb = tm;
  }
}

void tally__gpu_scan_plan_make(const tally__scan_problem *p, int block, int items, int minb,
                               tally__gpu_scan_plan *pl) {
  tally__gpu_scan_plan_shape(p, &block, &items, &minb);
  tally__gpu_scan_plan_build(p, block, items, minb, "", pl);
}

void tally__gpu_scan_plan_build(const tally__scan_problem *p, int block, int items, int minb,
                                const char *more_defs, tally__gpu_scan_plan *pl) {
  memset(pl, 0, sizeof *pl);
  bool fl = tally__dtype_kind(p->dtype) == TALLY__KIND_FLOAT;
  pl->esize = tally_dtype_size(p->dtype);
  pl->rsize = tally_dtype_size(p->rdtype);
  pl->block = block;
  pl->items = items;
  pl->minb = minb;
  int64_t tile = (int64_t)block * pl->items;
  pl->ntiles = (p->n + tile - 1) / tile;
  pl->mode = (p->exclusive ? TALLY__SCAN_EXCL : 0) | (p->flags || p->offsets ? TALLY__SCAN_SEG : 0);
  if (p->init) {
    pl->has_init = 1;
    memcpy(&pl->i0, p->init, pl->rsize);
    if (p->width == 2) memcpy(&pl->i1, (const char *)p->init + pl->rsize, pl->rsize);
  }
  /* Flags that change nothing are 0, so no kernel is compiled twice: NaN handling and
   * accuracy matter for floats only, and accuracy not for MIN and MAX. */
  int minmax = p->op == TALLY_MIN || p->op == TALLY_MAX;
  /* CARRY_BINNED=0: the compensated f64 sum's tree of carries, where it may not carry in
   * bins (the kernel's default). */
  const int tree = p->op == TALLY_SUM && p->dtype == TALLY_F64 && p->accuracy != TALLY_ACCURACY_FAST &&
                   !tally__gpu_scan_binned(p, pl->ntiles);
  snprintf(pl->defs, sizeof pl->defs, "-DFAM=0 -DDT=%d -DSOP=%d -DRDT=%d -DIGN=%d -DFAST=%d -DBLOCK=%d -DITEMS=%d -DMINB=%d%s%s",
           (int)p->dtype, scan_op_code(p->op), (int)p->rdtype, fl && p->nan == TALLY_NAN_IGNORE,
           fl && !minmax && p->accuracy == TALLY_ACCURACY_FAST, block, pl->items, pl->minb,
           tree ? " -DCARRY_BINNED=0" : "", more_defs);
  tally__gpu_defs_extra(pl->defs, sizeof pl->defs);
}

void tally__gpu_scan_ladder_plan_make(const tally__scan_problem *p, int block, tally__gpu_scan_plan *pl) {
  tally__gpu_scan_plan_make(p, block, 0, 0, pl);
  /* The ladder's builds leave the production kernels out, so their carries' definition
   * means nothing there: dropped, so that the kernel is the same at every length. */
  char *tree = strstr(pl->defs, " -DCARRY_BINNED=0");
  if (tree) memmove(tree, tree + 17, strlen(tree + 17) + 1);
  size_t used = strlen(pl->defs);
  snprintf(pl->defs + used, sizeof pl->defs - used, " -DSCAN_LADDER=1");
}

tally_status tally__gpu_scan_heads(tally_context *ctx, const tally__scan_problem *p,
                                   const uint8_t **heads, uint8_t **owned) {
  *heads = p->flags;
  *owned = NULL;
  if (!p->offsets) return TALLY_OK;
  uint8_t *h = calloc((size_t)p->n, 1);
  if (!h)
    return tally__fail(ctx, TALLY_ENOMEM, "opt->offsets: no host memory for %lld segment heads",
                       (long long)p->n);
  for (int64_t s = 0; s < p->nsegments; s++)
    if (p->offsets[s] < p->n) h[p->offsets[s]] = 1;
  *heads = h;
  *owned = h;
  return TALLY_OK;
}

int tally__gpu_scan_out_contiguous(const tally__scan_problem *p) {
  return p->width == 1 ? p->so0 == 1 : p->so0 == 2 && p->so1 == 1;
}

void tally__gpu_scan_scatter(const tally__scan_problem *p, size_t rsize, const void *src, void *out) {
  const char *s = src;
  char *o = out;
  for (int64_t i = 0; i < p->n; i++)
    for (int w = 0; w < p->width; w++)
      memcpy(o + (i * p->so0 + w * p->so1) * (int64_t)rsize, s + (i * p->width + w) * (int64_t)rsize,
             rsize);
}

void tally__gpu_scan_in_span(const tally__scan_problem *p, int which, int64_t *lo, int64_t *hi) {
  int64_t st = which ? p->sy : p->sx, es = (int64_t)tally_dtype_size(p->dtype);
  int64_t e = (p->n - 1) * st;
  *lo = (e < 0 ? e : 0) * es;
  *hi = ((e > 0 ? e : 0) + 1) * es;
}

int tally__gpu_scan_ladder_steps(const tally__scan_problem *p, int block, int steps[4],
                                 int64_t groups[4], int64_t *nchunks) {
  int64_t ch = 2 * (int64_t)block;
  *nchunks = (p->n + ch - 1) / ch;
  if (p->variant == TALLY__SCAN_HILLIS_STEELE || p->variant == TALLY__SCAN_BLELLOCH) {
    steps[0] = p->variant == TALLY__SCAN_HILLIS_STEELE ? 0 : 5;
    groups[0] = 1;
    return 1;
  }
  static const int four[4] = {1, 2, 3, 4};
  for (int i = 0; i < 4; i++) steps[i] = four[i];
  groups[0] = *nchunks;
  groups[1] = (*nchunks + block - 1) / block;
  groups[2] = 1;
  groups[3] = *nchunks;
  return 4;
}

const char *tally__gpu_scan_ladder_entry(int step) {
  static const char *const names[] = {"scan_ladder_hs",        "scan_ladder_local",
                                      "scan_ladder_sums",      "scan_ladder_scan_sums",
                                      "scan_ladder_adjust",    "scan_ladder_bl"};
  return step >= 0 && step < 6 ? names[step] : names[0];
}

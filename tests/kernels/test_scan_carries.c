/* Which carries a GPU scan takes (src/cuda/scan.c carry_radix, src/core/gpu_scan.c
 * tally__gpu_scan_binned): the compensated f64 sum carries in bins (scan.clh CARRY_BINS)
 * up to TALLY__SCAN_BIN_MAX_TILES tiles, and beyond them the binary indexed tree
 * (-DCARRY_BINNED=0 in the plan); the radix-32 tree (-DCARRY_RTREE=1) for FAST f64 sums,
 * float products and AFFINE up to their measured tile counts, the binary indexed tree (no
 * definition) above them; exact carries no tree. TALLY_SCAN_CARRIES=binary or radix takes
 * one tree at every length, for the compensated sum too. Lengths are given in tiles of the
 * plan's own shape (one more element than a whole number of tiles is one tile more), so
 * the cases hold whatever the tile shapes. No GPU needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_ctx.h"

static int failures;
enum { BINARY, RADIX, BINS };

static void expect(const char *env, tally_op op, tally_dtype dt, tally_accuracy acc, int64_t tiles,
                   int64_t delta, int want) {
  if (env) setenv("TALLY_SCAN_CARRIES", env, 1);
  else unsetenv("TALLY_SCAN_CARRIES");
  tally__scan_problem p;
  memset(&p, 0, sizeof p);
  p.op = op;
  p.dtype = dt;
  if (tally_result_dtype(op, dt, &p.rdtype) != TALLY_OK) {
    printf("FAIL: no result dtype for op %d dtype %d\n", (int)op, (int)dt);
    failures++;
    return;
  }
  p.width = op == TALLY_AFFINE ? 2 : 1;
  p.accuracy = acc;
  tally__cuda_sm_limits lim;
  tally__cuda_arch_sm_limits("sm_90", &lim);
  tally__gpu_scan_plan pl;
  p.n = 1;
  tally__cuda_scan_plan(&p, &lim, &pl); /* the tile */
  const int64_t tile = (int64_t)pl.block * pl.items;
  p.n = tiles * tile + delta;
  tally__cuda_scan_plan(&p, &lim, &pl);
  const int bins_here = op == TALLY_SUM && dt == TALLY_F64 && acc != TALLY_ACCURACY_FAST &&
                        strstr(pl.defs, "-DCARRY_BINNED=0") == NULL;
  const int radix = strstr(pl.defs, "-DCARRY_RTREE=1") != NULL;
  const int got = radix && bins_here ? -1 : radix ? RADIX : bins_here ? BINS : BINARY;
  static const char *const names[] = {"binary (or exact: no tree)", "radix", "bins"};
  printf("%s op %d dtype %d %s, %lld elements (%lld tiles of %lld), TALLY_SCAN_CARRIES=%s: %s\n",
         got == want ? "ok  " : "FAIL", (int)op, (int)dt, acc == TALLY_ACCURACY_FAST ? "fast" : "default",
         (long long)p.n, (long long)pl.ntiles, (long long)tile, env ? env : "(unset)",
         got < 0 ? "radix and bins at once" : names[got]);
  if (got != want) failures++;
}

int main(void) {
  unsetenv("TALLY_KERNEL_DEFS"); /* its definitions follow the plan's in pl.defs */
  const tally_accuracy D = TALLY_ACCURACY_DEFAULT, F = TALLY_ACCURACY_FAST;
  const int64_t most = TALLY__SCAN_BIN_MAX_TILES;
  /* the compensated f64 sum: bins up to `most` tiles, then the binary tree */
  expect(NULL, TALLY_SUM, TALLY_F64, D, 1, 0, BINS);
  expect(NULL, TALLY_SUM, TALLY_F64, D, 1023, 1, BINS);
  expect(NULL, TALLY_SUM, TALLY_F64, D, 4096, 1, BINS);
  expect(NULL, TALLY_SUM, TALLY_F64, D, most, 0, BINS);
  expect(NULL, TALLY_SUM, TALLY_F64, D, most, 1, BINARY);
  /* FAST f64 sums and f64 products: radix up to 4,096 tiles */
  expect(NULL, TALLY_SUM, TALLY_F64, F, 1, 0, RADIX);
  expect(NULL, TALLY_PROD, TALLY_F64, D, 1, 0, RADIX);
  expect(NULL, TALLY_SUM, TALLY_F64, F, 4096, 0, RADIX);
  expect(NULL, TALLY_SUM, TALLY_F64, F, 1 << 16, 0, BINARY);
  expect(NULL, TALLY_PROD, TALLY_F64, D, 4096, 0, RADIX);
  expect(NULL, TALLY_PROD, TALLY_F64, D, 4096, 1, BINARY);
  expect(NULL, TALLY_PROD, TALLY_F32, F, 4096, 1, BINARY);
  expect(NULL, TALLY_PROD, TALLY_F16, D, 4096, 1, BINARY);
  /* f16/bf16 FAST products up to 2^15 tiles, AFFINE of halves up to 2^16, of others 2,048 */
  expect(NULL, TALLY_PROD, TALLY_F16, F, 1 << 15, 0, RADIX);
  expect(NULL, TALLY_PROD, TALLY_BF16, F, 1 << 15, 1, BINARY);
  expect(NULL, TALLY_AFFINE, TALLY_F16, D, 1 << 16, 0, RADIX);
  expect(NULL, TALLY_AFFINE, TALLY_BF16, F, 1 << 16, 1, BINARY);
  expect(NULL, TALLY_AFFINE, TALLY_F64, D, 2048, 0, RADIX);
  expect(NULL, TALLY_AFFINE, TALLY_F64, D, 2048, 1, BINARY);
  expect(NULL, TALLY_AFFINE, TALLY_F32, F, 2048, 1, BINARY);
  /* exact carries never take a tree */
  expect(NULL, TALLY_SUM, TALLY_F32, D, 1, 0, BINARY);
  expect(NULL, TALLY_SUM, TALLY_F16, F, 1, 0, BINARY);
  expect(NULL, TALLY_PROD, TALLY_I64, D, 1, 0, BINARY);
  expect(NULL, TALLY_AFFINE, TALLY_I32, D, 1, 0, BINARY);
  expect(NULL, TALLY_MAX, TALLY_F64, D, 1, 0, BINARY);
  expect("radix", TALLY_MIN, TALLY_F64, D, 1, 0, BINARY);
  expect("radix", TALLY_SUM, TALLY_F32, D, 1, 0, BINARY);
  /* the override, both ways, the compensated sum's bins too; anything else is the default */
  expect("binary", TALLY_SUM, TALLY_F64, F, 1, 0, BINARY);
  expect("binary", TALLY_SUM, TALLY_F64, D, 1, 0, BINARY);
  expect("radix", TALLY_SUM, TALLY_F64, D, 1, 0, RADIX);
  expect("radix", TALLY_SUM, TALLY_F64, D, 1 << 20, 0, RADIX);
  expect("radix", TALLY_AFFINE, TALLY_F64, F, 1 << 20, 0, RADIX);
  expect("Radix", TALLY_SUM, TALLY_F64, D, 1 << 20, 0, BINS);
  expect("", TALLY_SUM, TALLY_F64, D, 2048, 0, BINS);
  expect("", TALLY_SUM, TALLY_F64, F, 2048, 0, RADIX);
  if (failures) {
    printf("FAILED: %d\n", failures);
    return 1;
  }
  printf("PASSED\n");
  return 0;
}

/* Which tree groups a CUDA scan's carries (src/cuda/scan.c, carry_radix): the radix-32
 * tree (-DCARRY_RTREE=1 in the plan) for f64 sums, float products and AFFINE up to their
 * measured tile counts (the compensated f64 sum from 1,024 tiles), the binary indexed
 * tree (no definition) above them and for every scan whose carries are exact;
 * TALLY_SCAN_CARRIES=binary or radix takes one at every length. Lengths are given in
 * tiles of the plan's own shape (one more element than a whole number of tiles is one
 * tile more), so the cases hold whatever the tile shapes. No GPU needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_ctx.h"

static int failures;

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
  const int got = strstr(pl.defs, "-DCARRY_RTREE=1") != NULL;
  printf("%s op %d dtype %d %s, %lld elements (%lld tiles of %lld), TALLY_SCAN_CARRIES=%s: %s\n",
         got == want ? "ok  " : "FAIL", (int)op, (int)dt, acc == TALLY_ACCURACY_FAST ? "fast" : "default",
         (long long)p.n, (long long)pl.ntiles, (long long)tile, env ? env : "(unset)",
         got ? "radix" : "binary");
  if (got != want) failures++;
}

int main(void) {
  unsetenv("TALLY_KERNEL_DEFS"); /* its definitions follow the plan's in pl.defs */
  const tally_accuracy D = TALLY_ACCURACY_DEFAULT, F = TALLY_ACCURACY_FAST;
  /* f64 sums and products: radix up to 4,096 tiles; the compensated sum from 1,024 */
  expect(NULL, TALLY_SUM, TALLY_F64, D, 1, 0, 0);
  expect(NULL, TALLY_SUM, TALLY_F64, D, 1023, 0, 0);
  expect(NULL, TALLY_SUM, TALLY_F64, D, 1023, 1, 1);
  expect(NULL, TALLY_SUM, TALLY_F64, F, 1, 0, 1);
  expect(NULL, TALLY_PROD, TALLY_F64, D, 1, 0, 1);
  expect(NULL, TALLY_SUM, TALLY_F64, D, 4096, 0, 1);
  expect(NULL, TALLY_SUM, TALLY_F64, D, 4096, 1, 0);
  expect(NULL, TALLY_SUM, TALLY_F64, F, 4096, 0, 1);
  expect(NULL, TALLY_SUM, TALLY_F64, F, 1 << 16, 0, 0);
  expect(NULL, TALLY_PROD, TALLY_F64, D, 4096, 0, 1);
  expect(NULL, TALLY_PROD, TALLY_F64, D, 4096, 1, 0);
  expect(NULL, TALLY_PROD, TALLY_F32, F, 4096, 1, 0);
  expect(NULL, TALLY_PROD, TALLY_F16, D, 4096, 1, 0);
  /* f16/bf16 FAST products up to 2^15 tiles, AFFINE of halves up to 2^16, of others 2,048 */
  expect(NULL, TALLY_PROD, TALLY_F16, F, 1 << 15, 0, 1);
  expect(NULL, TALLY_PROD, TALLY_BF16, F, 1 << 15, 1, 0);
  expect(NULL, TALLY_AFFINE, TALLY_F16, D, 1 << 16, 0, 1);
  expect(NULL, TALLY_AFFINE, TALLY_BF16, F, 1 << 16, 1, 0);
  expect(NULL, TALLY_AFFINE, TALLY_F64, D, 2048, 0, 1);
  expect(NULL, TALLY_AFFINE, TALLY_F64, D, 2048, 1, 0);
  expect(NULL, TALLY_AFFINE, TALLY_F32, F, 2048, 1, 0);
  /* exact carries never take a tree */
  expect(NULL, TALLY_SUM, TALLY_F32, D, 1, 0, 0);
  expect(NULL, TALLY_SUM, TALLY_F16, F, 1, 0, 0);
  expect(NULL, TALLY_PROD, TALLY_I64, D, 1, 0, 0);
  expect(NULL, TALLY_AFFINE, TALLY_I32, D, 1, 0, 0);
  expect(NULL, TALLY_MAX, TALLY_F64, D, 1, 0, 0);
  expect("radix", TALLY_MIN, TALLY_F64, D, 1, 0, 0);
  expect("radix", TALLY_SUM, TALLY_F32, D, 1, 0, 0);
  /* the override, both ways; anything else is the default */
  expect("binary", TALLY_SUM, TALLY_F64, F, 1, 0, 0);
  expect("radix", TALLY_SUM, TALLY_F64, D, 1, 0, 1);
  expect("radix", TALLY_SUM, TALLY_F64, D, 1 << 20, 0, 1);
  expect("radix", TALLY_AFFINE, TALLY_F64, F, 1 << 20, 0, 1);
  expect("Radix", TALLY_SUM, TALLY_F64, D, 1 << 20, 0, 0);
  expect("", TALLY_SUM, TALLY_F64, D, 2048, 0, 1);
  if (failures) {
    printf("FAILED: %d\n", failures);
    return 1;
  }
  printf("PASSED\n");
  return 0;
}

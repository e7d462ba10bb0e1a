/* The shared GPU kernels build as OpenCL C (on PoCL in CI): a representative set of
 * specialisations — every family, an integer and a float dtype (and the 16-bit floats),
 * contiguous, strided and 2-D layouts, NaN ignored — of the best kernel and the ladder's
 * portable kernels. It guards the dialect's portability while the OpenCL backend is being
 * built (issue 4); the backend's conformance run will cover every specialisation. Exit 77
 * when no OpenCL platform is usable here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencl/opencl.h"

int main(void) {
#ifdef TALLY_TEST_SKIP_SANITIZED
  printf("SKIP: the sanitizer build leaves this to the plain build (same kernels; the OpenCL "
         "driver is not ours to sanitize)\n");
  return 77;
#endif
  static const char *const srcs[] = {"reduce_part.clh", "reduce_best.clh", "ladder.clh", NULL};
  /* family: SUM PROD DOT MINMAX ARGMIN ARGMAX VAR COUNT BITAND BITOR BITXOR AFFINE */
  static const int dts[] = {4 /* i64 */, 9 /* f16 */, 10 /* bf16 */, 12 /* f64 */};
  static const struct { int contig, two_d; } layouts[] = {{1, 0}, {0, 0}, {0, 1}};
  char *log = malloc(1 << 16);
  int builds = 0, failures = 0;
  for (int fam = 0; fam < 12; fam++)
    for (size_t d = 0; d < sizeof dts / sizeof *dts; d++)
      for (size_t l = 0; l < sizeof layouts / sizeof *layouts; l++) {
        int dt = dts[d], is_float = dt >= 9;
        if ((fam >= 8 && fam <= 10) && is_float) continue; /* bitwise folds: integers only */
        if (l != (size_t)(fam % 3) && d != 3) continue;    /* keep the set small: ~60 builds */
        char defs[256];
        snprintf(defs, sizeof defs,
                 "-DDT=%d -DFAM=%d -DIGN=%d -DFAST=0 -DEXACT=%d -DSQUARE=0 -DHAS_Y=%d -DCONTIG=%d "
                 "-DTWO_D=%d -DORDERED=%d -DBLOCK=256",
                 dt, fam, is_float, !is_float && (fam == 0 || fam == 2), fam == 2 || fam == 11,
                 layouts[l].contig && fam != 11, layouts[l].two_d, fam == 11);
        tally_status s = tally__opencl_build_only(0, 0, srcs, defs, log, 1 << 16);
        if (s == TALLY_EDRIVER || s == TALLY_ENODEV) {
          printf("SKIP: %s\n", log);
          free(log);
          return 77;
        }
        builds++;
        if (s != TALLY_OK && failures++ < 3) printf("FAIL [%s]: %.4000s\n", defs, log);
      }
  printf("%s: %d OpenCL builds of the shared kernels on platform 0 device 0, %d failed\n",
         failures ? "FAILED" : "PASSED", builds, failures);
  free(log);
  return failures ? 1 : 0;
}

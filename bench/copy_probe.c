/* The copy probe: see copy_probe.h. */
#include "copy_probe.h"

#include <stdint.h>
#include <string.h>
#ifdef TALLY_HAVE_OPENMP
#include <omp.h>
#endif

typedef uint64_t v8 __attribute__((vector_size(64)));

/* Blocks [b0, b1) of the smaller side. Kept a loop (GCC would otherwise call memcpy,
 * whose streaming stores a scan does not use). */
__attribute__((optimize("no-tree-loop-distribute-patterns"))) static void copy_blocks(v8 *d, const v8 *s, size_t b0, size_t b1, size_t up, size_t down) {
  if (up > 1) { /* one block read, `up` written */
    for (size_t b = b0; b < b1; b++) {
      v8 v = s[b];
      for (size_t k = 0; k < up; k++) d[b * up + k] = v;
    }
  } else if (down > 1) { /* `down` blocks read, one written */
    for (size_t b = b0; b < b1; b++) {
      v8 v = s[b * down];
      for (size_t k = 1; k < down; k++) v ^= s[b * down + k];
      d[b] = v;
    }
  } else {
    for (size_t b = b0; b < b1; b++) d[b] = s[b];
  }
}

void probe_copy(void *dst, size_t out_bytes, const void *src, size_t in_bytes, int parallel) {
  size_t up = out_bytes > in_bytes && in_bytes ? out_bytes / in_bytes : 1;
  size_t down = in_bytes > out_bytes && out_bytes ? in_bytes / out_bytes : 1;
  size_t blocks = (up > 1 ? in_bytes : out_bytes) / 64; /* of the smaller side */
  v8 *d = dst;
  const v8 *s = src;
#ifdef TALLY_HAVE_OPENMP
  if (parallel) {
#pragma omp parallel
    {
      size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
      copy_blocks(d, s, blocks * t / nt, blocks * (t + 1) / nt, up, down);
    }
    return;
  }
#endif
  (void)parallel;
  copy_blocks(d, s, 0, blocks, up, down);
}

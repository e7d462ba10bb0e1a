/* The copy probe: see copy_probe.h. */
#include "copy_probe.h"

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#ifdef TALLY_HAVE_OPENMP
#include <omp.h>
#endif

typedef uint64_t v8 __attribute__((vector_size(64)));

/* *d = *v, with streaming stores when nt (x86: four 16-byte ones, SSE2; a full line each
 * time, so the write-combining buffer leaves whole lines): no read of the line first. */
static inline void put(v8 *d, const v8 *v, int nt) {
#if defined(__SSE2__)
  if (nt) {
    __m128i q[4];
    memcpy(q, v, sizeof q);
    for (int k = 0; k < 4; k++) _mm_stream_si128((__m128i *)d + k, q[k]);
    return;
  }
#endif
  (void)nt;
  *d = *v;
}

/* Blocks [b0, b1) of the smaller side. Kept a loop (GCC would otherwise call memcpy,
 * whose streaming stores a scan does not use). */
__attribute__((optimize("no-tree-loop-distribute-patterns"))) static void copy_blocks(v8 *d, const v8 *s, size_t b0, size_t b1, size_t up, size_t down, int nt) {
  if (up > 1) { /* one block read, `up` written */
    for (size_t b = b0; b < b1; b++) {
      v8 v = s[b];
      for (size_t k = 0; k < up; k++) put(&d[b * up + k], &v, nt);
    }
  } else if (down > 1) { /* `down` blocks read, one written */
    for (size_t b = b0; b < b1; b++) {
      v8 v = s[b * down];
      for (size_t k = 1; k < down; k++) v ^= s[b * down + k];
      put(&d[b], &v, nt);
    }
  } else {
    for (size_t b = b0; b < b1; b++) put(&d[b], &s[b], nt);
  }
#if defined(__SSE2__)
  if (nt) _mm_sfence();
#endif
}

static void copy(void *dst, size_t out_bytes, const void *src, size_t in_bytes, int parallel, int nt) {
  size_t up = out_bytes > in_bytes && in_bytes ? out_bytes / in_bytes : 1;
  size_t down = in_bytes > out_bytes && out_bytes ? in_bytes / out_bytes : 1;
  size_t blocks = (up > 1 ? in_bytes : out_bytes) / 64; /* of the smaller side */
  v8 *d = dst;
  const v8 *s = src;
#ifdef TALLY_HAVE_OPENMP
  if (parallel) {
#pragma omp parallel
    {
      size_t t = (size_t)omp_get_thread_num(), nth = (size_t)omp_get_num_threads();
      copy_blocks(d, s, blocks * t / nth, blocks * (t + 1) / nth, up, down, nt);
    }
    return;
  }
#endif
  (void)parallel;
  copy_blocks(d, s, 0, blocks, up, down, nt);
}

void probe_copy(void *dst, size_t out_bytes, const void *src, size_t in_bytes, int parallel) {
  copy(dst, out_bytes, src, in_bytes, parallel, 0);
}

void probe_copy_stream(void *dst, size_t out_bytes, const void *src, size_t in_bytes, int parallel) {
  copy(dst, out_bytes, src, in_bytes, parallel, 1);
}

/* The probe: see probe.h. */
#include "probe.h"

#include <immintrin.h>
#include <string.h>
#ifdef TALLY_HAVE_OPENMP
#include <omp.h>
#endif

/* XOR of the trailing bytes (fewer than one step), zero-padded to 8-byte words. */
static uint64_t tail_xor(const unsigned char *p, size_t bytes) {
  uint64_t acc = 0;
  for (size_t i = 0; i < bytes; i += 8) {
    uint64_t w = 0;
    memcpy(&w, p + i, bytes - i < 8 ? bytes - i : 8);
    acc ^= w;
  }
  return acc;
}

/* Eight accumulators: enough independent XORs to keep every load port busy (XOR has a
 * latency of one cycle; two or three loads issue per cycle). */
__attribute__((target("avx512f"))) static uint64_t read_avx512(const unsigned char *a,
                                                               const unsigned char *b,
                                                               size_t bytes) {
  __m512i x0 = _mm512_setzero_si512(), x1 = x0, x2 = x0, x3 = x0, x4 = x0, x5 = x0, x6 = x0,
          x7 = x0;
  size_t i = 0;
  if (b) {
    for (; i + 256 <= bytes; i += 256) {
      x0 = _mm512_xor_si512(x0, _mm512_load_si512((const void *)(a + i)));
      x1 = _mm512_xor_si512(x1, _mm512_load_si512((const void *)(b + i)));
      x2 = _mm512_xor_si512(x2, _mm512_load_si512((const void *)(a + i + 64)));
      x3 = _mm512_xor_si512(x3, _mm512_load_si512((const void *)(b + i + 64)));
      x4 = _mm512_xor_si512(x4, _mm512_load_si512((const void *)(a + i + 128)));
      x5 = _mm512_xor_si512(x5, _mm512_load_si512((const void *)(b + i + 128)));
      x6 = _mm512_xor_si512(x6, _mm512_load_si512((const void *)(a + i + 192)));
      x7 = _mm512_xor_si512(x7, _mm512_load_si512((const void *)(b + i + 192)));
    }
  } else {
    for (; i + 512 <= bytes; i += 512) {
      x0 = _mm512_xor_si512(x0, _mm512_load_si512((const void *)(a + i)));
      x1 = _mm512_xor_si512(x1, _mm512_load_si512((const void *)(a + i + 64)));
      x2 = _mm512_xor_si512(x2, _mm512_load_si512((const void *)(a + i + 128)));
      x3 = _mm512_xor_si512(x3, _mm512_load_si512((const void *)(a + i + 192)));
      x4 = _mm512_xor_si512(x4, _mm512_load_si512((const void *)(a + i + 256)));
      x5 = _mm512_xor_si512(x5, _mm512_load_si512((const void *)(a + i + 320)));
      x6 = _mm512_xor_si512(x6, _mm512_load_si512((const void *)(a + i + 384)));
      x7 = _mm512_xor_si512(x7, _mm512_load_si512((const void *)(a + i + 448)));
    }
  }
  for (; i + 64 <= bytes; i += 64) {
    x0 = _mm512_xor_si512(x0, _mm512_load_si512((const void *)(a + i)));
    if (b) x1 = _mm512_xor_si512(x1, _mm512_load_si512((const void *)(b + i)));
  }
  x0 = _mm512_xor_si512(_mm512_xor_si512(_mm512_xor_si512(x0, x1), _mm512_xor_si512(x2, x3)),
                        _mm512_xor_si512(_mm512_xor_si512(x4, x5), _mm512_xor_si512(x6, x7)));
  uint64_t lane[8];
  _mm512_storeu_si512((void *)lane, x0);
  uint64_t acc = tail_xor(a + i, bytes - i) ^ (b ? tail_xor(b + i, bytes - i) : 0);
  for (int k = 0; k < 8; k++) acc ^= lane[k];
  return acc;
}

__attribute__((target("avx2"))) static uint64_t read_avx2(const unsigned char *a,
                                                          const unsigned char *b,
                                                          size_t bytes) {
  __m256i x0 = _mm256_setzero_si256(), x1 = x0, x2 = x0, x3 = x0, x4 = x0, x5 = x0, x6 = x0,
          x7 = x0;
  size_t i = 0;
  if (b) {
    for (; i + 128 <= bytes; i += 128) {
      x0 = _mm256_xor_si256(x0, _mm256_load_si256((const __m256i *)(a + i)));
      x1 = _mm256_xor_si256(x1, _mm256_load_si256((const __m256i *)(b + i)));
      x2 = _mm256_xor_si256(x2, _mm256_load_si256((const __m256i *)(a + i + 32)));
      x3 = _mm256_xor_si256(x3, _mm256_load_si256((const __m256i *)(b + i + 32)));
      x4 = _mm256_xor_si256(x4, _mm256_load_si256((const __m256i *)(a + i + 64)));
      x5 = _mm256_xor_si256(x5, _mm256_load_si256((const __m256i *)(b + i + 64)));
      x6 = _mm256_xor_si256(x6, _mm256_load_si256((const __m256i *)(a + i + 96)));
      x7 = _mm256_xor_si256(x7, _mm256_load_si256((const __m256i *)(b + i + 96)));
    }
  } else {
    for (; i + 256 <= bytes; i += 256) {
      x0 = _mm256_xor_si256(x0, _mm256_load_si256((const __m256i *)(a + i)));
      x1 = _mm256_xor_si256(x1, _mm256_load_si256((const __m256i *)(a + i + 32)));
      x2 = _mm256_xor_si256(x2, _mm256_load_si256((const __m256i *)(a + i + 64)));
      x3 = _mm256_xor_si256(x3, _mm256_load_si256((const __m256i *)(a + i + 96)));
      x4 = _mm256_xor_si256(x4, _mm256_load_si256((const __m256i *)(a + i + 128)));
      x5 = _mm256_xor_si256(x5, _mm256_load_si256((const __m256i *)(a + i + 160)));
      x6 = _mm256_xor_si256(x6, _mm256_load_si256((const __m256i *)(a + i + 192)));
      x7 = _mm256_xor_si256(x7, _mm256_load_si256((const __m256i *)(a + i + 224)));
    }
  }
  for (; i + 32 <= bytes; i += 32) {
    x0 = _mm256_xor_si256(x0, _mm256_load_si256((const __m256i *)(a + i)));
    if (b) x1 = _mm256_xor_si256(x1, _mm256_load_si256((const __m256i *)(b + i)));
  }
  x0 = _mm256_xor_si256(_mm256_xor_si256(_mm256_xor_si256(x0, x1), _mm256_xor_si256(x2, x3)),
                        _mm256_xor_si256(_mm256_xor_si256(x4, x5), _mm256_xor_si256(x6, x7)));
  uint64_t lane[4];
  _mm256_storeu_si256((__m256i *)lane, x0);
  uint64_t acc = tail_xor(a + i, bytes - i) ^ (b ? tail_xor(b + i, bytes - i) : 0);
  for (int k = 0; k < 4; k++) acc ^= lane[k];
  return acc;
}

static uint64_t read_scalar(const unsigned char *a, const unsigned char *b, size_t bytes) {
  uint64_t x[8] = {0};
  size_t i = 0;
  for (; i + 64 <= bytes; i += 64) {
    for (int k = 0; k < 8; k++) {
      uint64_t w;
      memcpy(&w, a + i + 8 * k, 8);
      x[k] ^= w;
      if (b) {
        memcpy(&w, b + i + 8 * k, 8);
        x[k] ^= w;
      }
    }
  }
  uint64_t acc = tail_xor(a + i, bytes - i) ^ (b ? tail_xor(b + i, bytes - i) : 0);
  for (int k = 0; k < 8; k++) acc ^= x[k];
  return acc;
}

typedef uint64_t (*read_fn)(const unsigned char *, const unsigned char *, size_t);

static read_fn pick(const char **name) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) { if (name) *name = "avx512"; return read_avx512; }
  if (__builtin_cpu_supports("avx2")) { if (name) *name = "avx2"; return read_avx2; }
  if (name) *name = "scalar";
  return read_scalar;
}

const char *probe_isa(void) {
  const char *name;
  pick(&name);
  return name;
}

int probe_threads(void) {
#ifdef TALLY_HAVE_OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

uint64_t probe_read(const void *a, const void *b, size_t bytes, int parallel) {
  static read_fn fn;
  if (!fn) fn = pick(NULL);
  const unsigned char *pa = a, *pb = b;
#ifdef TALLY_HAVE_OPENMP
  if (parallel) {
    uint64_t acc = 0;
#pragma omp parallel reduction(^ : acc)
    {
      /* Static split into contiguous parts whose starts are 64-byte aligned. */
      size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
      size_t lines = (bytes + 63) / 64;
      size_t lo = lines * t / nt * 64, hi = lines * (t + 1) / nt * 64;
      if (hi > bytes) hi = bytes;
      if (lo < hi) acc ^= fn(pa + lo, pb ? pb + lo : NULL, hi - lo);
    }
    return acc;
  }
#endif
  (void)parallel;
  return fn(pa, pb, bytes);
}

/* test_gpu_large [--device DEV]: f32 inputs of 2^31 + 1 and 2^32 + 3 elements on the GPU (8 and 16 GB):
 * 64-bit sizes, offsets and indices.
 *
 * The data: x[i] = i mod 7 (small integers: every partial sum is exact in the f64
 * accumulator), except the maximum 9 and the minimum −1 at the last few indices: for
 * 2^31 + 1 elements the maximum at 2^31; for 2^32 + 3 the maximum at 2^32 + 1 and again
 * at 2^32 + 2 (ARGMAX must give the first) and the minimum at 2^32. So SUM (the exact integer, rounded once to f32), MAX, ARGMAX, ARGMIN,
 * COUNT_NONZERO and MEAN all have closed forms.
 *
 * The array lives in device memory from tally_mem_alloc, filled through tally_mem_copy
 * in chunks from a host pattern buffer (one allocation of 2^32 + 3 elements; the 2^31 + 1
 * case is its prefix). Then, where host memory allows, the same 2^32 + 3 elements from a
 * host array (the streamed path) for SUM and ARGMAX.
 *
 * --device DEV (default cuda:0): another backend, e.g. cpu (whose device memory is host
 * memory: how the test itself is checked without a GPU).
 *
 * Exit 0: passed; 1: failures; 77: no CUDA device, or too little device memory. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpu_util.h"

static tally_context *gpu;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct {
  int64_t n, p, q, r; /* size; 9 at p and at q > p (q = -1: none); −1 at r */
} layout;

/* 2^31 + 1: the maximum at 2^31 (the last element, past INT32_MAX), the minimum at
 * 2^31 − 1. 2^32 + 3: the maximum at 2^32 + 1 and again at 2^32 + 2, the minimum at 2^32
 * (an index that a 32-bit truncation turns into 0 or 1). */
static layout layout_of(int64_t n) {
  if (n == ((int64_t)1 << 31) + 1) {
    layout L = {n, n - 1, -1, n - 2};
    return L;
  }
  layout L = {n, n - 2, n - 1, n - 3};
  return L;
}

/* The closed forms. */
static double exact_sum(const layout *L) {
  int64_t q7 = L->n / 7, r7 = L->n % 7;
  int64_t s = q7 * 21 + r7 * (r7 - 1) / 2;
  s += (9 - L->p % 7) + (-1 - L->r % 7);
  if (L->q >= 0) s += 9 - L->q % 7;
  return (double)s; /* < 2^53: exact */
}
static int64_t exact_nonzero(const layout *L) {
  int64_t zeros = L->n / 7 + (L->n % 7 > 0);
  zeros -= (L->p % 7 == 0) + (L->q >= 0 && L->q % 7 == 0) + (L->r % 7 == 0);
  return L->n - zeros;
}

static int set_at(float *dev, int64_t i, float v) {
  tally_status s = tally_mem_copy(gpu, dev + i, TALLY_MEM_DEVICE, &v, TALLY_MEM_HOST, sizeof v);
  TG_CHECK(s == TALLY_OK, "tally_mem_copy of one element at %" PRId64 ": %s: %s", i, tally_status_name(s),
           tally_errmsg(gpu));
  return s == TALLY_OK ? 0 : -1;
}

static void check_all(const char *where, const layout *L, tally_array in, int host_only_some) {
  int64_t n = L->n;
  char what[96];
  snprintf(what, sizeof what, "%s n=%" PRId64, where, n);
  float f = -1;
  int64_t k = -1;
  tally_array of = tally_array_1d(&f, TALLY_F32, 1), ok = tally_array_1d(&k, TALLY_I64, 1);
  double t0 = now();
  tally_status s = tally_reduce(gpu, TALLY_SUM, &in, NULL, &of, NULL);
  double want = exact_sum(L);
  TG_CHECK(s == TALLY_OK && f == (float)want, "%s SUM: %s, %.9g, expected %.9g (%.17g rounded to f32): %s",
           what, tally_status_name(s), (double)f, (double)(float)want, want, s ? tally_errmsg(gpu) : "");
  printf("%s SUM = %.9g (%.3f s)\n", what, (double)f, now() - t0);
  t0 = now();
  s = tally_reduce(gpu, TALLY_ARGMAX, &in, NULL, &ok, NULL);
  TG_CHECK(s == TALLY_OK && k == L->p, "%s ARGMAX: %s, %" PRId64 ", expected %" PRId64 ": %s", what,
           tally_status_name(s), k, L->p, s ? tally_errmsg(gpu) : "");
  printf("%s ARGMAX = %" PRId64 " (%.3f s)\n", what, k, now() - t0);
  if (host_only_some) return;

  s = tally_reduce(gpu, TALLY_MAX, &in, NULL, &of, NULL);
  TG_CHECK(s == TALLY_OK && f == 9.0f, "%s MAX: %s, %.9g, expected 9: %s", what, tally_status_name(s),
           (double)f, s ? tally_errmsg(gpu) : "");
  s = tally_reduce(gpu, TALLY_ARGMIN, &in, NULL, &ok, NULL);
  TG_CHECK(s == TALLY_OK && k == L->r, "%s ARGMIN: %s, %" PRId64 ", expected %" PRId64 ": %s", what,
           tally_status_name(s), k, L->r, s ? tally_errmsg(gpu) : "");
  s = tally_reduce(gpu, TALLY_COUNT_NONZERO, &in, NULL, &ok, NULL);
  TG_CHECK(s == TALLY_OK && k == exact_nonzero(L), "%s COUNT_NONZERO: %s, %" PRId64 ", expected %" PRId64 ": %s",
           what, tally_status_name(s), k, exact_nonzero(L), s ? tally_errmsg(gpu) : "");
  s = tally_reduce(gpu, TALLY_MEAN, &in, NULL, &of, NULL);
  double mean = want / (double)n; /* the exact sum, one division: within one f32 rounding */
  TG_CHECK(s == TALLY_OK && fabs((double)f - mean) <= 0x1p-23 * mean, "%s MEAN: %s, %.9g, expected %.9g: %s",
           what, tally_status_name(s), (double)f, mean, s ? tally_errmsg(gpu) : "");
  printf("%s MAX, ARGMIN, COUNT_NONZERO, MEAN done\n", what);
}

static int64_t host_free(void) {
  long pages = sysconf(_SC_AVPHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  return pages > 0 && psize > 0 ? (int64_t)pages * psize : INT64_MAX;
}

int main(int argc, char **argv) {
  const char *device = "cuda:0";
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) device = argv[++i];
    else {
      fprintf(stderr, "usage: test_gpu_large [--device DEV]\n");
      return 2;
    }
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  int rc = tg_open(device, &gpu);
  if (rc) return rc;
  const int64_t sizes[2] = {((int64_t)1 << 31) + 1, ((int64_t)1 << 32) + 3};
  const size_t bytes = (size_t)sizes[1] * sizeof(float);
  tally_context_info info;
  memset(&info, 0, sizeof info);
  tally_context_describe(gpu, &info);
  if (info.memory_bytes == 0) info.memory_bytes = host_free(); /* host memory backends */
  if (info.memory_bytes < (int64_t)bytes + ((int64_t)2 << 30)) {
    printf("SKIP: the device has %.1f GB, the test needs %.1f GB and 2 GB to spare\n",
           (double)info.memory_bytes / 1e9, (double)bytes / 1e9);
    tally_close(gpu);
    return TG_SKIP;
  }
  float *dev = NULL;
  tally_status s = tally_mem_alloc(gpu, bytes, (void **)&dev);
  if (s == TALLY_ENOMEM) {
    printf("SKIP: tally_mem_alloc(%zu): %s\n", bytes, tally_errmsg(gpu));
    tally_close(gpu);
    return TG_SKIP;
  }
  TG_CHECK(s == TALLY_OK, "tally_mem_alloc(%zu): %s: %s", bytes, tally_status_name(s), tally_errmsg(gpu));
  if (s != TALLY_OK) return tg_done("test_gpu_large");

  /* The pattern in chunks of 7·2^22 elements (a whole number of periods). */
  double t0 = now();
  const int64_t chunk = (int64_t)7 << 22;
  float *pat = malloc((size_t)chunk * sizeof *pat);
  if (!pat) {
    printf("SKIP: no host memory for the pattern\n");
    return TG_SKIP;
  }
  for (int64_t i = 0; i < chunk; i++) pat[i] = (float)(i % 7);
  for (int64_t at = 0; at < sizes[1] && s == TALLY_OK; at += chunk) {
    int64_t len = sizes[1] - at < chunk ? sizes[1] - at : chunk;
    s = tally_mem_copy(gpu, dev + at, TALLY_MEM_DEVICE, pat, TALLY_MEM_HOST, (size_t)len * sizeof *pat);
    TG_CHECK(s == TALLY_OK, "tally_mem_copy at %" PRId64 ": %s: %s", at, tally_status_name(s), tally_errmsg(gpu));
  }
  free(pat);
  printf("filled %.1f GB of device memory in %.2f s\n", (double)bytes / 1e9, now() - t0);

  for (int c = 0; c < 2 && s == TALLY_OK; c++) {
    layout L = layout_of(sizes[c]);
    if (set_at(dev, L.p, 9) || (L.q >= 0 && set_at(dev, L.q, 9)) || set_at(dev, L.r, -1)) break;
    tally_array in = tally_array_1d(dev, TALLY_F32, L.n);
    in.mem = TALLY_MEM_DEVICE;
    check_all("device", &L, in, 0);
    if (set_at(dev, L.p, (float)(L.p % 7)) || (L.q >= 0 && set_at(dev, L.q, (float)(L.q % 7))) ||
        set_at(dev, L.r, (float)(L.r % 7)))
      break;
  }
  tally_mem_free(gpu, dev);

  /* The same 2^32 + 3 elements from host memory, where there is room for them. */
  if ((double)host_free() < 1.5 * (double)bytes) {
    printf("host array part skipped: %.1f GB of host memory free, it needs %.1f GB\n",
           (double)host_free() / 1e9, 1.5 * (double)bytes / 1e9);
  } else {
    float *h = malloc(bytes);
    if (!h) {
      printf("host array part skipped: malloc(%zu) failed\n", bytes);
    } else {
      layout L = layout_of(sizes[1]);
      for (int64_t i = 0; i < 7; i++) h[i] = (float)i;
      for (int64_t have = 7; have < L.n;) { /* doubling copies keep i mod 7 */
        int64_t len = have < L.n - have ? have : L.n - have;
        memcpy(h + have, h, (size_t)len * sizeof *h);
        have += len;
      }
      h[L.p] = 9;
      if (L.q >= 0) h[L.q] = 9;
      h[L.r] = -1;
      check_all("host", &L, tally_array_1d(h, TALLY_F32, L.n), 1);
      free(h);
    }
  }
  tally_close(gpu);
  return tg_done("test_gpu_large");
}

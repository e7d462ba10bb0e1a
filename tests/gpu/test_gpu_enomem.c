/* test_gpu_enomem: asking for more device memory than the card has.
 *
 * tally_mem_alloc of 2 × memory_bytes, of memory_bytes itself (more than is free once any
 * context exists) and of SIZE_MAX must each fail with TALLY_ENOMEM, leave the pointer NULL,
 * name the size asked for in tally_errmsg, and leak nothing: the driver's free memory
 * (cuMemGetInfo) is the same before and after. Then the context still works: an ordinary
 * alloc, copy, reduce and free, and free memory is back where it was.
 *
 * Exit 0: passed; 1: failures; 77: no CUDA device here (skipped). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_util.h"

static tg_cu cu;
static tally_context *gpu;

/* Free device memory as the driver sees it (the primary context is current). */
static size_t free_now(void) {
  size_t f = 0, t = 0;
  CUresult r = cu.MemGetInfo(&f, &t);
  TG_CHECK(r == 0, "cuMemGetInfo: %s", tg_cu_name(&cu, r));
  return f;
}

/* Free memory equal to `before`, allowing the driver a moment to settle. */
static void check_no_leak(const char *what, size_t before) {
  size_t after = free_now();
  for (int i = 0; i < 10 && after != before; i++) {
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    after = free_now();
  }
  TG_CHECK(after == before, "%s: free device memory %zu bytes before, %zu after (%+.0f)", what,
           before, after, (double)after - (double)before);
}

/* Does msg name `bytes`: in bytes ("17179869184"), or in GB/GiB/MB/MiB with up to 2
 * decimals, or in hex? */
static int names_size(const char *msg, size_t bytes) {
  char s[64];
  snprintf(s, sizeof s, "%zu", bytes);
  if (strstr(msg, s)) return 1;
  snprintf(s, sizeof s, "%#zx", bytes);
  if (strstr(msg, s)) return 1;
  const double units[] = {1e9, 1073741824.0, 1e6, 1048576.0};
  for (int u = 0; u < 4; u++)
    for (int d = 0; d <= 2; d++) {
      snprintf(s, sizeof s, "%.*f", d, (double)bytes / units[u]);
      if (strlen(s) >= 2 && strstr(msg, s)) return 1;
    }
  return 0;
}

static void expect_enomem(size_t bytes, const char *label) {
  size_t before = free_now();
  void *p = (void *)(uintptr_t)0x1234; /* must be overwritten with NULL */
  tally_status s = tally_mem_alloc(gpu, bytes, &p);
  const char *msg = tally_errmsg(gpu);
  printf("tally_mem_alloc(%s = %zu bytes): %s: %s\n", label, bytes, tally_status_name(s), msg);
  TG_CHECK(s == TALLY_ENOMEM, "tally_mem_alloc(%s = %zu bytes): %s, expected TALLY_ENOMEM", label,
           bytes, tally_status_name(s));
  TG_CHECK(p == NULL, "tally_mem_alloc(%s): the pointer is %p after a failure, expected NULL", label, p);
  if (s == TALLY_OK && p) tally_mem_free(gpu, p);
  if (s == TALLY_ENOMEM)
    TG_CHECK(names_size(msg, bytes), "tally_mem_alloc(%s): the message does not name the size %zu: \"%s\"",
             label, bytes, msg);
  check_no_leak(label, before);
}

/* An ordinary alloc, copy in, reduce the device array, copy out, free. */
static void still_works(const char *when) {
  enum { N = 1 << 20 };
  float *h = malloc(N * sizeof *h);
  if (!h) return;
  double want = 0;
  for (int i = 0; i < N; i++) want += h[i] = (float)(i % 10 + 1); /* exact in f64 and f32 */
  void *d = NULL;
  tally_status s = tally_mem_alloc(gpu, N * sizeof *h, &d);
  TG_CHECK(s == TALLY_OK && d, "%s: tally_mem_alloc(4 MiB): %s: %s", when, tally_status_name(s),
           tally_errmsg(gpu));
  if (s == TALLY_OK) {
    s = tally_mem_copy(gpu, d, TALLY_MEM_DEVICE, h, TALLY_MEM_HOST, N * sizeof *h);
    TG_CHECK(s == TALLY_OK, "%s: tally_mem_copy: %s: %s", when, tally_status_name(s), tally_errmsg(gpu));
    float sum = -1;
    tally_array in = tally_array_1d(d, TALLY_F32, N), out = tally_array_1d(&sum, TALLY_F32, 1);
    in.mem = TALLY_MEM_DEVICE;
    s = tally_reduce(gpu, TALLY_SUM, &in, NULL, &out, NULL);
    TG_CHECK(s == TALLY_OK && sum == (float)want, "%s: SUM of a device array: %s, %.9g (expected %.9g): %s",
             when, tally_status_name(s), sum, want, s ? tally_errmsg(gpu) : "");
    memset(h, 0, N * sizeof *h);
    s = tally_mem_copy(gpu, h, TALLY_MEM_HOST, d, TALLY_MEM_DEVICE, N * sizeof *h);
    TG_CHECK(s == TALLY_OK && h[N - 1] == (float)((N - 1) % 10 + 1), "%s: copy back: %s", when,
             tally_status_name(s));
    s = tally_mem_free(gpu, d);
    TG_CHECK(s == TALLY_OK, "%s: tally_mem_free: %s: %s", when, tally_status_name(s), tally_errmsg(gpu));
  }
  free(h);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  int rc = tg_open("cuda:0", &gpu);
  if (rc) return rc;
  char why[256];
  if (tg_cu_load(&cu, why, sizeof why) != 0) {
    printf("FAIL: tally opened cuda:0, but the test cannot use the driver: %s\n", why);
    return 1;
  }
  tally_context_info info;
  tally_status s = tally_context_describe(gpu, &info);
  TG_CHECK(s == TALLY_OK && info.memory_bytes > 0, "tally_context_describe: %s, memory_bytes %" PRId64,
           tally_status_name(s), info.memory_bytes);
  if (s != TALLY_OK || info.memory_bytes <= 0) return tg_done("test_gpu_enomem");

  CUdevice dev;
  CUcontext prim;
  CUresult r = cu.DeviceGet(&dev, 0);
  if (r == 0) r = cu.DevicePrimaryCtxRetain(&prim, dev);
  if (r == 0) r = cu.CtxPushCurrent(prim);
  if (r != 0) {
    printf("FAIL: the primary context of device 0: %s\n", tg_cu_name(&cu, r));
    return 1;
  }
  size_t f0 = 0, total = 0;
  cu.MemGetInfo(&f0, &total);
  printf("memory_bytes %" PRId64 ", driver: %zu free of %zu\n", info.memory_bytes, f0, total);
  TG_CHECK((size_t)info.memory_bytes == total, "memory_bytes %" PRId64 " but cuMemGetInfo's total is %zu",
           info.memory_bytes, total);

  /* Warm up first: whatever tally keeps (kernels, scratch, a pool) is kept before the
   * measurements start, so only a leak changes free memory. */
  still_works("warm-up");
  size_t base = free_now();

  expect_enomem(2 * (size_t)info.memory_bytes, "2 x memory_bytes");
  expect_enomem((size_t)info.memory_bytes, "memory_bytes");
  expect_enomem(SIZE_MAX, "SIZE_MAX");
  expect_enomem(SIZE_MAX / 2 + 1, "2^63");

  still_works("after the failures");
  check_no_leak("after the failures and an ordinary alloc/free", base);

  /* Many ordinary allocations of a good share of free memory come and go without drift. */
  size_t chunk = base / 4 & ~(size_t)0xFFFFF;
  for (int i = 0; i < 8 && chunk; i++) {
    void *p = NULL;
    s = tally_mem_alloc(gpu, chunk, &p);
    TG_CHECK(s == TALLY_OK, "tally_mem_alloc(%zu) round %d: %s: %s", chunk, i, tally_status_name(s),
             tally_errmsg(gpu));
    if (s == TALLY_OK) tally_mem_free(gpu, p);
  }
  check_no_leak("after 8 allocations of a quarter of free memory", base);

  CUcontext popped;
  cu.CtxPopCurrent(&popped);
  tally_close(gpu);
  cu.DevicePrimaryCtxRelease(dev);
  return tg_done("test_gpu_enomem");
}

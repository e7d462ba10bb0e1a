/* test_opencl_buffers [DEVICE]: OpenCL device arrays (cl_mem from tally_mem_alloc), checked
 * against the same reduction of the host copy on the `cpu` device. DEVICE defaults to
 * "opencl" (PoCL in CI).
 *
 * Device inputs at several sizes (one and several work-groups), strided, 2-D with axis 0
 * and 1, a device output, two inputs (DOT); a buffer is unchanged by the reduction; two
 * different buffers never count as overlapping (their handles are not addresses), the same
 * buffer as input and output does; negative strides that reach before a buffer's first
 * byte are refused with TALLY_EINVAL; a kernel source that does not compile
 * ($TALLY_KERNEL_DIR) gives TALLY_ECOMPILE with the compiler's log, naming file and line;
 * a build lands in the disk cache ($TALLY_CACHE_DIR) as ocl-*.bin, and a damaged cache
 * file is built again from source, with the same result.
 * Every variant (the ladder's rungs OpenCL can express) on device buffers.
 * Fresh random data (seed logged), outputs poisoned.
 * Integers and extrema bit for bit; float sums within 1e-12 relative of the cpu result
 * (both are within their documented bounds of the exact value, f64 accumulations).
 * Exit 0: passed; 1: failures; 77: no OpenCL device with doubles here (skipped). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "rng.h"
#include "tally.h"

static int failures, checks;
#define CHECK(cond, ...)                                                                      \
  do {                                                                                      \
    checks++;                                                                               \
    if (!(cond)) {                                                                          \
      failures++;                                                                           \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                           \
      printf(__VA_ARGS__);                                                                  \
      printf("\n");                                                                         \
    }                                                                                       \
  } while (0)

static tally_context *dev, *cpu;
static const char *variant; /* the variant dev runs (NULL: best) */

static void *to_device(const void *host, size_t bytes) {
  void *d = NULL;
  tally_status s = tally_mem_alloc(dev, bytes, &d);
  if (s == TALLY_OK) s = tally_mem_copy(dev, d, TALLY_MEM_DEVICE, host, TALLY_MEM_HOST, bytes);
  CHECK(s == TALLY_OK, "tally_mem_alloc/copy of %zu bytes: %s", bytes, tally_errmsg(dev));
  return s == TALLY_OK ? d : NULL;
}

/* Compare result vectors: exact for integer/extremum results, 1e-12 relative for floats. */
static void compare(const char *what, tally_dtype rd, const void *got, const void *want, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    double g, w;
    if (rd == TALLY_F64) g = ((const double *)got)[i], w = ((const double *)want)[i];
    else if (rd == TALLY_F32) g = ((const float *)got)[i], w = ((const float *)want)[i];
    else if (rd == TALLY_I64) g = (double)((const int64_t *)got)[i], w = (double)((const int64_t *)want)[i];
    else {
      CHECK(memcmp((const char *)got + i * tally_dtype_size(rd), (const char *)want + i * tally_dtype_size(rd),
                   tally_dtype_size(rd)) == 0, "%s: value %" PRId64 " differs", what, i);
      continue;
    }
    CHECK(g == w || fabs(g - w) <= 1e-12 * fabs(w) + (rd == TALLY_F32 ? 2e-7 * fabs(w) : 0),
          "%s: value %" PRId64 ": got %.17g, want %.17g", what, i, g, w);
  }
}

/* Reduce the host array `h` (layout `a` with data = h) on cpu, and the same layout over a
 * device copy on dev (output on the host, or in device memory). */
static void one(const char *what, tally_op op, tally_array a, const void *h2, size_t bytes,
                int axis, int devout) {
  tally_dtype rd;
  if (tally_result_dtype(op, a.dtype, &rd) != TALLY_OK) return;
  tally_options opt;
  tally_options_init(&opt);
  opt.axis = axis;
  int64_t nout = (axis < 0 ? 1 : axis == 0 ? a.shape[1] : a.shape[0]) * tally_result_width(op);
  size_t ob = (size_t)nout * tally_dtype_size(rd);
  void *want = malloc(ob), *got = malloc(ob);
  memset(got, 0xA5, ob);
  tally_array b = a, wout = tally_array_1d(want, rd, nout), gout = tally_array_1d(got, rd, nout);
  if (h2) b.data = (void *)h2;
  tally_status s = tally_reduce(cpu, op, &a, h2 ? &b : NULL, &wout, &opt);
  CHECK(s == TALLY_OK, "%s: cpu: %s", what, tally_errmsg(cpu));
  void *dx = to_device(a.data, bytes), *dy = h2 ? to_device(h2, bytes) : NULL, *dout = NULL;
  tally_array da = a, db = b;
  da.data = dx, da.mem = TALLY_MEM_DEVICE;
  db.data = dy, db.mem = TALLY_MEM_DEVICE;
  if (devout) {
    dout = to_device(got, ob); /* poisoned */
    gout.data = dout;
    gout.mem = TALLY_MEM_DEVICE;
  }
  if (dx && (!h2 || dy) && (!devout || dout)) {
    opt.variant = variant;
    s = tally_reduce(dev, op, &da, h2 ? &db : NULL, &gout, &opt);
    CHECK(s == TALLY_OK, "%s: %s: %s", what, tally_status_name(s), tally_errmsg(dev));
    if (devout && s == TALLY_OK)
      s = tally_mem_copy(dev, got, TALLY_MEM_HOST, dout, TALLY_MEM_DEVICE, ob);
    if (s == TALLY_OK) compare(what, rd, got, want, nout);
    void *back = malloc(bytes);
    if (back && tally_mem_copy(dev, back, TALLY_MEM_HOST, dx, TALLY_MEM_DEVICE, bytes) == TALLY_OK)
      CHECK(memcmp(back, a.data, bytes) == 0, "%s: the device input changed", what);
    free(back);
  }
  tally_mem_free(dev, dx);
  tally_mem_free(dev, dy);
  tally_mem_free(dev, dout);
  free(want);
  free(got);
}

/* The program binaries' disk cache: filled, then damaged, then refilled; results right. */
static int sum_100(const char *device, float *r) {
  tally_context *c = NULL;
  if (tally_open(device, &c) != TALLY_OK) return -1;
  float x[100];
  for (int i = 0; i < 100; i++) x[i] = (float)i;
  tally_array in = tally_array_1d(x, TALLY_F32, 100), out = tally_array_1d(r, TALLY_F32, 1);
  tally_status s = tally_reduce(c, TALLY_SUM, &in, NULL, &out, NULL);
  tally_close(c);
  return s == TALLY_OK ? 0 : -1;
}

static int cache_files(const char *dir, int damage) {
  int n = 0;
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    if (strncmp(e->d_name, "ocl-", 4) != 0) continue;
    n++;
    if (damage) {
      char path[1024];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      FILE *f = fopen(path, "wb");
      if (f) fputs("not a program binary", f), fclose(f);
    }
  }
  if (d) closedir(d);
  return n;
}

static void disk_cache(const char *device) {
  char dir[] = "/tmp/tally_ocl_cache_XXXXXX";
  if (!mkdtemp(dir)) { CHECK(0, "mkdtemp failed"); return; }
  const char *old = getenv("TALLY_CACHE_DIR");
  char *saved = old ? strdup(old) : NULL;
  setenv("TALLY_CACHE_DIR", dir, 1);
  float r = 0;
  CHECK(sum_100(device, &r) == 0 && r == 4950.0f, "sum with an empty cache: %g", r);
  CHECK(cache_files(dir, 1) >= 1, "no ocl-*.bin in %s after a build", dir);
  r = 0;
  CHECK(sum_100(device, &r) == 0 && r == 4950.0f, "sum with a damaged cache file: %g", r);
  r = 0;
  CHECK(sum_100(device, &r) == 0 && r == 4950.0f, "sum from the rebuilt cache file: %g", r);
  DIR *d = opendir(dir);
  for (struct dirent *e; d && (e = readdir(d));) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (e->d_name[0] != '.') remove(path);
  }
  if (d) closedir(d);
  rmdir(dir);
  if (saved) setenv("TALLY_CACHE_DIR", saved, 1);
  else unsetenv("TALLY_CACHE_DIR");
  free(saved);
}

/* Copy src/gpu to a temporary folder with one line broken, point $TALLY_KERNEL_DIR at it,
 * and reduce on a fresh context (kernels are cached per context). */
static void compile_error(const char *device) {
  static const char *const files[] = {"dialect_cuda.h", "dialect_opencl.h", "reduce_part.clh",
                                      "reduce_best.clh", "ladder.clh"};
  char dir[] = "/tmp/tally_ocl_kernels_XXXXXX";
  if (!mkdtemp(dir)) { CHECK(0, "mkdtemp failed"); return; }
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char from[1024], to[1024];
    snprintf(from, sizeof from, "%s/src/gpu/%s", TALLY_SOURCE_DIR, files[i]);
    snprintf(to, sizeof to, "%s/%s", dir, files[i]);
    FILE *f = fopen(from, "rb"), *g = fopen(to, "wb");
    if (f && g) {
      if (strcmp(files[i], "reduce_best.clh") == 0) fputs("this is not OpenCL C;\n", g);
      int ch;
      while ((ch = fgetc(f)) != EOF) fputc(ch, g);
    }
    CHECK(f && g, "copying %s to %s", from, to);
    if (f) fclose(f);
    if (g) fclose(g);
  }
  setenv("TALLY_KERNEL_DIR", dir, 1);
  tally_context *c = NULL;
  if (tally_open(device, &c) == TALLY_OK) {
    float x[100], r = 0;
    for (int i = 0; i < 100; i++) x[i] = 1.0f;
    tally_array in = tally_array_1d(x, TALLY_F32, 100), out = tally_array_1d(&r, TALLY_F32, 1);
    tally_status s = tally_reduce(c, TALLY_SUM, &in, NULL, &out, NULL);
    CHECK(s == TALLY_ECOMPILE && strstr(tally_errmsg(c), "reduce_best.clh:1"),
          "a broken kernel source: %s, expected TALLY_ECOMPILE naming reduce_best.clh:1: %s",
          tally_status_name(s), tally_errmsg(c));
    tally_close(c);
  }
  unsetenv("TALLY_KERNEL_DIR");
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    char to[1024];
    snprintf(to, sizeof to, "%s/%s", dir, files[i]);
    remove(to);
  }
  rmdir(dir);
}

int main(int argc, char **argv) {
  const char *device = argc > 1 ? argv[1] : "opencl";
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (tally_open(device, &dev) != TALLY_OK) {
    printf("SKIP: %s: %s\n", device, tally_errmsg(NULL));
    return 77;
  }
  if (tally_open("cpu", &cpu) != TALLY_OK) {
    printf("FAIL: tally_open(cpu): %s\n", tally_errmsg(NULL));
    return 1;
  }
  uint64_t seed = tt_test_seed("test_opencl_buffers");
  static const int64_t sizes[] = {1, 17, 1000, 65537, 1048583};
  static const tally_op ops[] = {TALLY_SUM, TALLY_MAX, TALLY_ARGMIN, TALLY_VAR, TALLY_MINMAX};
  static const tally_dtype dts[] = {TALLY_F32, TALLY_F64, TALLY_I32, TALLY_U8};
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
    for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++) {
      int64_t n = sizes[si];
      size_t es = tally_dtype_size(dts[di]), bytes = (size_t)n * es;
      unsigned char *h = malloc(bytes), *h2 = malloc(bytes);
      tt_rng r;
      tt_rng_stream(&r, seed, (si << 8) | di);
      for (size_t i = 0; i < bytes; i++) h[i] = (unsigned char)tt_rng_below(&r, 256), h2[i] = (unsigned char)tt_rng_below(&r, 256);
      if (dts[di] == TALLY_F32) /* finite values in [-2, 2) */
        for (int64_t i = 0; i < n; i++) ((float *)h)[i] = (float)(4 * tt_rng_unit(&r) - 2), ((float *)h2)[i] = (float)(4 * tt_rng_unit(&r) - 2);
      if (dts[di] == TALLY_F64)
        for (int64_t i = 0; i < n; i++) ((double *)h)[i] = 4 * tt_rng_unit(&r) - 2, ((double *)h2)[i] = 4 * tt_rng_unit(&r) - 2;
      char what[128];
      for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
        snprintf(what, sizeof what, "%s %s n=%" PRId64, tally_op_name(ops[oi]), tally_dtype_name(dts[di]), n);
        one(what, ops[oi], tally_array_1d(h, dts[di], n), NULL, bytes, -1, (int)(oi & 1));
      }
      snprintf(what, sizeof what, "dot %s n=%" PRId64, tally_dtype_name(dts[di]), n);
      one(what, TALLY_DOT, tally_array_1d(h, dts[di], n), h2, bytes, -1, 0);
      if (n >= 17) {
        snprintf(what, sizeof what, "sum %s stride 3 of n=%" PRId64, tally_dtype_name(dts[di]), n);
        one(what, TALLY_SUM, tally_array_strided(h, dts[di], (n + 2) / 3, 3), NULL, bytes, -1, 0);
        int64_t rows = n / 17;
        for (int axis = 0; axis < 2; axis++) {
          snprintf(what, sizeof what, "sum %s %" PRId64 "x17 axis %d", tally_dtype_name(dts[di]), rows, axis);
          one(what, TALLY_SUM, tally_array_2d(h, dts[di], rows, 17), NULL, bytes, axis, axis);
        }
      }
      free(h);
      free(h2);
    }

  /* Every ladder rung on device buffers (the suite runs them on host arrays): an integer
   * SUM (exact) of several work-groups, contiguous into a device output and strided. */
  {
    int64_t n = 70001;
    int32_t *h = malloc((size_t)n * 4);
    tt_rng r;
    tt_rng_stream(&r, seed, 1u << 20);
    for (int64_t i = 0; i < n; i++) h[i] = (int32_t)tt_rng_below(&r, 2000001) - 1000000;
    int nv = 0;
    for (int v = 0; tally_variant_name(dev, v); v++, nv++) {
      variant = tally_variant_name(dev, v);
      char what[128];
      snprintf(what, sizeof what, "variant %s: sum i32 n=%" PRId64, variant, n);
      one(what, TALLY_SUM, tally_array_1d(h, TALLY_I32, n), NULL, (size_t)n * 4, -1, 1);
      snprintf(what, sizeof what, "variant %s: sum i32 stride 7 of n=%" PRId64, variant, n);
      one(what, TALLY_SUM, tally_array_strided(h, TALLY_I32, n / 7, 7), NULL, (size_t)n * 4, -1, 0);
    }
    variant = NULL;
    printf("ladder on device buffers: %d variants\n", nv);
    free(h);
  }

  /* Handles, not addresses: different buffers never overlap; one buffer with itself does;
   * negative strides below a buffer's start are refused. */
  float x[64];
  for (int i = 0; i < 64; i++) x[i] = (float)i;
  void *a = to_device(x, sizeof x), *b = to_device(x, sizeof x);
  if (a && b) {
    tally_array in = tally_array_1d(a, TALLY_F32, 64), out = tally_array_1d(b, TALLY_F32, 1);
    in.mem = out.mem = TALLY_MEM_DEVICE;
    tally_status s = tally_reduce(dev, TALLY_SUM, &in, NULL, &out, NULL);
    float r = 0;
    if (s == TALLY_OK) tally_mem_copy(dev, &r, TALLY_MEM_HOST, b, TALLY_MEM_DEVICE, sizeof r);
    CHECK(s == TALLY_OK && r == 2016.0f, "two buffers: %s, sum %g (want 2016): %s", tally_status_name(s), r, tally_errmsg(dev));
    out.data = a;
    s = tally_reduce(dev, TALLY_SUM, &in, NULL, &out, NULL);
    CHECK(s == TALLY_EINVAL, "output in the input's buffer: %s, expected TALLY_EINVAL", tally_status_name(s));
    tally_array rev = tally_array_strided(a, TALLY_F32, 10, -1);
    rev.mem = TALLY_MEM_DEVICE;
    tally_array hout = tally_array_1d(&r, TALLY_F32, 1);
    s = tally_reduce(dev, TALLY_SUM, &rev, NULL, &hout, NULL);
    CHECK(s == TALLY_EINVAL && strstr(tally_errmsg(dev), "before element 0"),
          "reversed device array: %s: %s", tally_status_name(s), tally_errmsg(dev));
  }
  tally_mem_free(dev, a);
  tally_mem_free(dev, b);
  tally_close(dev);
  compile_error(device);
  disk_cache(device);
  tally_close(cpu);
  printf("%s: test_opencl_buffers on %s: %d checks, %d failures (seed %" PRIu64 ")\n",
         failures ? "FAILED" : "PASSED", device, checks, failures, seed);
  return failures ? 1 : 0;
}

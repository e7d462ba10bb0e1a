/* Device strings: auto, cpu, threads, ISAs, bad strings (TALLY_EINVAL naming the string),
 * backends not built in (TALLY_EUNSUPPORTED), $TALLY_DEVICE and $TALLY_CPU_ISA; context
 * description, device listing and variant names. */
#include <stdlib.h>

#include "check.h"
#include "tally.h"

/* Open, describe, close; returns the status and fills info on success. */
static tally_status open_describe(const char *dev, tally_context_info *info) {
  tally_context *ctx = (tally_context *)&ctx; /* not NULL: must be reset on failure */
  tally_status s = tally_open(dev, &ctx);
  if (s != TALLY_OK) {
    CHECK(ctx == NULL, "tally_open(%s) failed but left ctx set", dev ? dev : "NULL");
    return s;
  }
  CHECK(ctx != NULL, "tally_open(%s) succeeded with ctx NULL", dev ? dev : "NULL");
  memset(info, 0, sizeof *info);
  tally_status d = tally_context_describe(ctx, info);
  CHECK(d == TALLY_OK, "describe(%s): %s", dev ? dev : "NULL", tally_status_name(d));
  tally_close(ctx);
  return s;
}

static void good(const char *dev, const char *backend, int threads, const char *isa) {
  tally_context_info info;
  tally_status s = open_describe(dev, &info);
  if (s == TALLY_EUNSUPPORTED && isa) {
    printf("note: %s not available on this CPU\n", dev);
    return;
  }
  CHECK(s == TALLY_OK, "tally_open(%s): %s: %s", dev, tally_status_name(s), tally_errmsg(NULL));
  if (s != TALLY_OK) return;
  if (backend) CHECK(strcmp(info.backend, backend) == 0, "%s: backend '%s'", dev, info.backend);
  if (threads) CHECK(info.threads == threads, "%s: %d threads", dev, info.threads);
  else CHECK(info.threads >= 1, "%s: %d threads", dev, info.threads);
  if (isa) CHECK(strcmp(info.isa, isa) == 0, "%s: isa '%s'", dev, info.isa);
}

static void bad(const char *dev, tally_status want) {
  tally_context_info info;
  tally_status s = open_describe(dev, &info);
  CHECK(s == want, "tally_open(%s): %s, expected %s", dev, tally_status_name(s), tally_status_name(want));
  CHECK(tu_contains(tally_errmsg(NULL), dev), "message for '%s' does not name it: %s", dev,
        tally_errmsg(NULL));
}

static int backend_usable(const char *backend) {
  tally_device_info list[32];
  int count = 0;
  if (tally_devices(list, 32, &count) != TALLY_OK) return 0;
  for (int i = 0; i < count && i < 32; i++)
    if (strcmp(list[i].backend, backend) == 0 && list[i].usable) return 1;
  return 0;
}

/* The OpenCL ladder: the rungs OpenCL C can express, in ladder order, "best" last; the
 * others refused naming what they need; an unknown name refused naming the known ones. The
 * default work-group size after a first reduction: a power of two from 32 to 1024. */
static void ladder_on_opencl(void) {
  tally_context *c = NULL;
  if (tally_open("opencl", &c) != TALLY_OK) {
    CHECK(0, "tally_open(opencl): %s", tally_errmsg(NULL));
    return;
  }
  const char *must[] = {"serial", "simple_1", "simple_2", "reduce_add_1", "reduce_add_2",
                        "reduce_add_3", "tiled_1", "tiled_2", "tiled_3", "tiled_4", "tree_2x",
                        "cascade", "single_block", "noncomm_single", "two_launch"};
  int n = 0, pos[sizeof must / sizeof *must];
  for (size_t k = 0; k < sizeof must / sizeof *must; k++) pos[k] = -1;
  for (; tally_variant_name(c, n); n++) {
    const char *v = tally_variant_name(c, n);
    for (size_t k = 0; k < sizeof must / sizeof *must; k++)
      if (strcmp(v, must[k]) == 0) pos[k] = n;
    CHECK(strcmp(v, "last_block") != 0 && strncmp(v, "warp_", 5) != 0, "opencl lists %s", v);
  }
  CHECK(n > 0 && strcmp(tally_variant_name(c, n - 1), "best") == 0, "opencl: best is not last");
  for (size_t k = 0; k < sizeof must / sizeof *must; k++) {
    CHECK(pos[k] >= 0, "opencl does not list %s", must[k]);
    CHECK(k == 0 || pos[k] > pos[k - 1], "opencl lists %s out of ladder order", must[k]);
  }
  float x[300], r = 0;
  for (int i = 0; i < 300; i++) x[i] = (float)(i % 7) - 3.0f;
  tally_array in = tally_array_1d(x, TALLY_F32, 300), out = tally_array_1d(&r, TALLY_F32, 1);
  tally_options o;
  tally_options_init(&o);
  struct { const char *name; tally_status want; const char *says; } cases[] = {
      {"warp_shuffle", TALLY_EUNSUPPORTED, "warp shuffles"},
      {"last_block", TALLY_EUNSUPPORTED, "last-block guard"},
      {"nonesuch", TALLY_EINVAL, "reduce_add_3"},
      {"reduce_add_1", TALLY_OK, ""}};
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    o.variant = cases[k].name;
    r = -1.0f;
    tally_status s = tally_reduce(c, TALLY_SUM, &in, NULL, &out, &o);
    CHECK(s == cases[k].want && tu_contains(tally_errmsg(c), cases[k].says),
          "opencl variant %s: %s (%s), expected %s", cases[k].name, tally_status_name(s),
          tally_errmsg(c), tally_status_name(cases[k].want));
  }
  CHECK(r == -3.0f, "opencl reduce_add_1: sum %g, expected -3 (42 cycles of 7 sum to 0; then -3..2)", r);
  tally_context_info info;
  int per = 0;
  if (tally_context_describe(c, &info) == TALLY_OK && info.compute_units > 0)
    per = info.threads / info.compute_units;
  CHECK(per >= 32 && per <= 1024 && (per & (per - 1)) == 0,
        "opencl default work-group size %d: not a power of two in 32..1024", per);
  tally_close(c);
}

int main(void) {
  unsetenv("TALLY_DEVICE");
  unsetenv("TALLY_CPU_ISA");
  good("auto", backend_usable("cuda") || backend_usable("opencl") ? NULL : "cpu", 0, NULL);
  good("cpu", "cpu", 0, NULL);
  good("cpu:threads=1", "cpu", 1, NULL);
  good("cpu:threads=2", "cpu", 2, NULL);
  good("cpu:threads=7", "cpu", 7, NULL);
  good("cpu:isa=scalar", "cpu", 0, "scalar");
  good("cpu:isa=avx2", "cpu", 0, "avx2");
  good("cpu:isa=avx512", "cpu", 0, "avx512");
  good("cpu:threads=3,isa=scalar", "cpu", 3, "scalar");

  bad("gpu", TALLY_EINVAL);
  bad("cpu:threads=0", TALLY_EINVAL);
  bad("cpu:threads=-2", TALLY_EINVAL);
  bad("cpu:threads=abc", TALLY_EINVAL);
  bad("cpu:threads=", TALLY_EINVAL);
  bad("cpu:isa=sse9", TALLY_EINVAL);
  bad("cpu:colour=blue", TALLY_EINVAL);
  bad("auto:1", TALLY_EINVAL);
  bad("cpux", TALLY_EINVAL);
  if (!backend_usable("cuda")) {
    /* Built in, but no driver (EDRIVER, the message names libcuda.so.1) or no device. */
    tally_context *c = NULL;
    tally_status s = tally_open("cuda", &c);
    CHECK(s == TALLY_EDRIVER || s == TALLY_ENODEV, "tally_open(cuda): %s, expected TALLY_EDRIVER "
          "or TALLY_ENODEV", tally_status_name(s));
    CHECK(s != TALLY_EDRIVER || tu_contains(tally_errmsg(NULL), "libcuda.so.1"),
          "message does not name libcuda.so.1: %s", tally_errmsg(NULL));
    bad("cuda:0", s);
    bad("cuda:x", TALLY_EINVAL);
  }
  {
    /* OpenCL: usable where an ICD and a device with doubles are installed (PoCL in CI);
     * else no loader (EDRIVER, naming libOpenCL.so.1) or no platform/device (ENODEV). */
    tally_context *c = NULL;
    tally_status s = tally_open("opencl", &c);
    if (backend_usable("opencl"))
      CHECK(s == TALLY_OK, "tally_open(opencl): %s: %s", tally_status_name(s), tally_errmsg(NULL));
    else
      CHECK(s == TALLY_EDRIVER || s == TALLY_ENODEV || s == TALLY_OK,
            "tally_open(opencl): %s, expected TALLY_EDRIVER or TALLY_ENODEV", tally_status_name(s));
    CHECK(s != TALLY_EDRIVER || tu_contains(tally_errmsg(NULL), "libOpenCL.so.1"),
          "message does not name libOpenCL.so.1: %s", tally_errmsg(NULL));
    tally_close(c);
    bad("opencl:0", TALLY_EINVAL);
    bad("opencl:x:y", TALLY_EINVAL);
    bad("opencl:0:0:0", TALLY_EINVAL);
    bad("opencl:local=100", TALLY_EINVAL); /* not a power of two */
    bad("opencl:0:0,local=0", TALLY_EINVAL);
    bad("opencl:0:0,locale=64", TALLY_EINVAL);
    if (s == TALLY_OK) {
      bad("opencl:0:63", TALLY_ENODEV);
      bad("opencl:0:0,local=65536", TALLY_EUNSUPPORTED); /* more work-items than a group has */
      tally_context *w = NULL;
      tally_context_info wi;
      CHECK(tally_open("opencl:local=32", &w) == TALLY_OK && tally_context_describe(w, &wi) == TALLY_OK &&
                wi.threads == wi.compute_units * 32,
            "opencl:local=32: %s", tally_errmsg(NULL));
      tally_close(w);
      ladder_on_opencl();
    }
  }

  /* $TALLY_DEVICE is used when the device is NULL. */
  tally_context_info info;
  setenv("TALLY_DEVICE", "cpu:threads=3", 1);
  CHECK(open_describe(NULL, &info) == TALLY_OK && info.threads == 3,
        "$TALLY_DEVICE=cpu:threads=3: %d threads", info.threads);
  setenv("TALLY_DEVICE", "bogus", 1);
  tally_status s = open_describe(NULL, &info);
  CHECK(s == TALLY_EINVAL, "$TALLY_DEVICE=bogus: %s", tally_status_name(s));
  CHECK(tu_contains(tally_errmsg(NULL), "bogus") && tu_contains(tally_errmsg(NULL), "TALLY_DEVICE"),
        "message for $TALLY_DEVICE=bogus: %s", tally_errmsg(NULL));
  unsetenv("TALLY_DEVICE");
  CHECK(open_describe(NULL, &info) == TALLY_OK, "NULL device without $TALLY_DEVICE");
  /* An explicit device wins over $TALLY_DEVICE. */
  setenv("TALLY_DEVICE", "bogus", 1);
  CHECK(open_describe("cpu:threads=2", &info) == TALLY_OK && info.threads == 2,
        "explicit device with $TALLY_DEVICE set");
  unsetenv("TALLY_DEVICE");
  /* $TALLY_CPU_ISA forces the ISA. */
  setenv("TALLY_CPU_ISA", "scalar", 1);
  CHECK(open_describe("cpu", &info) == TALLY_OK && strcmp(info.isa, "scalar") == 0,
        "$TALLY_CPU_ISA=scalar: isa '%s'", info.isa);
  unsetenv("TALLY_CPU_ISA");

  /* NULL arguments */
  CHECK(tally_open("cpu", NULL) == TALLY_EINVAL, "tally_open with ctx NULL");
  tally_close(NULL);
  CHECK(tally_errmsg(NULL) != NULL, "tally_errmsg(NULL) is NULL");
  CHECK(tally_context_describe(NULL, &info) == TALLY_EINVAL, "describe(NULL)");

  /* Variants, listing */
  tally_context *ctx;
  if (tally_open("cpu", &ctx) == TALLY_OK) {
    const char *want[] = {"sequential", "naive", "best"};
    for (int i = 0; i < 3; i++) {
      const char *v = tally_variant_name(ctx, i);
      CHECK(v && strcmp(v, want[i]) == 0, "variant %d: %s", i, v ? v : "NULL");
    }
    CHECK(tally_variant_name(ctx, 3) == NULL, "variant 3 is not NULL");
    CHECK(tally_variant_name(ctx, -1) == NULL, "variant -1 is not NULL");
    CHECK(strcmp(tally_errmsg(ctx), "") == 0, "fresh context has a message: %s", tally_errmsg(ctx));
    CHECK(tally_context_describe(ctx, NULL) == TALLY_EINVAL, "describe with info NULL");
    CHECK(tu_contains(tally_errmsg(ctx), "info"), "describe(info NULL) message: %s", tally_errmsg(ctx));
    tally_close(ctx);
  }
  CHECK(tally_variant_name(NULL, 0) == NULL, "variant of a NULL context");
  int count = -1;
  CHECK(tally_devices(NULL, 0, &count) == TALLY_OK && count >= 3, "tally_devices count %d", count);
  tally_device_info list[16];
  int c2 = 0;
  CHECK(tally_devices(list, 16, &c2) == TALLY_OK && c2 == count, "tally_devices twice: %d, %d", count, c2);
  int cpu = 0;
  for (int i = 0; i < c2 && i < 16; i++) {
    if (strcmp(list[i].backend, "cpu") == 0) cpu += list[i].usable;
    if (!list[i].usable) CHECK(list[i].why[0] != '\0', "device %s unusable without a reason", list[i].name);
  }
  CHECK(cpu >= 1, "no usable cpu device listed");
  CHECK(tally_devices(list, 16, NULL) == TALLY_EINVAL, "tally_devices with count NULL");
  CHECK(tally_devices(NULL, 4, &count) == TALLY_EINVAL, "tally_devices with list NULL, capacity 4");
  return tu_done("device");
}

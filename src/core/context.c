/* Contexts: the backend registry, device strings, $TALLY_DEVICE, device listing. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The static registry of backends. Each loads its driver at run time and reports, through
 * tally_devices(), why it is unusable where it is. */
static const tally__backend *const registry[] = {&tally__cuda_backend, &tally__opencl_backend,
                                                 &tally__cpu_backend};
#define NBACKENDS (sizeof registry / sizeof registry[0])

void tally_options_init(tally_options *opt) {
  if (!opt) return;
  memset(opt, 0, sizeof *opt);
  opt->accuracy = TALLY_ACCURACY_DEFAULT;
  opt->nan = TALLY_NAN_PROPAGATE;
  opt->axis = -1;
  opt->ddof = 0;
  opt->variant = NULL;
  opt->host_input = TALLY_HOST_INPUT_AUTO;
}

static tally_status open_named(const char *device, tally_context **ctx) {
  size_t len = strcspn(device, ":");
  const char *args = device + len; /* "" or ":..." */
  if (len == 4 && strncmp(device, "auto", 4) == 0) {
    if (*args)
      return tally__fail(NULL, TALLY_EINVAL, "device '%s': \"auto\" takes no arguments", device);
    /* The first GPU if one can be opened (CUDA, then an OpenCL GPU), else the CPU. */
    if (tally__cuda_backend.open("", ctx) == TALLY_OK) return TALLY_OK;
    if (tally__opencl_open_gpu(ctx) == TALLY_OK) {
      tally__clear_error(NULL);
      return TALLY_OK;
    }
    tally__clear_error(NULL);
    return tally__cpu_backend.open("", ctx);
  }
  for (size_t i = 0; i < NBACKENDS; i++) {
    const char *name = registry[i]->name;
    if (strlen(name) == len && strncmp(device, name, len) == 0)
      return registry[i]->open(args, ctx);
  }
  return tally__fail(NULL, TALLY_EINVAL,
                     "device '%s' is unknown (expected auto, cpu, cpu:threads=N, "
                     "cpu:isa=scalar|avx2|avx512, cuda[:K], opencl[:P:D])", device);
}

tally_status tally_open(const char *device, tally_context **ctx) {
  if (!ctx) return tally__fail(NULL, TALLY_EINVAL, "ctx: NULL pointer");
  *ctx = NULL;
  const char *from = "device";
  if (!device) {
    device = getenv("TALLY_DEVICE");
    from = "$TALLY_DEVICE";
    if (!device || !*device) { device = "auto"; from = "device"; }
  }
  tally_status s = open_named(device, ctx);
  if (s != TALLY_OK) {
    *ctx = NULL;
    if (from[0] == '$') {
      /* Say where the string came from: the caller passed NULL. */
      char detail[TALLY_ERRMSG_MAX];
      strncpy(detail, tally_errmsg(NULL), sizeof detail - 1);
      detail[sizeof detail - 1] = '\0';
      tally__fail(NULL, s, "%s: %s", from, detail);
    }
    return s;
  }
  strncpy((*ctx)->device, device, sizeof (*ctx)->device - 1);
  (*ctx)->device[sizeof (*ctx)->device - 1] = '\0';
  (*ctx)->errmsg[0] = '\0';
  return TALLY_OK;
}

void tally_close(tally_context *ctx) {
  if (!ctx) return;
  if (ctx->host_cpu) ctx->host_cpu->backend->close(ctx->host_cpu);
  ctx->backend->close(ctx);
}

tally_status tally_context_describe(const tally_context *ctx, tally_context_info *info) {
  if (!ctx) return tally__fail(NULL, TALLY_EINVAL, "ctx: NULL pointer");
  if (!info) return tally__fail(ctx, TALLY_EINVAL, "info: NULL pointer");
  memset(info, 0, sizeof *info);
  return ctx->backend->describe(ctx, info);
}

const char *tally_variant_name(const tally_context *ctx, int i) {
  if (!ctx || i < 0) return NULL;
  return ctx->backend->variant_name(ctx, i);
}

tally_status tally_devices(tally_device_info *list, int capacity, int *count) {
  if (!count) return tally__fail(NULL, TALLY_EINVAL, "count: NULL pointer");
  if (capacity < 0) return tally__fail(NULL, TALLY_EINVAL, "capacity: %d is negative", capacity);
  if (capacity > 0 && !list)
    return tally__fail(NULL, TALLY_EINVAL, "list: NULL pointer with capacity %d", capacity);
  int total = 0;
  for (size_t i = 0; i < NBACKENDS; i++) {
    tally_device_info tmp[8];
    int k = registry[i]->devices(tmp, 8);
    for (int j = 0; j < k; j++, total++)
      if (total < capacity) list[total] = tmp[j];
  }
  *count = total;
  return TALLY_OK;
}

/* The CUDA backend: contexts from "cuda[:K]", device description, device memory, the
 * vtable. The driver and NVRTC are loaded at run time (loader.c). */
#include "core/gpu_host.h"
#include "cuda_ctx.h"
#include "variants.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tally_status tally__cuda_fail(tally__cuda_ctx *c, CUresult r, const char *what) {
  const char *name = NULL, *str = NULL;
  c->cu->cuGetErrorName(r, &name);
  c->cu->cuGetErrorString(r, &str);
  return tally__fail(&c->base, r == CUDA_ERROR_OUT_OF_MEMORY_ ? TALLY_ENOMEM : TALLY_EBACKEND,
                     "%s failed on cuda:%d: %s (%s)", what, c->ordinal, name ? name : "?",
                     str ? str : "no description");
}

tally_status tally__cuda_enter(tally__cuda_ctx *c) {
  CUresult r = c->cu->cuCtxPushCurrent(c->pctx);
  return r ? tally__cuda_fail(c, r, "cuCtxPushCurrent") : TALLY_OK;
}

void tally__cuda_leave(tally__cuda_ctx *c) {
  CUcontext dummy;
  c->cu->cuCtxPopCurrent(&dummy);
}

/* "", ":K": the device ordinal. */
static tally_status parse_ordinal(const char *args, int *ordinal) {
  *ordinal = 0;
  if (!*args) return TALLY_OK;
  char *end;
  long v = args[0] == ':' && args[1] ? strtol(args + 1, &end, 10) : -1;
  if (args[0] != ':' || !args[1] || *end || v < 0 || v > 1023)
    return tally__fail(NULL, TALLY_EINVAL, "device 'cuda%s': expected cuda or cuda:K with K a "
                       "device number", args);
  *ordinal = (int)v;
  return TALLY_OK;
}

static tally_status cuda_open(const char *args, tally_context **out) {
  int ordinal;
  tally_status s = parse_ordinal(args, &ordinal);
  if (s) return s;
  char why[512];
  const tally__cu_api *cu = tally__cu_load(why, sizeof why);
  if (!cu) {
    int nodev = strstr(why, "no CUDA device") != NULL;
    return tally__fail(NULL, nodev ? TALLY_ENODEV : TALLY_EDRIVER, "device 'cuda%s': %s", args, why);
  }
  int count = 0;
  cu->cuDeviceGetCount(&count);
  if (ordinal >= count)
    return tally__fail(NULL, TALLY_ENODEV, "device 'cuda%s': this machine has %d CUDA device%s",
                       args, count, count == 1 ? "" : "s");
  const tally__nvrtc_api *nv = tally__nvrtc_load(why, sizeof why);
  if (!nv) return tally__fail(NULL, TALLY_EDRIVER, "device 'cuda%s': %s", args, why);

  tally__cuda_ctx *c = calloc(1, sizeof *c);
  if (!c) return tally__fail(NULL, TALLY_ENOMEM, "cuda context: out of memory");
  c->base.backend = &tally__cuda_backend;
  c->cu = cu;
  c->nv = nv;
  c->ordinal = ordinal;
  CUresult r;
  if ((r = cu->cuDeviceGet(&c->dev, ordinal)) ||
      (r = cu->cuDevicePrimaryCtxRetain(&c->pctx, c->dev))) {
    const char *name = NULL;
    cu->cuGetErrorName(r, &name);
    free(c);
    return tally__fail(NULL, TALLY_EBACKEND, "device 'cuda%s': cannot use device %d: %s", args,
                       ordinal, name ? name : "?");
  }
  cu->cuDeviceGetName(c->name, sizeof c->name, c->dev);
  cu->cuDeviceGetAttribute(&c->sms, CU_ATTR_MULTIPROCESSOR_COUNT_, c->dev);
  cu->cuDeviceGetAttribute(&c->cc_major, CU_ATTR_CC_MAJOR_, c->dev);
  cu->cuDeviceGetAttribute(&c->cc_minor, CU_ATTR_CC_MINOR_, c->dev);
  /* The SM's limits: the scan's launch bounds (scan.c), the reductions' grids; an
   * attribute a driver lacks reads 0: no limit. */
  cu->cuDeviceGetAttribute(&c->sm.threads, CU_ATTR_MAX_THREADS_PER_MULTIPROCESSOR_, c->dev);
  c->sm.smem_unit = c->cc_major >= 8 ? 128 : 256;
  if (cu->cuDeviceGetAttribute(&c->sm.smem, CU_ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR_, c->dev))
    c->sm.smem = 0;
  if (cu->cuDeviceGetAttribute(&c->sm.smem_reserved, CU_ATTR_RESERVED_SHARED_MEMORY_PER_BLOCK_, c->dev))
    c->sm.smem_reserved = 0;
  /* $TALLY_CUDA_SM_SMEM=BYTES: plan the scans for SMs of that much shared memory (for
   * measuring and testing the bounds of other cards' plans here; read once a context) */
  const char *sm_smem = getenv("TALLY_CUDA_SM_SMEM");
  if (sm_smem && atoi(sm_smem) > 0) c->sm.smem = atoi(sm_smem);
  cu->cuDeviceGetAttribute(&c->l2_bytes, CU_ATTR_L2_CACHE_SIZE_, c->dev);
  cu->cuDeviceTotalMem(&c->mem_bytes, c->dev);
  cu->cuDriverGetVersion(&c->driver);
  nv->nvrtcVersion(&c->nvrtc_major, &c->nvrtc_minor);
  snprintf(c->arch, sizeof c->arch, "sm_%d%d", c->cc_major, c->cc_minor);
  const char *wait = getenv("TALLY_CUDA_WAIT");
  c->wait_sync = wait && strcmp(wait, "sync") == 0;
  if ((s = tally__cuda_enter(c))) {
    char msg[TALLY_ERRMSG_MAX];
    snprintf(msg, sizeof msg, "%s", c->base.errmsg);
    cu->cuDevicePrimaryCtxRelease(c->dev);
    free(c);
    return tally__fail(NULL, s, "%s", msg);
  }
  r = cu->cuStreamCreate(&c->stream, 0); /* blocking: ordered after the caller's legacy default-stream work */
  tally__cuda_leave(c);
  if (r) {
    const char *name = NULL;
    cu->cuGetErrorName(r, &name);
    cu->cuDevicePrimaryCtxRelease(c->dev);
    free(c);
    return tally__fail(NULL, TALLY_EBACKEND, "device 'cuda%s': cuStreamCreate failed: %s", args,
                       name ? name : "?");
  }
  *out = &c->base;
  return TALLY_OK;
}

static void cuda_close(tally_context *ctx) {
  tally__cuda_ctx *c = (tally__cuda_ctx *)ctx;
  if (tally__cuda_enter(c) == TALLY_OK) {
    c->cu->cuStreamSynchronize(c->stream);
    tally__cuda_kernels_free(c);
    if (c->partials) c->cu->cuMemFree(c->partials);
    if (c->counters) c->cu->cuMemFree(c->counters);
    if (c->results_host) c->cu->cuMemFreeHost(c->results_host);
    for (int i = 0; i < 2; i++)
      if (c->staging[i]) c->cu->cuMemFree(c->staging[i]);
    if (c->offsets_dev) c->cu->cuMemFree(c->offsets_dev);
    tally__cuda_stream_free(c);
    for (int i = 0; i < 2; i++)
      if (c->ladder_buf[i]) c->cu->cuMemFree(c->ladder_buf[i]);
    if (c->ladder_small) c->cu->cuMemFree(c->ladder_small);
    CUdeviceptr scan_bufs[] = {c->scan_tiles, c->scan_slots, c->scan_heads, c->scan_out, c->hist_buf};
    for (int i = 0; i < 5; i++)
      if (scan_bufs[i]) c->cu->cuMemFree(scan_bufs[i]);
    c->cu->cuStreamDestroy(c->stream);
    tally__cuda_leave(c);
  }
  c->cu->cuDevicePrimaryCtxRelease(c->dev);
  if (c->cpu) tally__cpu_backend.close(c->cpu);
  free(c);
}

static tally_status cuda_reduce_user(tally_context *ctx, const tally_user_op *uop,
                                     const void *data, int64_t n, int64_t stride, void *out) {
  return tally__host_reduce_user(ctx, &((tally__cuda_ctx *)ctx)->cpu, uop, data, n, stride, out);
}

static tally_status cuda_describe(const tally_context *ctx, tally_context_info *info) {
  const tally__cuda_ctx *c = (const tally__cuda_ctx *)ctx;
  snprintf(info->backend, sizeof info->backend, "cuda");
  snprintf(info->device, sizeof info->device, "%s", c->name);
  info->threads = c->sms * c->sm.threads;
  info->compute_units = c->sms;
  info->cc_major = c->cc_major;
  info->cc_minor = c->cc_minor;
  info->memory_bytes = (int64_t)c->mem_bytes;
  info->l2_bytes = c->l2_bytes;
  info->driver_version = c->driver;
  snprintf(info->arch, sizeof info->arch, "%s", c->arch);
  return TALLY_OK;
}

static const char *cuda_variant_name(const tally_context *ctx, int i) {
  (void)ctx;
  return tally__cuda_variant_name(i);
}

static tally_status cuda_check(tally_context *ctx, const tally__problem *p) {
  tally__cuda_variant v;
  return tally__cuda_variant_find(ctx, p, &v);
}

static size_t cuda_workspace_size(const tally_context *ctx, const tally__problem *p) {
  (void)ctx, (void)p;
  return 0; /* device scratch lives in the context */
}

static int cuda_devices(tally_device_info *list, int capacity) {
  char why[512];
  const tally__cu_api *cu = tally__cu_load(why, sizeof why);
  int count = 0;
  if (cu) cu->cuDeviceGetCount(&count);
  if (!cu || count == 0) {
    if (capacity < 1) return 1;
    memset(&list[0], 0, sizeof list[0]);
    snprintf(list[0].name, sizeof list[0].name, "cuda");
    snprintf(list[0].backend, sizeof list[0].backend, "cuda");
    snprintf(list[0].why, sizeof list[0].why, "%.159s", cu ? "no CUDA device is visible" : why);
    return 1;
  }
  const tally__nvrtc_api *nv = tally__nvrtc_load(why, sizeof why);
  int k = 0;
  for (int i = 0; i < count && k < capacity; i++, k++) {
    tally_device_info *d = &list[k];
    memset(d, 0, sizeof *d);
    CUdevice dev;
    char name[96] = "?";
    int sms = 0, ma = 0, mi = 0;
    size_t mem = 0;
    cu->cuDeviceGet(&dev, i);
    cu->cuDeviceGetName(name, sizeof name, dev);
    cu->cuDeviceGetAttribute(&sms, CU_ATTR_MULTIPROCESSOR_COUNT_, dev);
    cu->cuDeviceGetAttribute(&ma, CU_ATTR_CC_MAJOR_, dev);
    cu->cuDeviceGetAttribute(&mi, CU_ATTR_CC_MINOR_, dev);
    cu->cuDeviceTotalMem(&mem, dev);
    snprintf(d->name, sizeof d->name, "cuda:%d", i);
    snprintf(d->backend, sizeof d->backend, "cuda");
    snprintf(d->detail, sizeof d->detail, "%s, sm_%d%d, %d SMs, %.1f GiB", name, ma, mi, sms,
             (double)mem / (1 << 30));
    d->usable = nv != NULL;
    if (!nv) snprintf(d->why, sizeof d->why, "%.159s", why);
  }
  return k;
}

/* ------------------------------------------------------------ device memory */

static tally_status cuda_mem_alloc(tally_context *ctx, size_t bytes, void **ptr) {
  tally__cuda_ctx *c = (tally__cuda_ctx *)ctx;
  tally_status s = tally__cuda_enter(c);
  if (s) return s;
  CUdeviceptr d = 0;
  CUresult r = c->cu->cuMemAlloc(&d, bytes);
  tally__cuda_leave(c);
  if (r == CUDA_ERROR_OUT_OF_MEMORY_)
    return tally__fail(ctx, TALLY_ENOMEM, "bytes: %zu (%.2f GiB) is more than cuda:%d (%s, "
                       "%.2f GiB) has free", bytes, (double)bytes / (1 << 30), c->ordinal,
                       c->name, (double)c->mem_bytes / (1 << 30));
  if (r) return tally__cuda_fail(c, r, "cuMemAlloc");
  *ptr = (void *)(uintptr_t)d;
  return TALLY_OK;
}

static tally_status cuda_mem_free(tally_context *ctx, void *ptr) {
  tally__cuda_ctx *c = (tally__cuda_ctx *)ctx;
  tally_status s = tally__cuda_enter(c);
  if (s) return s;
  CUresult r = c->cu->cuMemFree((CUdeviceptr)(uintptr_t)ptr);
  tally__cuda_leave(c);
  return r ? tally__cuda_fail(c, r, "cuMemFree") : TALLY_OK;
}

static tally_status cuda_mem_copy(tally_context *ctx, void *dst, tally_mem dst_mem, const void *src,
                                  tally_mem src_mem, size_t bytes) {
  tally__cuda_ctx *c = (tally__cuda_ctx *)ctx;
  if (dst_mem == TALLY_MEM_HOST && src_mem == TALLY_MEM_HOST) {
    memmove(dst, src, bytes);
    return TALLY_OK;
  }
  tally_status s = tally__cuda_enter(c);
  if (s) return s;
  CUdeviceptr d = (CUdeviceptr)(uintptr_t)dst, sp = (CUdeviceptr)(uintptr_t)src;
  CUresult r;
  const char *what;
  if (dst_mem == TALLY_MEM_DEVICE && src_mem == TALLY_MEM_HOST)
    r = c->cu->cuMemcpyHtoDAsync(d, src, bytes, c->stream), what = "cuMemcpyHtoD";
  else if (dst_mem == TALLY_MEM_HOST)
    r = c->cu->cuMemcpyDtoHAsync(dst, sp, bytes, c->stream), what = "cuMemcpyDtoH";
  else
    r = c->cu->cuMemcpyDtoDAsync(d, sp, bytes, c->stream), what = "cuMemcpyDtoD";
  if (!r) r = c->cu->cuStreamSynchronize(c->stream);
  tally__cuda_leave(c);
  return r ? tally__cuda_fail(c, r, what) : TALLY_OK;
}

/* Pinned host memory: a host array in it goes to the device by DMA straight from where it
 * is (stream.c), with no staging copy by the host's threads. */
static tally_status cuda_mem_alloc_host(tally_context *ctx, size_t bytes, void **ptr) {
  tally__cuda_ctx *c = (tally__cuda_ctx *)ctx;
  tally_status s = tally__cuda_enter(c);
  if (s) return s;
  CUresult r = c->cu->cuMemHostAlloc(ptr, bytes, CU_MEMHOSTALLOC_PORTABLE_);
  tally__cuda_leave(c);
  if (r == CUDA_ERROR_OUT_OF_MEMORY_) {
    *ptr = NULL;
    return tally__fail(ctx, TALLY_ENOMEM, "bytes: %zu (%.2f GiB) of pinned host memory could "
                       "not be had", bytes, (double)bytes / (1 << 30));
  }
  if (r) { *ptr = NULL; return tally__cuda_fail(c, r, "cuMemHostAlloc"); }
  return TALLY_OK;
}

static tally_status cuda_mem_free_host(tally_context *ctx, void *ptr) {
  tally__cuda_ctx *c = (tally__cuda_ctx *)ctx;
  tally_status s = tally__cuda_enter(c);
  if (s) return s;
  CUresult r = c->cu->cuMemFreeHost(ptr);
  tally__cuda_leave(c);
  return r ? tally__cuda_fail(c, r, "cuMemFreeHost") : TALLY_OK;
}

const tally__backend tally__cuda_backend = {
    .name = "cuda",
    .open = cuda_open,
    .close = cuda_close,
    .describe = cuda_describe,
    .variant_name = cuda_variant_name,
    .check = cuda_check,
    .workspace_size = cuda_workspace_size,
    .reduce = tally__cuda_reduce,
    .reduce_user = cuda_reduce_user,
    .scan = tally__cuda_scan,
    .histogram = tally__cuda_histogram,
    .devices = cuda_devices,
    .mem_alloc = cuda_mem_alloc,
    .mem_free = cuda_mem_free,
    .mem_copy = cuda_mem_copy,
    .mem_alloc_host = cuda_mem_alloc_host,
    .mem_free_host = cuda_mem_free_host,
};

/* The OpenCL backend: contexts from "opencl[:P:D]", device description, device memory
 * (cl_mem handles), the vtable. The ICD loader is loaded at run time (loader.c); kernels
 * are the shared dialect sources (src/gpu), built by the device's own compiler. */
#include "core/gpu_host.h"
#include "core/gpu_ladder.h"
#include "opencl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CL_DEVICE_TYPE_CPU_ 2
#define CL_DEVICE_TYPE_GPU_ 4

tally_status tally__ocl_set_args(tally__ocl_ctx *c, cl_kernel k, const tally__ocl_arg *args,
                                 int nargs, const char *what) {
  cl_int e = CL_SUCCESS_;
  for (cl_uint a = 0; a < (cl_uint)nargs && !e; a++)
    e = c->cl->clSetKernelArg(k, a, args[a].size, args[a].value);
  return e ? tally__ocl_fail(c, e, what) : TALLY_OK;
}

tally_status tally__ocl_fail(tally__ocl_ctx *c, cl_int e, const char *what) {
  bool mem = e == CL_MEM_OBJECT_ALLOCATION_FAILURE_ || e == CL_OUT_OF_HOST_MEMORY_ ||
             e == CL_INVALID_BUFFER_SIZE_;
  return tally__fail(&c->base, mem ? TALLY_ENOMEM : TALLY_EBACKEND,
                     "%s failed on opencl:%d:%d (%s): OpenCL error %d", what, c->platform,
                     c->index, c->name, (int)e);
}

/* "", ":P:D", ":local=N" or ":P:D,local=N": platform and device numbers (every device
 * type, in the platform's order) and the work-group size (0: the backend's choice). */
static tally_status parse_args(const char *args, int *plat, int *dev, int *local) {
  *plat = *dev = *local = 0;
  if (!*args) return TALLY_OK;
  const char *rest = args;
  int a = -1, b = -1, used = 0;
  if (sscanf(rest, ":%d:%d%n", &a, &b, &used) == 2) {
    if (a < 0 || b < 0 || a > 63 || b > 63) used = -1;
    rest += used > 0 ? used : 0;
    if (*rest == ',') rest++;
    else if (*rest == '\0') used = used > 0 ? used : -1;
    else used = -1;
  } else if (strncmp(rest, ":local=", 7) == 0) {
    rest++;
    a = b = 0;
  } else {
    used = -1;
  }
  if (used >= 0 && *rest) {
    char *end;
    long v = strncmp(rest, "local=", 6) == 0 ? strtol(rest + 6, &end, 10) : -1;
    if (v < 1 || v > 65536 || *end || (v & (v - 1))) used = -1;
    else *local = (int)v;
  }
  if (used < 0)
    return tally__fail(NULL, TALLY_EINVAL, "device 'opencl%s': expected opencl, opencl:P:D "
                       "(platform and device numbers, as `tally info` lists them), with an "
                       "optional local=N work-group size (a power of two): opencl:0:0,local=128 "
                       "or opencl:local=128", args);
  *plat = a < 0 ? 0 : a;
  *dev = b < 0 ? 0 : b;
  return TALLY_OK;
}

/* The device plat:dev, or a failure naming what is missing. */
static tally_status find_device(const tally__cl_api *cl, const char *args, int plat, int dev,
                                cl_device_id *out) {
  cl_platform_id plats[16];
  cl_uint np = 0;
  if (cl->clGetPlatformIDs(16, plats, &np) != CL_SUCCESS_ || np == 0)
    return tally__fail(NULL, TALLY_ENODEV, "device 'opencl%s': no OpenCL platform is installed "
                       "(Debian: pocl-opencl-icd for the CPU, or a GPU vendor's driver)", args);
  if ((cl_uint)plat >= np)
    return tally__fail(NULL, TALLY_ENODEV, "device 'opencl%s': this machine has %u OpenCL "
                       "platform%s", args, np, np == 1 ? "" : "s");
  cl_device_id devs[64];
  cl_uint nd = 0;
  if (cl->clGetDeviceIDs(plats[plat], CL_DEVICE_TYPE_ALL_, 64, devs, &nd) != CL_SUCCESS_) nd = 0;
  if ((cl_uint)dev >= nd)
    return tally__fail(NULL, TALLY_ENODEV, "device 'opencl%s': platform %d has %u device%s", args,
                       plat, nd, nd == 1 ? "" : "s");
  *out = devs[dev];
  return TALLY_OK;
}

/* A string property, cut to fit buf (OpenCL refuses a buffer shorter than the string). */
static void info_str(const tally__cl_api *cl, cl_device_id d, cl_uint what, char *buf, size_t len) {
  buf[0] = '\0';
  size_t n = 0;
  if (cl->clGetDeviceInfo(d, what, 0, NULL, &n) != CL_SUCCESS_ || n == 0) return;
  char *all = malloc(n + 1);
  if (all && cl->clGetDeviceInfo(d, what, n, all, NULL) == CL_SUCCESS_) {
    all[n] = '\0';
    snprintf(buf, len, "%s", all);
  }
  free(all);
}

static bool has_extension(const tally__cl_api *cl, cl_device_id d, const char *ext) {
  size_t n = 0;
  if (cl->clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS_, 0, NULL, &n) != CL_SUCCESS_ || n == 0) return false;
  char *all = malloc(n + 1);
  if (!all) return false;
  bool found = false;
  if (cl->clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS_, n, all, NULL) == CL_SUCCESS_) {
    all[n] = '\0';
    size_t el = strlen(ext);
    for (const char *p = all; (p = strstr(p, ext)) != NULL; p += el)
      if ((p == all || p[-1] == ' ') && (p[el] == ' ' || p[el] == '\0')) { found = true; break; }
  }
  free(all);
  return found;
}

void tally__ocl_set_block(tally__ocl_ctx *c, int block) {
  c->block = block;
  /* A GPU runs many work-groups per compute unit at once (as CUDA's one wave); a CPU
   * device runs one per core at a time, and a few per core even out their finishing. */
  c->gmax = (int64_t)c->compute_units *
            ((c->type & CL_DEVICE_TYPE_GPU_) ? (block < 2048 ? 2048 / block : 1) : 4);
}

static tally_status ocl_open(const char *args, tally_context **out) {
  int plat, dev, local;
  tally_status s = parse_args(args, &plat, &dev, &local);
  if (s) return s;
  char why[512];
  const tally__cl_api *cl = tally__cl_load(why, sizeof why);
  if (!cl) return tally__fail(NULL, TALLY_EDRIVER, "device 'opencl%s': %s", args, why);
  cl_device_id d;
  if ((s = find_device(cl, args, plat, dev, &d))) return s;
  tally__ocl_ctx *c = calloc(1, sizeof *c);
  if (!c) return tally__fail(NULL, TALLY_ENOMEM, "opencl context: out of memory");
  c->base.backend = &tally__opencl_backend;
  c->cl = cl;
  c->platform = plat;
  c->index = dev;
  c->dev = d;
  info_str(cl, d, CL_DEVICE_NAME_, c->name, sizeof c->name);
  info_str(cl, d, CL_DEVICE_VENDOR_, c->vendor, sizeof c->vendor);
  info_str(cl, d, CL_DRIVER_VERSION_, c->driver, sizeof c->driver);
  info_str(cl, d, CL_DEVICE_VERSION_, c->version, sizeof c->version);
  cl->clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS_, sizeof c->compute_units, &c->compute_units, NULL);
  cl->clGetDeviceInfo(d, CL_DEVICE_TYPE_, sizeof c->type, &c->type, NULL);
  cl->clGetDeviceInfo(d, CL_DEVICE_MAX_WORK_GROUP_SIZE_, sizeof c->max_wg, &c->max_wg, NULL);
  cl->clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE_, sizeof c->mem_bytes, &c->mem_bytes, NULL);
  cl->clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE_, sizeof c->local_bytes, &c->local_bytes, NULL);
  cl->clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE_, sizeof c->max_alloc, &c->max_alloc, NULL);
  c->has_fp64 = has_extension(cl, d, "cl_khr_fp64");
  c->has_atomic64 = has_extension(cl, d, "cl_khr_int64_base_atomics");
  c->is_cpu = (c->type & CL_DEVICE_TYPE_CPU_) != 0;
  /* Provisional (reduce.c's settle_block sets it from the kernel's preferred multiple):
   * the local-memory tree keeps a part of up to 72 bytes per work-item; fewer on devices
   * with less. CPU devices: work-items run one after another, and a short slice should
   * not cost hundreds of them. */
  c->block = c->is_cpu ? 64 : 512;
  while (c->block > 32 && ((size_t)c->block > c->max_wg || (cl_ulong)c->block * 72 + 1024 > c->local_bytes))
    c->block /= 2;
  if (local) { /* asked for (tally bench --local-sizes): the device must allow it */
    if ((size_t)local > c->max_wg || (cl_ulong)local * 72 + 1024 > c->local_bytes) {
      char name[128];
      snprintf(name, sizeof name, "%s", c->name);
      size_t wg = c->max_wg;
      cl_ulong lm = c->local_bytes;
      free(c);
      return tally__fail(NULL, TALLY_EUNSUPPORTED, "device 'opencl%s': local=%d is more than %s "
                         "allows (at most %zu work-items, and %llu bytes of local memory for "
                         "72 bytes per work-item)", args, local, name, wg, (unsigned long long)lm);
    }
    c->block = local;
  }
  c->block_settled = local != 0;
  if (c->compute_units < 1) c->compute_units = 1;
  tally__ocl_set_block(c, c->block);
  cl_int e;
  c->ctx = cl->clCreateContext(NULL, 1, &d, NULL, NULL, &e);
  if (c->ctx) c->queue = cl->clCreateCommandQueue(c->ctx, d, 0, &e);
  if (!c->queue) {
    if (c->ctx) cl->clReleaseContext(c->ctx);
    free(c);
    return tally__fail(NULL, TALLY_EBACKEND, "device 'opencl%s': creating a context and queue "
                       "failed: OpenCL error %d", args, (int)e);
  }
  *out = &c->base;
  return TALLY_OK;
}

static void ocl_close(tally_context *ctx) {
  tally__ocl_ctx *c = (tally__ocl_ctx *)ctx;
  const tally__cl_api *cl = c->cl;
  cl->clFinish(c->queue);
  tally__ocl_kernels_free(c);
  cl_mem bufs[] = {c->partials, c->results, c->staging[0], c->staging[1], c->offsets,
                   c->ladder_buf[0], c->ladder_buf[1], c->ladder_counter, c->ladder_result,
                   c->scan_tiles, c->scan_carry, c->scan_heads, c->scan_out,
                   c->hist_edges, c->hist_rows, c->hist_counts, c->hist_tot};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
    if (bufs[i]) cl->clReleaseMemObject(bufs[i]);
  cl->clReleaseCommandQueue(c->queue);
  cl->clReleaseContext(c->ctx);
  if (c->cpu) tally__cpu_backend.close(c->cpu);
  free(c);
}

static tally_status ocl_reduce_user(tally_context *ctx, const tally_user_op *uop, const void *data,
                                    int64_t n, int64_t stride, void *out) {
  return tally__host_reduce_user(ctx, &((tally__ocl_ctx *)ctx)->cpu, uop, data, n, stride, out);
}

static tally_status ocl_describe(const tally_context *ctx, tally_context_info *info) {
  const tally__ocl_ctx *c = (const tally__ocl_ctx *)ctx;
  snprintf(info->backend, sizeof info->backend, "opencl");
  snprintf(info->device, sizeof info->device, "%s", c->name);
  info->threads = (int)c->compute_units * c->block;
  info->compute_units = (int)c->compute_units;
  info->memory_bytes = (int64_t)c->mem_bytes;
  snprintf(info->arch, sizeof info->arch, "%.15s", c->version);
  return TALLY_OK;
}

static const char *ocl_variant_name(const tally_context *ctx, int i) {
  return tally__ladder_variant_name(tally__ocl_ladder_caps((const tally__ocl_ctx *)ctx), i);
}

static tally_status ocl_check(tally_context *ctx, const tally__problem *p) {
  tally__ocl_ctx *c = (tally__ocl_ctx *)ctx;
  const tally__ladder_variant *v;
  tally_status s = tally__ladder_find(ctx, "opencl", tally__ocl_ladder_caps(c), p->opt.variant,
                                      p->op, p->dtype, &v);
  if (s) return s;
  /* Every part keeps 64-bit float fields (compensated sums, Welford means), so the
   * kernels need doubles whatever the input type. */
  if (!c->has_fp64)
    return tally__fail(ctx, TALLY_EUNSUPPORTED, "opencl:%d:%d (%s) lacks the cl_khr_fp64 "
                       "extension, which tally's kernels need for their 64-bit accumulators",
                       c->platform, c->index, c->name);
  return TALLY_OK;
}

static size_t ocl_workspace_size(const tally_context *ctx, const tally__problem *p) {
  (void)ctx, (void)p;
  return 0;
}

static int ocl_devices(tally_device_info *list, int capacity) {
  char why[512];
  const tally__cl_api *cl = tally__cl_load(why, sizeof why);
  cl_platform_id plats[16];
  cl_uint np = 0;
  if (cl && (cl->clGetPlatformIDs(16, plats, &np) != CL_SUCCESS_ || np == 0)) {
    np = 0;
    snprintf(why, sizeof why, "no OpenCL platform is installed (Debian: pocl-opencl-icd)");
  }
  int k = 0;
  for (cl_uint p = 0; p < np; p++) {
    cl_device_id devs[64];
    cl_uint nd = 0;
    if (cl->clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL_, 64, devs, &nd) != CL_SUCCESS_) nd = 0;
    for (cl_uint d = 0; d < nd; d++, k++) {
      if (k >= capacity) continue;
      tally_device_info *x = &list[k];
      memset(x, 0, sizeof *x);
      char name[96], version[48];
      cl_uint cus = 0;
      cl_ulong mem = 0;
      info_str(cl, devs[d], CL_DEVICE_NAME_, name, sizeof name);
      info_str(cl, devs[d], CL_DEVICE_VERSION_, version, sizeof version);
      cl->clGetDeviceInfo(devs[d], CL_DEVICE_MAX_COMPUTE_UNITS_, sizeof cus, &cus, NULL);
      cl->clGetDeviceInfo(devs[d], CL_DEVICE_GLOBAL_MEM_SIZE_, sizeof mem, &mem, NULL);
      snprintf(x->name, sizeof x->name, "opencl:%u:%u", p, d);
      snprintf(x->backend, sizeof x->backend, "opencl");
      snprintf(x->detail, sizeof x->detail, "%.60s, %.30s, %u compute units, %.1f GiB", name,
               version, cus, (double)mem / (1 << 30));
      x->usable = has_extension(cl, devs[d], "cl_khr_fp64");
      if (!x->usable) snprintf(x->why, sizeof x->why, "no cl_khr_fp64 (tally's kernels need doubles)");
    }
  }
  if (k == 0) {
    if (capacity < 1) return 1;
    memset(&list[0], 0, sizeof list[0]);
    snprintf(list[0].name, sizeof list[0].name, "opencl");
    snprintf(list[0].backend, sizeof list[0].backend, "opencl");
    snprintf(list[0].why, sizeof list[0].why, "%.159s", cl ? (np ? "no OpenCL device" : why) : why);
    return 1;
  }
  return k < capacity ? k : capacity;
}

/* ------------------------------------------------------------ device memory (cl_mem) */

static tally_status ocl_mem_alloc(tally_context *ctx, size_t bytes, void **ptr) {
  tally__ocl_ctx *c = (tally__ocl_ctx *)ctx;
  if (bytes > c->max_alloc || bytes > c->mem_bytes)
    return tally__fail(ctx, TALLY_ENOMEM, "bytes: %zu (%.2f GiB) is more than opencl:%d:%d (%s) "
                       "allocates at once (%.2f GiB)", bytes, (double)bytes / (1 << 30), c->platform,
                       c->index, c->name, (double)c->max_alloc / (1 << 30));
  cl_int e;
  cl_mem m = c->cl->clCreateBuffer(c->ctx, CL_MEM_READ_WRITE_, bytes, NULL, &e);
  if (!m) return tally__ocl_fail(c, e, "clCreateBuffer");
  *ptr = m;
  return TALLY_OK;
}

static tally_status ocl_mem_free(tally_context *ctx, void *ptr) {
  tally__ocl_ctx *c = (tally__ocl_ctx *)ctx;
  cl_int e = c->cl->clReleaseMemObject((cl_mem)ptr);
  return e ? tally__ocl_fail(c, e, "clReleaseMemObject") : TALLY_OK;
}

/* Device pointers are cl_mem handles: whole buffers, from offset 0. */
static tally_status ocl_mem_copy(tally_context *ctx, void *dst, tally_mem dst_mem, const void *src,
                                 tally_mem src_mem, size_t bytes) {
  tally__ocl_ctx *c = (tally__ocl_ctx *)ctx;
  const tally__cl_api *cl = c->cl;
  cl_int e;
  const char *what;
  if (dst_mem == TALLY_MEM_HOST && src_mem == TALLY_MEM_HOST) {
    memmove(dst, src, bytes);
    return TALLY_OK;
  } else if (dst_mem == TALLY_MEM_DEVICE && src_mem == TALLY_MEM_HOST) {
    e = cl->clEnqueueWriteBuffer(c->queue, (cl_mem)dst, 1, 0, bytes, src, 0, NULL, NULL);
    what = "clEnqueueWriteBuffer";
  } else if (dst_mem == TALLY_MEM_HOST) {
    e = cl->clEnqueueReadBuffer(c->queue, (cl_mem)src, 1, 0, bytes, dst, 0, NULL, NULL);
    what = "clEnqueueReadBuffer";
  } else {
    e = cl->clEnqueueCopyBuffer(c->queue, (cl_mem)src, (cl_mem)dst, 0, 0, bytes, 0, NULL, NULL);
    if (!e) e = cl->clFinish(c->queue);
    what = "clEnqueueCopyBuffer";
  }
  return e ? tally__ocl_fail(c, e, what) : TALLY_OK;
}

/* "auto" takes an OpenCL device only if it is a GPU (a CPU device is slower than tally's
 * own CPU backend). */
tally_status tally__opencl_open_gpu(tally_context **out) {
  char why[512];
  const tally__cl_api *cl = tally__cl_load(why, sizeof why);
  if (!cl) return TALLY_ENODEV;
  cl_platform_id plats[16];
  cl_uint np = 0;
  if (cl->clGetPlatformIDs(16, plats, &np) != CL_SUCCESS_) return TALLY_ENODEV;
  for (cl_uint p = 0; p < np; p++) {
    cl_device_id devs[64];
    cl_uint nd = 0;
    if (cl->clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL_, 64, devs, &nd) != CL_SUCCESS_) continue;
    for (cl_uint d = 0; d < nd; d++) {
      cl_bitfield type = 0;
      cl->clGetDeviceInfo(devs[d], CL_DEVICE_TYPE_, sizeof type, &type, NULL);
      if (!(type & CL_DEVICE_TYPE_GPU_) || !has_extension(cl, devs[d], "cl_khr_fp64")) continue;
      char args[32];
      snprintf(args, sizeof args, ":%u:%u", p, d);
      if (ocl_open(args, out) == TALLY_OK) return TALLY_OK;
    }
  }
  return TALLY_ENODEV;
}

const tally__backend tally__opencl_backend = {
    .name = "opencl",
    .open = ocl_open,
    .close = ocl_close,
    .describe = ocl_describe,
    .variant_name = ocl_variant_name,
    .check = ocl_check,
    .workspace_size = ocl_workspace_size,
    .reduce = tally__ocl_reduce,
    .scan = tally__ocl_scan,
    .histogram = tally__ocl_histogram,
    .reduce_user = ocl_reduce_user,
    .devices = ocl_devices,
    .mem_alloc = ocl_mem_alloc,
    .mem_free = ocl_mem_free,
    .mem_copy = ocl_mem_copy,
    .device_handles = true,
};

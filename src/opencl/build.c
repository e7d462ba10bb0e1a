/* Building the shared GPU kernels as OpenCL C: the backend's kernel cache (in memory, per
 * context; on disk as program binaries keyed by the text, the options, the device and its
 * driver, in the CUDA backend's cache folder), and a check in CI that the dialect stays
 * portable (PoCL builds them on the CPU). */
#include "core/disk_cache.h"
#include "core/gpu_sources.h"
#include "opencl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Build `text` for dev; on failure log[] holds the build log. */
static tally_status build_text(const tally__cl_api *cl, cl_context ctx, cl_device_id dev,
                               const char *text, const char *opts, cl_program *out, char *log,
                               size_t loglen) {
  *out = NULL;
  cl_int e;
  cl_program prog = cl->clCreateProgramWithSource(ctx, 1, &text, NULL, &e);
  if (!prog) {
    snprintf(log, loglen, "clCreateProgramWithSource failed (%d)", (int)e);
    return TALLY_EBACKEND;
  }
  if ((e = cl->clBuildProgram(prog, 1, &dev, opts, NULL, NULL)) != CL_SUCCESS_) {
    size_t n = 0;
    cl->clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG_, 0, NULL, &n);
    char *full = malloc(n + 1);
    if (full && cl->clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG_, n, full, NULL) == 0) {
      full[n] = '\0';
      snprintf(log, loglen, "clBuildProgram failed (%d): %s", (int)e, full);
      tally__gpu_map_log(text, log, loglen);
    } else {
      snprintf(log, loglen, "clBuildProgram failed (%d)", (int)e);
    }
    free(full);
    cl->clReleaseProgram(prog);
    return e == CL_BUILD_PROGRAM_FAILURE_ ? TALLY_ECOMPILE : TALLY_EBACKEND;
  }
  *out = prog;
  return TALLY_OK;
}

/* The assembled sources built for dev. */
static tally_status build_program(const tally__cl_api *cl, cl_context ctx, cl_device_id dev,
                                  const char *const *srcs, const char *opts, cl_program *out,
                                  char *log, size_t loglen) {
  char why[512];
  *out = NULL;
  char *text = tally__gpu_assemble("dialect_opencl.h", srcs, why, sizeof why);
  if (!text) {
    snprintf(log, loglen, "%s", why);
    return TALLY_EIO;
  }
  tally_status s = build_text(cl, ctx, dev, text, opts, out, log, loglen);
  free(text);
  return s;
}

/* The disk cache's file for a program: the text, the options, the device, its driver. */
static int cache_path(const tally__ocl_ctx *c, const char *text, const char *opts, char *path,
                      size_t len) {
  char dir[900];
  if (!tally__cache_dir(dir, sizeof dir)) return 0;
  uint64_t h = 0xcbf29ce484222325ULL;
  const char *parts[] = {text, opts, c->name, c->vendor, c->driver, c->version};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    h = tally__fnv1a(tally__fnv1a(h, parts[i], strlen(parts[i])), "|", 1);
  snprintf(path, len, "%s/ocl-%016llx.bin", dir, (unsigned long long)h);
  return 1;
}

/* A program from the disk cache (its binary, built), or NULL. */
static cl_program from_cache(const tally__ocl_ctx *c, const char *path, const char *opts) {
  size_t size = 0;
  unsigned char *bin = tally__cache_read(path, &size);
  if (!bin) return NULL;
  cl_int st = 0, e;
  const unsigned char *b = bin;
  cl_program prog = c->cl->clCreateProgramWithBinary(c->ctx, 1, &c->dev, &size, &b, &st, &e);
  free(bin);
  if (prog && (st != CL_SUCCESS_ || c->cl->clBuildProgram(prog, 1, &c->dev, opts, NULL, NULL))) {
    c->cl->clReleaseProgram(prog); /* stale or foreign: build from source */
    prog = NULL;
  }
  return prog;
}

static void to_cache(const tally__ocl_ctx *c, const char *path, cl_program prog) {
  size_t size = 0;
  if (c->cl->clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES_, sizeof size, &size, NULL) || !size) return;
  unsigned char *bin = malloc(size);
  if (bin && !c->cl->clGetProgramInfo(prog, CL_PROGRAM_BINARIES_, sizeof bin, &bin, NULL))
    tally__cache_write(path, bin, size);
  free(bin);
}

tally_status tally__ocl_kernel_get(tally__ocl_ctx *c, const char *const *srcs, const char *defs,
                                   const char *entry, cl_kernel *k) {
  size_t len = strlen(defs) + strlen(entry) + 8;
  for (const char *const *n = srcs; *n; n++) len += strlen(*n) + 1;
  char *key = malloc(len);
  if (!key) return tally__fail(&c->base, TALLY_ENOMEM, "opencl: out of memory");
  key[0] = '\0';
  for (const char *const *n = srcs; *n; n++) { strcat(key, *n); strcat(key, ","); }
  strcat(key, "|");
  strcat(key, defs);
  strcat(key, "|");
  strcat(key, entry);
  for (tally__ocl_kernel *e = c->kernels; e; e = e->next)
    if (strcmp(e->key, key) == 0) {
      free(key);
      *k = e->kernel;
      return TALLY_OK;
    }
  char *log = malloc(1 << 16), why[512];
  /* -w: some compilers (PoCL's clang) print warnings to the process's stderr, and the
   * library never prints; the CI build test (tally__opencl_build_only) keeps them. */
  char opts[320];
  snprintf(opts, sizeof opts, "%s -w", defs);
  char *text = log ? tally__gpu_assemble("dialect_opencl.h", srcs, why, sizeof why) : NULL;
  if (!text) {
    tally_status f = log ? tally__fail(&c->base, TALLY_EIO, "opencl: %s", why)
                         : tally__fail(&c->base, TALLY_ENOMEM, "opencl: out of memory");
    free(log);
    free(key);
    return f;
  }
  char path[1024];
  int disk = cache_path(c, text, opts, path, sizeof path);
  cl_program prog = disk ? from_cache(c, path, opts) : NULL;
  tally_status s = TALLY_OK;
  if (!prog) {
    s = build_text(c->cl, c->ctx, c->dev, text, opts, &prog, log, 1 << 16);
    if (!s && disk) to_cache(c, path, prog);
  }
  free(text);
  if (s) {
    tally__fail(&c->base, s, "opencl:%d:%d (%s): building %s [%s]: %s", c->platform, c->index,
                c->name, entry, defs, log);
    free(log);
    free(key);
    return s;
  }
  free(log);
  cl_int e;
  cl_kernel kern = c->cl->clCreateKernel(prog, entry, &e);
  tally__ocl_kernel *node = kern ? calloc(1, sizeof *node) : NULL;
  if (!node) {
    if (kern) c->cl->clReleaseKernel(kern);
    c->cl->clReleaseProgram(prog);
    free(key);
    return kern ? tally__fail(&c->base, TALLY_ENOMEM, "opencl: out of memory")
                : tally__ocl_fail(c, e, "clCreateKernel");
  }
  node->key = key;
  node->prog = prog;
  node->kernel = kern;
  node->next = c->kernels;
  c->kernels = node;
  *k = kern;
  return TALLY_OK;
}

void tally__ocl_kernels_free(tally__ocl_ctx *c) {
  while (c->kernels) {
    tally__ocl_kernel *e = c->kernels;
    c->kernels = e->next;
    c->cl->clReleaseKernel(e->kernel);
    c->cl->clReleaseProgram(e->prog);
    free(e->key);
    free(e);
  }
}

tally_status tally__opencl_build_only(int platform, int device, const char *const *srcs,
                                      const char *defs, char *log, size_t loglen) {
  char why[512];
  log[0] = '\0';
  const tally__cl_api *cl = tally__cl_load(why, sizeof why);
  if (!cl) {
    snprintf(log, loglen, "%s", why);
    return TALLY_EDRIVER;
  }
  cl_platform_id plats[16];
  cl_uint np = 0;
  if (cl->clGetPlatformIDs(16, plats, &np) != CL_SUCCESS_ || np == 0) {
    snprintf(log, loglen, "no OpenCL platform is installed");
    return TALLY_ENODEV;
  }
  if (platform < 0 || (cl_uint)platform >= np) {
    snprintf(log, loglen, "platform %d: this machine has %u", platform, np);
    return TALLY_ENODEV;
  }
  cl_device_id devs[16];
  cl_uint nd = 0;
  if (cl->clGetDeviceIDs(plats[platform], CL_DEVICE_TYPE_ALL_, 16, devs, &nd) != CL_SUCCESS_ ||
      device < 0 || (cl_uint)device >= nd) {
    snprintf(log, loglen, "device %d:%d does not exist (platform %d has %u)", platform, device,
             platform, nd);
    return TALLY_ENODEV;
  }
  cl_device_id dev = devs[device];
  cl_int e;
  cl_context ctx = cl->clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
  if (!ctx) {
    snprintf(log, loglen, "clCreateContext failed (%d)", (int)e);
    return TALLY_EBACKEND;
  }
  cl_program prog;
  tally_status s = build_program(cl, ctx, dev, srcs, defs, &prog, log, loglen);
  if (!s) cl->clReleaseProgram(prog);
  cl->clReleaseContext(ctx);
  return s;
}

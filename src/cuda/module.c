/* Kernels: dialect sources compiled by NVRTC for the device's own architecture, cached in
 * the context (CUmodule per source set and options) and on disk ($TALLY_CACHE_DIR, else
 * $XDG_CACHE_HOME/tally, else ~/.cache/tally), keyed by a hash of the source text, the
 * options, the architecture, the driver and NVRTC versions. */
#include "core/disk_cache.h"
#include "core/gpu_sources.h"
#include "cuda_ctx.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ disk cache */

/* The disk cache's file for a kernel text: everything that changes the machine code. */
static int cache_path(const char *text, const char *defs, const char *arch, int driver,
                      int nv_major, int nv_minor, char *path, size_t len) {
  char dir[900];
  if (!tally__cache_dir(dir, sizeof dir)) return 0;
  uint64_t h = 0xcbf29ce484222325ULL;
  h = tally__fnv1a(h, text, strlen(text));
  h = tally__fnv1a(h, defs, strlen(defs));
  h = tally__fnv1a(h, arch, strlen(arch));
  int vers[3] = {driver, nv_major, nv_minor};
  h = tally__fnv1a(h, vers, sizeof vers);
  snprintf(path, len, "%s/%016llx.cubin", dir, (unsigned long long)h);
  return 1;
}

/* ------------------------------------------------------------ NVRTC */

/* Compile text for arch; *cubin (malloc'd) on success, and in log[] NVRTC's warnings
 * (empty where none: the test of every kernel fails on any, since ptxas warns, and then
 * ignores, a launch bound that asks for more threads than an SM holds); else the log. */
static tally_status nvrtc_compile(const tally__nvrtc_api *nv, const char *text, const char *defs,
                                  const char *arch, void **cubin, size_t *size, char *log,
                                  size_t loglen) {
  /* Options: the -D list split on spaces, the architecture, and no FMA contraction (the
   * error-free transformations of the compensated sums must round as written; FMAs that
   * are wanted are written as FMA()). */
  char archopt[48], *d = strdup(defs ? defs : "");
  const char *opts[64];
  if (!d) {
    snprintf(log, loglen, "out of memory");
    return TALLY_ENOMEM;
  }
  int nopt = 0;
  snprintf(archopt, sizeof archopt, "--gpu-architecture=%s", arch);
  opts[nopt++] = archopt;
  opts[nopt++] = "--fmad=false";
  opts[nopt++] = "-default-device";
  for (char *save = NULL, *tok = strtok_r(d, " ", &save); tok && nopt < 63;
       tok = strtok_r(NULL, " ", &save))
    opts[nopt++] = tok;
  nvrtcProgram prog;
  nvrtcResult r = nv->nvrtcCreateProgram(&prog, text, "tally_kernels.cu", 0, NULL, NULL);
  if (r != 0) {
    snprintf(log, loglen, "nvrtcCreateProgram: %s", nv->nvrtcGetErrorString(r));
    free(d);
    return TALLY_ECOMPILE;
  }
  r = nv->nvrtcCompileProgram(prog, nopt, opts);
  free(d);
  if (r != 0) {
    size_t n = 0;
    nv->nvrtcGetProgramLogSize(prog, &n);
    char *full = malloc(n + 1);
    if (full && nv->nvrtcGetProgramLog(prog, full) == 0) {
      full[n] = '\0';
      snprintf(log, loglen, "%s", full);
    } else {
      snprintf(log, loglen, "nvrtcCompileProgram: %s", nv->nvrtcGetErrorString(r));
    }
    free(full);
    nv->nvrtcDestroyProgram(&prog);
    return TALLY_ECOMPILE;
  }
  size_t n = 0;
  log[0] = '\0';
  if (nv->nvrtcGetProgramLogSize(prog, &n) == 0 && n > 1) {
    char *full = malloc(n + 1);
    if (full && nv->nvrtcGetProgramLog(prog, full) == 0) {
      full[n] = '\0';
      snprintf(log, loglen, "%s", full);
    }
    free(full);
  }
  n = 0;
  nv->nvrtcGetCUBINSize(prog, &n);
  void *bin = n ? malloc(n) : NULL;
  if (!bin || nv->nvrtcGetCUBIN(prog, bin) != 0) {
    free(bin);
    nv->nvrtcDestroyProgram(&prog);
    snprintf(log, loglen, "NVRTC produced no machine code for %s", arch);
    return TALLY_ECOMPILE;
  }
  nv->nvrtcDestroyProgram(&prog);
  *cubin = bin;
  *size = n;
  return TALLY_OK;
}

tally_status tally__cuda_compile_only(const char *const *srcs, const char *defs, const char *arch,
                                      int driver, char *log, size_t loglen) {
  char why[512], dummy[8];
  if (!log) { log = dummy; loglen = sizeof dummy; }
  log[0] = '\0';
  const tally__nvrtc_api *nv = tally__nvrtc_load(why, sizeof why);
  if (!nv) {
    snprintf(log, loglen, "%s", why);
    return TALLY_EDRIVER;
  }
  char *text = tally__gpu_assemble("dialect_cuda.h", srcs, why, sizeof why);
  if (!text) {
    snprintf(log, loglen, "%s", why);
    return TALLY_EIO;
  }
  void *bin = NULL;
  size_t size = 0;
  char path[1024];
  int maj = 0, min = 0;
  nv->nvrtcVersion(&maj, &min);
  int cached = driver > 0 && cache_path(text, defs, arch, driver, maj, min, path, sizeof path);
  if (cached && access(path, R_OK) == 0) { /* already in the disk cache */
    free(text);
    return TALLY_OK;
  }
  tally_status s = nvrtc_compile(nv, text, defs, arch, &bin, &size, log, loglen);
  if (!s && cached) tally__cache_write(path, bin, size);
  free(text);
  free(bin);
  return s;
}

/* ------------------------------------------------------------ the cache */

static char *make_key(const char *const *srcs, const char *defs) {
  size_t len = strlen(defs) + 8;
  for (const char *const *n = srcs; *n; n++) len += strlen(*n) + 1;
  char *k = malloc(len);
  if (!k) return NULL;
  k[0] = '\0';
  for (const char *const *n = srcs; *n; n++) { strcat(k, *n); strcat(k, ","); }
  strcat(k, "|");
  strcat(k, defs);
  return k;
}

/* The module of (srcs, defs): from the context, the disk cache, or NVRTC. */
static tally_status module_get(tally__cuda_ctx *c, const char *const *srcs, const char *defs,
                               tally__cuda_kernel **out) {
  char *key = make_key(srcs, defs);
  if (!key) return tally__fail(&c->base, TALLY_ENOMEM, "kernel cache: out of memory");
  for (tally__cuda_kernel *k = c->kernels; k; k = k->next)
    if (strcmp(k->key, key) == 0) {
      free(key);
      *out = k;
      return TALLY_OK;
    }
  char why[512];
  char *text = tally__gpu_assemble("dialect_cuda.h", srcs, why, sizeof why);
  if (!text) {
    free(key);
    return tally__fail(&c->base, TALLY_EIO, "kernel source: %s", why);
  }
  char path[1024];
  int disk = cache_path(text, defs, c->arch, c->driver, c->nvrtc_major, c->nvrtc_minor, path,
                        sizeof path);
  size_t size = 0;
  void *bin = disk ? tally__cache_read(path, &size) : NULL;
  CUmodule mod = NULL;
  if (bin && c->cu->cuModuleLoadData(&mod, bin) != 0) { /* stale or damaged: rebuild */
    free(bin);
    bin = NULL;
    mod = NULL;
  }
  if (!bin) {
    char log[TALLY_ERRMSG_MAX - 160];
    tally_status s = nvrtc_compile(c->nv, text, defs, c->arch, &bin, &size, log, sizeof log);
    if (s) {
      free(text);
      free(key);
      return tally__fail(&c->base, s, "kernels of %s (%s) failed to compile for %s: %s", srcs[0],
                         defs, c->arch, log);
    }
    CUresult r = c->cu->cuModuleLoadData(&mod, bin);
    if (r != 0) {
      free(bin);
      free(text);
      free(key);
      return tally__cuda_fail(c, r, "cuModuleLoadData");
    }
    if (disk) tally__cache_write(path, bin, size);
  }
  free(bin);
  free(text);
  tally__cuda_kernel *k = calloc(1, sizeof *k);
  if (!k) {
    c->cu->cuModuleUnload(mod);
    free(key);
    return tally__fail(&c->base, TALLY_ENOMEM, "kernel cache: out of memory");
  }
  k->key = key;
  k->module = mod;
  k->next = c->kernels;
  c->kernels = k;
  *out = k;
  return TALLY_OK;
}

tally_status tally__cuda_kernel_get(tally__cuda_ctx *c, const char *const *srcs, const char *defs,
                                    const char *entry, CUfunction *fn) {
  tally__cuda_kernel *k;
  tally_status s = module_get(c, srcs, defs, &k);
  if (s) return s;
  for (int i = 0; i < k->nfn; i++)
    if (strcmp(k->entry[i], entry) == 0) {
      *fn = k->fn[i];
      return TALLY_OK;
    }
  CUfunction f;
  CUresult r = c->cu->cuModuleGetFunction(&f, k->module, entry);
  if (r != 0) return tally__cuda_fail(c, r, "cuModuleGetFunction");
  if (k->nfn < TALLY_CUDA_MAX_ENTRIES) {
    k->entry[k->nfn] = entry;
    k->fn[k->nfn++] = f;
  }
  *fn = f;
  return TALLY_OK;
}

void tally__cuda_kernels_free(tally__cuda_ctx *c) {
  while (c->kernels) {
    tally__cuda_kernel *k = c->kernels;
    c->kernels = k->next;
    c->cu->cuModuleUnload(k->module);
    free(k->key);
    free(k);
  }
}

/* See gpu_util.h. */
#include "gpu_util.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

int tg_checks, tg_failures;

int tg_done(const char *name) {
  printf("%s: %s: %d checks, %d failures\n", tg_failures ? "FAILED" : "PASSED", name, tg_checks,
         tg_failures);
  return tg_failures ? 1 : 0;
}

int tg_open(const char *device, tally_context **ctx) {
  tally_status s = tally_open(device, ctx);
  if (s == TALLY_EDRIVER || s == TALLY_ENODEV || s == TALLY_EUNSUPPORTED) {
    printf("SKIP: tally_open(\"%s\"): %s: %s\n", device, tally_status_name(s), tally_errmsg(NULL));
    return TG_SKIP;
  }
  if (s != TALLY_OK) {
    printf("FAIL: tally_open(\"%s\"): %s: %s\n", device, tally_status_name(s), tally_errmsg(NULL));
    return 1;
  }
  tally_context_info info;
  if (tally_context_describe(*ctx, &info) == TALLY_OK)
    printf("device %s: backend %s, \"%s\", %d SMs, cc %d.%d, %.1f GB, L2 %.1f MB, driver %d, "
           "arch %s\n",
           device, info.backend, info.device, info.compute_units, info.cc_major, info.cc_minor,
           (double)info.memory_bytes / 1e9, (double)info.l2_bytes / 1e6, info.driver_version,
           info.arch);
  fflush(stdout);
  return 0;
}

static int sym(tg_cu *cu, void **fn, const char *name, char *why, size_t why_size) {
  *fn = dlsym(cu->lib, name);
  if (!*fn) {
    snprintf(why, why_size, "libcuda.so.1 has no %s", name);
    return -1;
  }
  return 0;
}

int tg_cu_load(tg_cu *cu, char *why, size_t why_size) {
  memset(cu, 0, sizeof *cu);
  cu->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cu->lib) {
    snprintf(why, why_size, "dlopen(libcuda.so.1): %s", dlerror());
    return -1;
  }
  struct {
    void **fn;
    const char *name;
  } t[] = {
      {(void **)&cu->Init, "cuInit"},
      {(void **)&cu->DeviceGet, "cuDeviceGet"},
      {(void **)&cu->DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"},
      {(void **)&cu->DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"},
      {(void **)&cu->CtxPushCurrent, "cuCtxPushCurrent_v2"},
      {(void **)&cu->CtxPopCurrent, "cuCtxPopCurrent_v2"},
      {(void **)&cu->CtxGetCurrent, "cuCtxGetCurrent"},
      {(void **)&cu->CtxSynchronize, "cuCtxSynchronize"},
      {(void **)&cu->MemAlloc, "cuMemAlloc_v2"},
      {(void **)&cu->MemFree, "cuMemFree_v2"},
      {(void **)&cu->MemcpyHtoD, "cuMemcpyHtoD_v2"},
      {(void **)&cu->MemcpyDtoH, "cuMemcpyDtoH_v2"},
      {(void **)&cu->MemGetInfo, "cuMemGetInfo_v2"},
      {(void **)&cu->GetErrorName, "cuGetErrorName"},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (sym(cu, t[i].fn, t[i].name, why, why_size) != 0) return -1;
  CUresult r = cu->Init(0);
  if (r != 0) {
    snprintf(why, why_size, "cuInit: %s", tg_cu_name(cu, r));
    return -1;
  }
  return 0;
}

const char *tg_cu_name(const tg_cu *cu, CUresult r) {
  const char *name = NULL;
  if (cu->GetErrorName && cu->GetErrorName(r, &name) == 0 && name) return name;
  return "unknown CUresult";
}

void tg_poison(void *p, size_t n) { memset(p, 0xA5, n); }

char *tg_read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n < cap) break;
    char *nb = realloc(buf, 2 * cap + 1);
    if (!nb) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = nb;
    cap *= 2;
  }
  int err = ferror(f);
  fclose(f);
  if (!buf) return NULL;
  if (err) {
    free(buf);
    return NULL;
  }
  buf[n] = 0;
  if (len) *len = n;
  return buf;
}

int tg_write_file(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t put = fwrite(data, 1, len, f);
  int bad = fclose(f) != 0 || put != len;
  return bad ? -1 : 0;
}

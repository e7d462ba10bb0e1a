/* Run-time loading of the CUDA driver (libcuda.so.1) and NVRTC. Each is loaded once per
 * process; a failure is remembered with its reason, so `tally info` and tally_open can
 * say plainly why CUDA is unavailable. */
#include "cu_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tally__cu_api cu;
static tally__nvrtc_api nvrtc;
static char cu_why[256], nvrtc_why[512];
static int cu_ok, nvrtc_ok;
static pthread_once_t cu_once = PTHREAD_ONCE_INIT, nvrtc_once = PTHREAD_ONCE_INIT;

static void load_cu(void) {
  cu.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cu.lib) {
    const char *err = dlerror();
    if (err && strstr(err, "cannot open shared object file"))
      snprintf(cu_why, sizeof cu_why, "libcuda.so.1 (the NVIDIA driver) is not installed on "
               "this machine");
    else
      snprintf(cu_why, sizeof cu_why, "libcuda.so.1 (the NVIDIA driver) could not be loaded: %s",
               err ? err : "unknown error");
    return;
  }
#define TALLY_X_SYM(ret, name, sym, params)                                             \
  if (!(*(void **)&cu.name = dlsym(cu.lib, sym))) {                                      \
    snprintf(cu_why, sizeof cu_why, "libcuda.so.1 has no %s: the driver is too old", sym); \
    return;                                                                              \
  }
  TALLY_CU_FUNCS(TALLY_X_SYM)
#undef TALLY_X_SYM
  CUresult r = cu.cuInit(0);
  if (r != 0) {
    const char *name = NULL;
    cu.cuGetErrorName(r, &name);
    snprintf(cu_why, sizeof cu_why, "cuInit failed: %s (%d)%s", name ? name : "?", r,
             r == CUDA_ERROR_NO_DEVICE_ ? ": no CUDA device is visible" : "");
    return;
  }
  cu_ok = 1;
}

/* NVRTC's soname carries the toolkit's major version; try the current ones, then the
 * toolkit's usual places, then $CUDA_HOME. */
static void load_nvrtc(void) {
  static const char *const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
  const char *dirs[] = {"", getenv("CUDA_HOME"), getenv("CUDA_PATH"), "/usr/local/cuda"};
  for (size_t d = 0; d < sizeof dirs / sizeof dirs[0] && !nvrtc.lib; d++) {
    if (!dirs[d]) continue;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !nvrtc.lib; i++) {
      char path[256];
      if (dirs[d][0]) snprintf(path, sizeof path, "%s/lib64/%s", dirs[d], names[i]);
      else snprintf(path, sizeof path, "%s", names[i]);
      nvrtc.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
      if (nvrtc.lib) snprintf(nvrtc.path, sizeof nvrtc.path, "%s", path);
    }
  }
  if (!nvrtc.lib) {
    snprintf(nvrtc_why, sizeof nvrtc_why, "the CUDA run-time compiler NVRTC (libnvrtc.so.13 or "
             ".12) could not be loaded: install the CUDA toolkit's NVRTC or set CUDA_HOME");
    return;
  }
#define TALLY_X_SYM(ret, name, sym, params)                                                \
  if (!(*(void **)&nvrtc.name = dlsym(nvrtc.lib, sym))) {                                 \
    snprintf(nvrtc_why, sizeof nvrtc_why, "%s has no %s", nvrtc.path, sym);                \
    return;                                                                                 \
  }
  TALLY_NVRTC_FUNCS(TALLY_X_SYM)
#undef TALLY_X_SYM
  nvrtc_ok = 1;
}

const tally__cu_api *tally__cu_load(char *why, size_t len) {
  pthread_once(&cu_once, load_cu);
  if (!cu_ok && why) snprintf(why, len, "%s", cu_why);
  return cu_ok ? &cu : NULL;
}

const tally__nvrtc_api *tally__nvrtc_load(char *why, size_t len) {
  pthread_once(&nvrtc_once, load_nvrtc);
  if (!nvrtc_ok && why) snprintf(why, len, "%s", nvrtc_why);
  return nvrtc_ok ? &nvrtc : NULL;
}

/* Run-time loading of the OpenCL ICD loader (libOpenCL.so.1), once per process. */
#include "cl_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static tally__cl_api cl;
static char cl_why[256];
static int cl_ok;
static pthread_once_t cl_once = PTHREAD_ONCE_INIT;

static void load_cl(void) {
  cl.lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!cl.lib) {
    const char *err = dlerror();
    if (err && strstr(err, "cannot open shared object file"))
      snprintf(cl_why, sizeof cl_why, "libOpenCL.so.1 (the OpenCL ICD loader) is not installed "
               "on this machine (Debian: ocl-icd-libopencl1, and a driver such as pocl-opencl-icd)");
    else
      snprintf(cl_why, sizeof cl_why, "libOpenCL.so.1 could not be loaded: %s", err ? err : "?");
    return;
  }
#define TALLY_X_SYM(ret, name, params)                                                 \
  if (!(*(void **)&cl.name = dlsym(cl.lib, #name))) {                                   \
    snprintf(cl_why, sizeof cl_why, "libOpenCL.so.1 has no %s: the loader is too old", #name); \
    return;                                                                             \
  }
  TALLY_CL_FUNCS(TALLY_X_SYM)
#undef TALLY_X_SYM
  cl_ok = 1;
}

const tally__cl_api *tally__cl_load(char *why, size_t len) {
  pthread_once(&cl_once, load_cl);
  if (!cl_ok && why) snprintf(why, len, "%s", cl_why);
  return cl_ok ? &cl : NULL;
}

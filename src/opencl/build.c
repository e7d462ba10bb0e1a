/* Building the shared GPU kernels as OpenCL C (the OpenCL backend's compiler step, and a
 * check in CI that the dialect stays portable: PoCL builds them on the CPU). */
#include "opencl.h"

#include "core/gpu_sources.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  char *text = tally__gpu_assemble("dialect_opencl.h", srcs, why, sizeof why);
  if (!text) {
    cl->clReleaseContext(ctx);
    snprintf(log, loglen, "%s", why);
    return TALLY_EIO;
  }
  const char *src = text;
  cl_program prog = cl->clCreateProgramWithSource(ctx, 1, &src, NULL, &e);
  tally_status s = TALLY_OK;
  if (!prog) {
    snprintf(log, loglen, "clCreateProgramWithSource failed (%d)", (int)e);
    s = TALLY_EBACKEND;
  } else if ((e = cl->clBuildProgram(prog, 1, &dev, defs, NULL, NULL)) != CL_SUCCESS_) {
    size_t n = 0;
    cl->clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG_, 0, NULL, &n);
    char *full = malloc(n + 1);
    if (full && cl->clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG_, n, full, NULL) == 0) {
      full[n] = '\0';
      snprintf(log, loglen, "clBuildProgram failed (%d): %s", (int)e, full);
    } else {
      snprintf(log, loglen, "clBuildProgram failed (%d)", (int)e);
    }
    free(full);
    s = TALLY_ECOMPILE;
  }
  if (prog) cl->clReleaseProgram(prog);
  cl->clReleaseContext(ctx);
  free(text);
  return s;
}

/* The parts of the OpenCL API (1.2) that tally uses, declared here so tally builds without
 * the OpenCL headers, and resolved at run time from the ICD loader (libOpenCL.so.1) with
 * dlopen/dlsym: one build runs with or without OpenCL. Values are those of CL/cl.h. */
#ifndef TALLY_CL_API_H
#define TALLY_CL_API_H

#include <stddef.h>
#include <stdint.h>

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef cl_ulong cl_bitfield;
typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_context *cl_context;
typedef struct _cl_program *cl_program;
typedef intptr_t cl_context_properties;

enum {
  CL_SUCCESS_ = 0,
  CL_BUILD_PROGRAM_FAILURE_ = -11,
  CL_PLATFORM_NAME_ = 0x0902,
  CL_DEVICE_NAME_ = 0x102B,
  CL_DRIVER_VERSION_ = 0x102D,
  CL_DEVICE_VERSION_ = 0x102F,
  CL_DEVICE_EXTENSIONS_ = 0x1030,
  CL_PROGRAM_BUILD_LOG_ = 0x1183,
};
#define CL_DEVICE_TYPE_ALL_ 0xFFFFFFFFu

#define TALLY_CL_FUNCS(X)                                                                   \
  X(cl_int, clGetPlatformIDs, (cl_uint, cl_platform_id *, cl_uint *))                      \
  X(cl_int, clGetPlatformInfo, (cl_platform_id, cl_uint, size_t, void *, size_t *))        \
  X(cl_int, clGetDeviceIDs, (cl_platform_id, cl_bitfield, cl_uint, cl_device_id *, cl_uint *)) \
  X(cl_int, clGetDeviceInfo, (cl_device_id, cl_uint, size_t, void *, size_t *))            \
  X(cl_context, clCreateContext,                                                           \
    (const cl_context_properties *, cl_uint, const cl_device_id *, void *, void *, cl_int *)) \
  X(cl_int, clReleaseContext, (cl_context))                                                \
  X(cl_program, clCreateProgramWithSource,                                                 \
    (cl_context, cl_uint, const char **, const size_t *, cl_int *))                         \
  X(cl_int, clBuildProgram,                                                                \
    (cl_program, cl_uint, const cl_device_id *, const char *, void *, void *))             \
  X(cl_int, clGetProgramBuildInfo, (cl_program, cl_device_id, cl_uint, size_t, void *, size_t *)) \
  X(cl_int, clReleaseProgram, (cl_program))

#define TALLY_X_PTR(ret, name, params) ret (*name) params;
typedef struct {
  void *lib;
  TALLY_CL_FUNCS(TALLY_X_PTR)
} tally__cl_api;
#undef TALLY_X_PTR

/* Load once per process (thread-safe); NULL on failure with why[] filled in plainly. */
const tally__cl_api *tally__cl_load(char *why, size_t len);

#endif

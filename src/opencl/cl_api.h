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
typedef int64_t cl_long;
typedef cl_ulong cl_bitfield;
typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_context *cl_context;
typedef struct _cl_program *cl_program;
typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_mem *cl_mem;
typedef struct _cl_kernel *cl_kernel;
typedef struct _cl_event *cl_event;
typedef intptr_t cl_context_properties;

enum {
  CL_SUCCESS_ = 0,
  CL_MEM_OBJECT_ALLOCATION_FAILURE_ = -4,
  CL_OUT_OF_RESOURCES_ = -5,
  CL_OUT_OF_HOST_MEMORY_ = -6,
  CL_BUILD_PROGRAM_FAILURE_ = -11,
  CL_INVALID_BUFFER_SIZE_ = -61,
  CL_DEVICE_TYPE_ = 0x1000,
  CL_DEVICE_MAX_COMPUTE_UNITS_ = 0x1002,
  CL_DEVICE_MAX_WORK_GROUP_SIZE_ = 0x1004,
  CL_DEVICE_MAX_MEM_ALLOC_SIZE_ = 0x1010,
  CL_DEVICE_GLOBAL_MEM_SIZE_ = 0x101F,
  CL_DEVICE_LOCAL_MEM_SIZE_ = 0x1023,
  CL_DEVICE_VENDOR_ = 0x102C,
  CL_MEM_READ_WRITE_ = 1,
  CL_KERNEL_WORK_GROUP_SIZE_ = 0x11B0,
  CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE_ = 0x11B3,
  CL_PLATFORM_NAME_ = 0x0902,
  CL_DEVICE_NAME_ = 0x102B,
  CL_DRIVER_VERSION_ = 0x102D,
  CL_DEVICE_VERSION_ = 0x102F,
  CL_DEVICE_EXTENSIONS_ = 0x1030,
  CL_PROGRAM_BUILD_LOG_ = 0x1183,
  CL_PROGRAM_BINARY_SIZES_ = 0x1165,
  CL_PROGRAM_BINARIES_ = 0x1166,
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
  X(cl_int, clReleaseProgram, (cl_program))                                                \
  X(cl_program, clCreateProgramWithBinary, (cl_context, cl_uint, const cl_device_id *,      \
                                            const size_t *, const unsigned char **, cl_int *, \
                                            cl_int *))                                      \
  X(cl_int, clGetProgramInfo, (cl_program, cl_uint, size_t, void *, size_t *))            \
  X(cl_command_queue, clCreateCommandQueue, (cl_context, cl_device_id, cl_bitfield, cl_int *)) \
  X(cl_int, clReleaseCommandQueue, (cl_command_queue))                                     \
  X(cl_mem, clCreateBuffer, (cl_context, cl_bitfield, size_t, void *, cl_int *))          \
  X(cl_int, clReleaseMemObject, (cl_mem))                                                  \
  X(cl_int, clEnqueueWriteBuffer, (cl_command_queue, cl_mem, cl_uint, size_t, size_t,      \
                                   const void *, cl_uint, const cl_event *, cl_event *))   \
  X(cl_int, clEnqueueReadBuffer, (cl_command_queue, cl_mem, cl_uint, size_t, size_t, void *, \
                                  cl_uint, const cl_event *, cl_event *))                  \
  X(cl_int, clEnqueueCopyBuffer, (cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, \
                                  cl_uint, const cl_event *, cl_event *))                  \
  X(cl_int, clEnqueueFillBuffer, (cl_command_queue, cl_mem, const void *, size_t, size_t,  \
                                  size_t, cl_uint, const cl_event *, cl_event *))          \
  X(cl_kernel, clCreateKernel, (cl_program, const char *, cl_int *))                       \
  X(cl_int, clReleaseKernel, (cl_kernel))                                                  \
  X(cl_int, clSetKernelArg, (cl_kernel, cl_uint, size_t, const void *))                   \
  X(cl_int, clGetKernelWorkGroupInfo, (cl_kernel, cl_device_id, cl_uint, size_t, void *, size_t *)) \
  X(cl_int, clEnqueueNDRangeKernel, (cl_command_queue, cl_kernel, cl_uint, const size_t *, \
                                     const size_t *, const size_t *, cl_uint, const cl_event *, \
                                     cl_event *))                                           \
  X(cl_int, clFinish, (cl_command_queue))

#define TALLY_X_PTR(ret, name, params) ret (*name) params;
typedef struct {
  void *lib;
  TALLY_CL_FUNCS(TALLY_X_PTR)
} tally__cl_api;
#undef TALLY_X_PTR

/* Load once per process (thread-safe); NULL on failure with why[] filled in plainly. */
const tally__cl_api *tally__cl_load(char *why, size_t len);

#endif

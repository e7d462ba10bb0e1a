/* The parts of the CUDA driver API and NVRTC that the backend uses, declared here so
 * tally builds without the CUDA headers, and resolved at run time with dlopen/dlsym so
 * one build runs with or without CUDA installed. Values are those of cuda.h (CUDA 12/13),
 * whose ABI NVIDIA keeps stable. */
#ifndef TALLY_CU_API_H
#define TALLY_CU_API_H

#include <stddef.h>
#include <stdint.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct _nvrtcProgram *nvrtcProgram;
typedef int nvrtcResult;

enum {
  CUDA_SUCCESS_ = 0,
  CUDA_ERROR_OUT_OF_MEMORY_ = 2,
  CUDA_ERROR_NO_DEVICE_ = 100,
  CUDA_ERROR_NOT_READY_ = 600,
  CU_ATTR_MAX_THREADS_PER_BLOCK_ = 1,
  CU_ATTR_MULTIPROCESSOR_COUNT_ = 16,
  CU_ATTR_CAN_MAP_HOST_MEMORY_ = 19,
  CU_ATTR_L2_CACHE_SIZE_ = 38,
  CU_ATTR_MAX_THREADS_PER_MULTIPROCESSOR_ = 39,
  CU_ATTR_UNIFIED_ADDRESSING_ = 41,
  CU_ATTR_CC_MAJOR_ = 75,
  CU_ATTR_CC_MINOR_ = 76,
  CU_ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR_ = 81,
  CU_ATTR_RESERVED_SHARED_MEMORY_PER_BLOCK_ = 111,
  CU_MEMHOSTALLOC_PORTABLE_ = 1,
  CU_MEMHOSTALLOC_DEVICEMAP_ = 2,
  CU_STREAM_NON_BLOCKING_ = 1,
  CU_EVENT_DISABLE_TIMING_ = 2,
  CU_POINTER_ATTRIBUTE_MEMORY_TYPE_ = 2,
  CU_POINTER_ATTRIBUTE_RANGE_START_ADDR_ = 11,
  CU_POINTER_ATTRIBUTE_RANGE_SIZE_ = 12,
  CU_MEMORYTYPE_HOST_ = 1,
  CU_MEMORYTYPE_DEVICE_ = 2,
};

/* X(return type, name, symbol, parameters) for every driver function. */
#define TALLY_CU_FUNCS(X)                                                                   \
  X(CUresult, cuInit, "cuInit", (unsigned))                                               \
  X(CUresult, cuDriverGetVersion, "cuDriverGetVersion", (int *))                          \
  X(CUresult, cuDeviceGetCount, "cuDeviceGetCount", (int *))                              \
  X(CUresult, cuDeviceGet, "cuDeviceGet", (CUdevice *, int))                              \
  X(CUresult, cuDeviceGetName, "cuDeviceGetName", (char *, int, CUdevice))                \
  X(CUresult, cuDeviceGetAttribute, "cuDeviceGetAttribute", (int *, int, CUdevice))       \
  X(CUresult, cuDeviceTotalMem, "cuDeviceTotalMem_v2", (size_t *, CUdevice))              \
  X(CUresult, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext *, CUdevice)) \
  X(CUresult, cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (CUdevice))      \
  X(CUresult, cuCtxPushCurrent, "cuCtxPushCurrent_v2", (CUcontext))                       \
  X(CUresult, cuCtxPopCurrent, "cuCtxPopCurrent_v2", (CUcontext *))                       \
  X(CUresult, cuMemGetInfo, "cuMemGetInfo_v2", (size_t *, size_t *))                      \
  X(CUresult, cuMemAlloc, "cuMemAlloc_v2", (CUdeviceptr *, size_t))                       \
  X(CUresult, cuMemFree, "cuMemFree_v2", (CUdeviceptr))                                   \
  X(CUresult, cuMemHostAlloc, "cuMemHostAlloc", (void **, size_t, unsigned))              \
  X(CUresult, cuMemFreeHost, "cuMemFreeHost", (void *))                                   \
  X(CUresult, cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2",                  \
    (CUdeviceptr *, void *, unsigned))                                                    \
  X(CUresult, cuMemcpy, "cuMemcpy", (CUdeviceptr, CUdeviceptr, size_t))                   \
  X(CUresult, cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2",                                  \
    (CUdeviceptr, const void *, size_t, CUstream))                                        \
  X(CUresult, cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2",                                  \
    (void *, CUdeviceptr, size_t, CUstream))                                              \
  X(CUresult, cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2",                                  \
    (CUdeviceptr, CUdeviceptr, size_t, CUstream))                                         \
  X(CUresult, cuMemsetD8Async, "cuMemsetD8Async", (CUdeviceptr, unsigned char, size_t, CUstream)) \
  X(CUresult, cuModuleLoadData, "cuModuleLoadData", (CUmodule *, const void *))           \
  X(CUresult, cuModuleUnload, "cuModuleUnload", (CUmodule))                               \
  X(CUresult, cuModuleGetFunction, "cuModuleGetFunction", (CUfunction *, CUmodule, const char *)) \
  X(CUresult, cuLaunchKernel, "cuLaunchKernel",                                           \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,    \
     CUstream, void **, void **))                                                         \
  X(CUresult, cuStreamCreate, "cuStreamCreate", (CUstream *, unsigned))                   \
  X(CUresult, cuStreamDestroy, "cuStreamDestroy_v2", (CUstream))                          \
  X(CUresult, cuStreamSynchronize, "cuStreamSynchronize", (CUstream))                     \
  X(CUresult, cuStreamQuery, "cuStreamQuery", (CUstream))                                 \
  X(CUresult, cuStreamWaitEvent, "cuStreamWaitEvent", (CUstream, CUevent, unsigned))      \
  X(CUresult, cuEventCreate, "cuEventCreate", (CUevent *, unsigned))                      \
  X(CUresult, cuEventRecord, "cuEventRecord", (CUevent, CUstream))                        \
  X(CUresult, cuEventSynchronize, "cuEventSynchronize", (CUevent))                        \
  X(CUresult, cuEventDestroy, "cuEventDestroy_v2", (CUevent))                             \
  X(CUresult, cuPointerGetAttribute, "cuPointerGetAttribute", (void *, int, CUdeviceptr)) \
  X(CUresult, cuPointerGetAttributes, "cuPointerGetAttributes", (unsigned, int *, void **, CUdeviceptr)) \
  X(CUresult, cuOccupancyMaxActiveBlocksPerMultiprocessor,                                \
    "cuOccupancyMaxActiveBlocksPerMultiprocessor", (int *, CUfunction, int, size_t))     \
  X(CUresult, cuGetErrorName, "cuGetErrorName", (CUresult, const char **))                \
  X(CUresult, cuGetErrorString, "cuGetErrorString", (CUresult, const char **))

#define TALLY_NVRTC_FUNCS(X)                                                                \
  X(nvrtcResult, nvrtcVersion, "nvrtcVersion", (int *, int *))                            \
  X(nvrtcResult, nvrtcCreateProgram, "nvrtcCreateProgram",                                \
    (nvrtcProgram *, const char *, const char *, int, const char *const *, const char *const *)) \
  X(nvrtcResult, nvrtcDestroyProgram, "nvrtcDestroyProgram", (nvrtcProgram *))            \
  X(nvrtcResult, nvrtcCompileProgram, "nvrtcCompileProgram", (nvrtcProgram, int, const char *const *)) \
  X(nvrtcResult, nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize", (nvrtcProgram, size_t *)) \
  X(nvrtcResult, nvrtcGetProgramLog, "nvrtcGetProgramLog", (nvrtcProgram, char *))        \
  X(nvrtcResult, nvrtcGetCUBINSize, "nvrtcGetCUBINSize", (nvrtcProgram, size_t *))        \
  X(nvrtcResult, nvrtcGetCUBIN, "nvrtcGetCUBIN", (nvrtcProgram, char *))                  \
  X(const char *, nvrtcGetErrorString, "nvrtcGetErrorString", (nvrtcResult))

#define TALLY_X_PTR(ret, name, sym, params) ret (*name) params;
typedef struct {
  void *lib;
  TALLY_CU_FUNCS(TALLY_X_PTR)
} tally__cu_api;
typedef struct {
  void *lib;
  char path[256]; /* the library that was loaded */
  TALLY_NVRTC_FUNCS(TALLY_X_PTR)
} tally__nvrtc_api;
#undef TALLY_X_PTR

/* Load once per process (thread-safe); NULL on failure with why[] filled in plainly. */
const tally__cu_api *tally__cu_load(char *why, size_t len);
const tally__nvrtc_api *tally__nvrtc_load(char *why, size_t len);

#endif
